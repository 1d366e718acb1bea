"""A question about an entity of an application ranks the entity's model above the code
that only uses it, unless the question names another part of the application."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import first_path_per_weight
from ragloom.retrieval import model_prior
from ragloom.retrieval.model_prior import entity_names, prior_for_models, query_words
from ragloom.retrieval.priors import reweigh
from ragloom.types import SearchResult


def _result(doc_id: str, path: str, score: float, symbol: str = "",
            source_type: str = "code") -> SearchResult:
    metadata = {"path": path, "source_type": source_type, **({"symbol": symbol} if symbol else {})}
    return SearchResult(doc_id, "", metadata, 0.5, 0.5, rank_score=score)


def test_query_words_add_singulars() -> None:
    assert query_words("What statuses can Entries have?") == {
        "what", "statuses", "statuse", "status", "can", "entries", "entry", "have"}
    assert query_words("its roles, class") == {"its", "roles", "role", "class"}


def test_entity_names_come_from_model_files_and_their_classes() -> None:
    assert entity_names(_result("a", "internal/model/entry.go", 1, "Entry.Valid")) == {"entry"}
    assert entity_names(_result("b", "core/models.py", 1, "Child.save")) == {"child"}
    assert entity_names(_result("c", "app/Models/Report.php", 1,
                                "App\\Models\\Report::scopeShared")) == {"report"}
    assert entity_names(_result("d", "core/views.py", 1, "ChildList")) == set()
    assert entity_names(_result("e", "tests/models/test_child.py", 1, "test_slug",
                                source_type="test")) == set()


def test_the_named_entitys_model_goes_up() -> None:
    results = [_result("view", "core/views.py", 0.9, "ChildUpdate"),
               _result("child", "core/models.py", 0.8, "Child.save"),
               _result("sleep", "core/models.py", 0.7, "Sleep.save"),
               _result("form", "core/forms.py", 0.5, "ChildForm")]
    factors = prior_for_models("how is the slug of a child generated", results, weight=0.7)
    # 0.8 (the child's model); 0.9 * 0.7 = 0.63; 0.7 * 0.7 = 0.49; 0.5 * 0.7 = 0.35
    assert [r.id for r in reweigh(results, factors)] == ["child", "view", "sleep", "form"]
    # much the better match elsewhere still comes first: 0.9 * 0.7 = 0.63 > 0.6
    results[1].rank_score = 0.6
    assert [r.id for r in reweigh(results, factors)][:2] == ["view", "child"]


def test_no_prior_when_another_part_is_named_or_no_model_is() -> None:
    results = [_result("view", "core/views.py", 0.9, "ChildUpdate"),
               _result("child", "core/models.py", 0.8, "Child.save"),
               _result("urls", "core/urls.py", 0.7),
               _result("migration", "core/migrations/0014_alter_child_slug.py", 0.6, "Migration")]
    assert prior_for_models("which migration added the child slug", results) == []
    assert prior_for_models("which url lists every child", results) == []
    assert prior_for_models("how is a timer stopped", results) == []


def test_a_part_no_candidate_lives_in_leaves_the_model_prior_on() -> None:
    results = [_result("page", "resources/js/Pages/ChildSettings.vue", 0.9),
               _result("child", "app/Models/Child.php", 0.8, "App\\Models\\Child")]
    results[0].metadata["language"] = "vue"  # a settings page: not where settings live
    factors = prior_for_models("which child settings are stored as booleans", results, weight=0.7)
    assert [r.id for r in reweigh(results, factors)] == ["child", "page"]  # 0.8; 0.9 * 0.7 = 0.63


def test_engine_answers_an_entity_question_with_its_model(make_engine, project: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    files = {"core/models.py": "class Child(models.Model):\n"
             "    name = models.CharField(max_length=255)\n\n"
             "    def save(self, *args, **kwargs):\n        self.slug = slugify(self.name)  # generated\n"
             "        super().save(*args, **kwargs)\n",
             "core/views.py": "class ChildDetail(DetailView):\n"
             "    # the page of a child, by the slug of the child\n"
             "    model = Child\n    slug_field = 'slug'\n"}
    assert first_path_per_weight(make_engine, project, files, monkeypatch, model_prior, "MODEL_WEIGHT",
                                 "how is the slug of a child generated", (1.0, 0.7)) == [
        "core/views.py", "core/models.py"]


def test_an_orm_entity_module_is_named_by_its_file_not_its_boilerplate_types() -> None:
    # SeaORM declares Model, Entity, Column, Relation in every entity's module
    tokens = _result("tokens", "crates/domain-model/src/model/password_reset_tokens.rs", 0.4, "Model")
    users = _result("users", "crates/domain-model/src/model/users.rs", 0.5, "Column::def")
    assert entity_names(tokens) == {"password_reset_tokens"} and entity_names(users) == {"users"}
    handler = _result("handler", "server/src/auth_service.rs", 0.9, "get_password_reset_step2")
    assert prior_for_models("which column sorts the list", [handler, tokens, users], weight=0.7) == []
    factors = prior_for_models("which column sorts the users", [handler, tokens, users], weight=0.7)
    # 0.5 (the users' entity); 0.9 * 0.7 = 0.63 first still; 0.4 * 0.7 = 0.28
    assert [r.id for r in reweigh([handler, tokens, users], factors)] == ["handler", "users", "tokens"]
