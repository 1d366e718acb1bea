"""Data rows (CSV, TSV, JSON lines) rank below comparable code and documents unless the
question is about data."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import first_path_per_weight, write
from ragloom.filters import MATCHES_NOTHING
from ragloom.retrieval import data_prior
from ragloom.retrieval.data_prior import asks_about_data, prior_for_data, thin_data_rows, without_data
from ragloom.retrieval.priors import reweigh
from ragloom.retrieval.retrievers import Hit
from ragloom.types import SearchResult


def _result(doc_id: str, source_type: str, score: float, by_name: bool = False) -> SearchResult:
    retrievers = {"name": {"rank": 1}} if by_name else {}
    return SearchResult(doc_id, "", {"path": f"{doc_id}.x", "source_type": source_type}, 0.5, 0.5,
                        retrievers, rank_score=score)


@pytest.mark.parametrize(("query", "about"), [
    ("which columns does the import CSV have", True),
    ("how are the rows of the percentile table read", True),
    ("where does the sample data come from", True),
    ("how is the hourly rate of a time entry chosen", False),
    ("how is the database migrated", False),  # whole words only
    ("which rowing club", False),
])
def test_asks_about_data(query: str, about: bool) -> None:
    assert asks_about_data(query) is about


def test_data_rows_go_below_comparable_code() -> None:
    results = [_result("row", "data", 0.9), _result("service", "code", 0.6),
               _result("named", "data", 0.8, by_name=True), _result("readme", "docs", 0.3)]
    factors = prior_for_data("how is the hourly rate chosen")
    # 0.8 (found by name, never demoted); 0.6; 0.9 * 0.5 = 0.45; 0.3
    assert [r.id for r in reweigh(results, factors)] == ["named", "service", "row", "readme"]
    assert prior_for_data("which csv rows hold the hourly rates") == []


def test_engine_answers_a_behaviour_question_with_code_before_rows(
        make_engine, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = {"imports/rates.csv": "project,member,rate\nhourly rate chosen,hourly,rate\n",
             "app/billing.py": "def rate_for(entry):\n"
             "    # how the hourly rate is chosen: the member's, else the project's\n"
             "    return entry.member.rate or entry.project.rate\n"}
    assert first_path_per_weight(make_engine, project, files, monkeypatch, data_prior, "DATA_WEIGHT",
                                 "how is the hourly rate chosen", (1.0, 0.5)) == [
        "imports/rates.csv", "app/billing.py"]


def _hit(doc_id: str, path: str, source_type: str, score: float) -> Hit:
    return Hit(doc_id, score, SearchResult(doc_id, "", {"path": path, "source_type": source_type},
                                           score, 1 - score))


def test_a_big_table_keeps_a_few_rows_among_the_candidates() -> None:
    rows = [_hit(f"boys{i}", "migrations/boys.csv", "data", 0.9 - i / 100) for i in range(5)]
    rows += [_hit("girls0", "migrations/girls.csv", "data", 0.8)]
    hits = sorted(rows, key=lambda h: -h.score)
    others = [_hit("loader", "migrations/0030_fill.py", "migration", 0.39),
              _hit("view", "app/views.py", "code", 0.38), _hit("far", "app/far.py", "code", 0.1)]
    asked = []

    def without_data() -> list[Hit]:
        asked.append(True)
        return others

    thinned = thin_data_rows(hits, 6, without_data)
    # three rows of boys.csv (DATA_ROWS_PER_FILE), girls.csv's one, then the best others
    assert [h.id for h in thinned] == ["boys0", "boys1", "boys2", "girls0", "loader", "view"]
    assert asked == [True]
    few = hits[:3] + [others[1]]
    assert thin_data_rows(few, 6, without_data) is few and asked == [True]  # nothing to thin


def test_without_data_keeps_the_query_filters() -> None:
    assert without_data(None) == {"source_type": {"$ne": "data"}}
    assert without_data({"language": "python"}) == {
        "$and": [{"language": "python"}, {"source_type": {"$ne": "data"}}]}
    assert without_data(MATCHES_NOTHING) is MATCHES_NOTHING


def test_engine_finds_the_loader_of_a_table_whose_rows_fill_the_candidates(make_engine,
                                                                           project: Path) -> None:
    rows = "".join(f"weight percentile table {i},{i}.5,{i}.7\n" for i in range(400))
    write(project, "core/migrations/weight_percentile.csv", "age,p3,p50\n" + rows)
    write(project, "core/migrations/0030_weight.py",
          "def fill(apps, editor):\n    # fill the weight percentile table from the csv\n"
          "    load('core/migrations/weight_percentile.csv')\n")
    engine = make_engine(retrieval={"candidate_k": 20})
    engine.index_directory()
    paths = [r.metadata["path"] for r in engine.search("how is the weight percentile table filled",
                                                       top_k=5, mode="dense")]
    assert "core/migrations/0030_weight.py" in paths
    asked = [r.metadata["path"] for r in engine.search("which csv rows hold the weight percentile",
                                                       top_k=5, mode="dense")]
    assert asked == ["core/migrations/weight_percentile.csv"] * len(asked)  # about data: rows only
    # rows the caller filtered for are all kept: five of one file, not three
    filtered = engine.search("how is the weight percentile table filled", top_k=5, mode="dense",
                             filters={"source_type": "data"})
    assert [r.metadata["path"] for r in filtered] == ["core/migrations/weight_percentile.csv"] * 5
