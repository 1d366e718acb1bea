"""Model factories (fake rows for tests and demo seeders) weigh as tests do, unless the
question is about tests, factories or the fake data they make."""

from __future__ import annotations

from pathlib import Path

from helpers import write
from ragloom.config.tables import RetrievalConfig
from ragloom.retrieval.priors import reweigh
from ragloom.retrieval.query_priors import query_priors
from ragloom.retrieval.test_prior import prior_for_factories
from ragloom.types import RetrieverHit, SearchResult


def _result(doc_id: str, path: str, score: float, name: bool = False) -> SearchResult:
    result = SearchResult(doc_id, "", {"path": path, "source_type": "code"}, 0.5, 0.5, rank_score=score)
    if name:
        result.retrievers["name"] = RetrieverHit(1, 1.0)
    return result


def _candidates() -> list[SearchResult]:
    return [_result("laravel", "database/factories/InvoiceFactory.php", 0.9),
            _result("django", "core/tests/factories.py", 0.85),
            _result("model", "app/Models/Invoice.php", 0.5),
            _result("seeder", "database/seeders/DemoSeeder.php", 0.45),
            _result("named", "database/factories/CustomerFactory.php", 0.8, name=True)]


def test_factories_go_down_like_tests() -> None:
    order = reweigh(_candidates(), prior_for_factories("how are invoice numbers built", 0.2))
    # named keeps 0.8; model 0.5; seeder 0.45; laravel 0.18; django 0.17
    assert [r.id for r in order] == ["named", "model", "seeder", "laravel", "django"]


def test_questions_about_factories_or_fake_data_keep_them() -> None:
    for query in ("which factory makes invoices", "where does the demo data come from",
                  "how is the database seeded with fake customers"):
        assert prior_for_factories(query, 0.2) == []


def test_query_priors_weigh_factories_unless_the_query_is_about_tests() -> None:
    settings = RetrievalConfig()
    about_code = reweigh(_candidates(), query_priors("how are invoice numbers built", settings))
    assert [r.id for r in about_code][:2] == ["named", "model"]
    about_tests = reweigh(_candidates(), query_priors("which test builds invoices", settings))
    assert [r.id for r in about_tests] == [r.id for r in _candidates()]  # no prior: as ranked


def test_engine_ranks_the_code_above_a_factory(make_engine, project: Path) -> None:
    write(project, "database/factories/InvoiceFactory.php",
          "<?php\nclass InvoiceFactory extends Factory\n{\n    public function definition()\n    {\n"
          "        // a fake invoice number: an invoice number prefix and an invoice number sequence\n"
          "        return ['invoice_number' => 'INV-'.$this->faker->randomNumber(6)];\n    }\n}\n")
    write(project, "app/Services/SerialNumbers.php",
          "<?php\nclass SerialNumbers\n{\n    public function nextNumber()\n    {\n"
          "        return $this->prefix.str_pad($this->sequence, 6, '0');\n    }\n}\n")
    for name in ("mailer", "player", "search", "upload"):
        write(project, f"lib/{name}.py", f"def {name}():\n    return None\n")
    engine = make_engine()
    engine.index_directory()
    first = engine.search("invoice number prefix and sequence", top_k=2, mode="sparse")[0]
    engine.close()
    assert first.metadata["path"] == "app/Services/SerialNumbers.php"
