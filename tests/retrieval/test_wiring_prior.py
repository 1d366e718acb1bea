"""A question about how something works ranks the code doing it above the route files,
URL confs and settings wiring it and the templates and components showing it, unless it
names routes or settings (or, for templates and components, the user interface) or asks
for a value."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import write
from ragloom.retrieval.priors import reweigh
from ragloom.retrieval.wiring_prior import asks_how_it_works, is_wiring, prior_for_wiring
from ragloom.types import SearchResult


@pytest.mark.parametrize(("query", "asks"), [
    ("how does the recycle bin get rid of old items by itself", True),
    ("when a page is saved, how are revisions over the limit removed", True),
    ("how is the client's real IP address found behind a reverse proxy", True),
    ("what happens when a webhook call fails", True),
    ("why are password rules looser on my local machine", True),
    ("How Did the importer treat duplicate rows", True),
    ("how do I give users roles based on their LDAP groups", False),  # instructions
    ("how do we raise the upload limit", False),
    ("how many old versions of a page are kept", False),  # a value
    ("how long do deleted books stay in the recycle bin", False),
    ("where are the recycle bin pages", False),
    ("somehow the widget is slow", False),  # whole words only
])
def test_asks_how_it_works(query: str, asks: bool) -> None:
    assert asks_how_it_works(query) is asks


def _result(doc_id: str, path: str, score: float, language: str = "php", source_type: str = "code",
            retrievers: dict[str, dict[str, float]] | None = None) -> SearchResult:
    metadata = {"path": path, "language": language, "source_type": source_type}
    return SearchResult(doc_id, "", metadata, 0.5, 0.5, retrievers or {}, rank_score=score)


def test_wiring_is_route_files_url_confs_and_configuration() -> None:
    cases = [
        ("routes/api.php", "php", "code"),
        ("wger/core/urls.py", "python", "code"),
        ("internal/http/server/routes.go", "go", "code"),
        ("app/Config/queue.php", "php", "code"),
        ("settings/settings_global.py", "python", "code"),
        ("babybuddy/settings/base.py", "python", "code"),
        ("src/config.rs", "rust", "code"),
        (".env.example", "text", "text"),
        ("app/Entities/Tools/TrashCan.php", "php", "code"),
        ("app/Providers/AppServiceProvider.php", "php", "code"),  # boots behaviour, not wiring
        ("src/api/core/ciphers.rs", "rust", "code"),
        ("resources/views/settings/index.blade.php", "blade", "code"),  # a page, not a setting
        ("tests/config/ConfigTest.php", "php", "test"),
    ]
    assert [is_wiring(_result(str(i), path, 0.5, language, kind))
            for i, (path, language, kind) in enumerate(cases)] == [True] * 8 + [False] * 5


def test_wiring_goes_below_the_code_it_wires() -> None:
    results = [_result("route", "routes/api.php", 0.9),
               _result("config", "app/Config/app.php", 0.85),
               _result("code", "app/Entities/Tools/TrashCan.php", 0.8)]
    factors = prior_for_wiring("how does the recycle bin get rid of old items", 0.7)
    # 0.8; 0.9 * 0.7 = 0.63; 0.85 * 0.7 = 0.595
    assert [r.id for r in reweigh(results, factors)] == ["code", "route", "config"]
    results[0].rank_score = 1.2  # a much better match still comes first
    assert [r.id for r in reweigh(results, factors)] == ["route", "code", "config"]


def test_templates_and_components_go_below_the_code_unless_the_query_names_the_interface() -> None:
    results = [_result("form", "weight/templates/import_form.html", 0.9, "django-template"),
               _result("component", "resources/js/Import.vue", 0.85, "vue"),
               _result("code", "weight/helpers.py", 0.8, "python")]
    query = "what happens to rows whose date already has an entry when I import weights"
    # 0.8; 0.9 * 0.7 = 0.63; 0.85 * 0.7 = 0.595 (a component's page calls the code at work)
    assert [r.id for r in reweigh(results, prior_for_wiring(query, 0.7))] == ["code", "form", "component"]
    shown = "what happens to rows when I import weights, which message is shown"
    assert [r.id for r in reweigh(results, prior_for_wiring(shown, 0.7))] == ["form", "component", "code"]


def test_a_components_markup_goes_below_its_script_when_the_query_names_the_interface() -> None:
    markup = _result("markup", "resources/js/TimerButton.vue", 0.9, "vue")
    markup.metadata["section"] = "template"
    script = _result("script", "resources/js/TimerButton.vue", 0.8, "vue")
    script.metadata["section"] = "script"
    page = _result("page", "resources/views/timer.blade.php", 0.75, "blade")
    store = _result("store", "resources/js/useTimer.ts", 0.7, "typescript")
    results = [markup, script, page, store]
    query = "what happens in the browser when I press start on the timer"
    # 0.8; 0.75 (a server template keeps its score for an interface question); 0.7;
    # 0.9 * 0.7 = 0.63
    order = [r.id for r in reweigh(results, prior_for_wiring(query, 0.7))]
    assert order == ["script", "page", "store", "markup"]
    # no word of the interface: the whole component and the server template go down
    plain = "what happens when a timer is started"
    order = [r.id for r in reweigh(results, prior_for_wiring(plain, 0.7))]
    assert order == ["store", "markup", "script", "page"]


def test_a_chunk_found_by_the_exact_name_the_query_uses_is_not_weighed_down() -> None:
    named = _result("config", "src/config.rs", 0.9, "rust", retrievers={"name": {"rank": 1}})
    results = [named, _result("code", "src/auth.rs", 0.8, "rust")]
    factors = prior_for_wiring("how is ip_header read", 0.5)
    assert [r.id for r in reweigh(results, factors)] == ["config", "code"]


@pytest.mark.parametrize("query", [
    "how many old versions of a page are kept before the oldest are deleted",  # a value
    "how do I turn on registration",  # instructions
    "how is the recycle bin route registered",  # names routes
    "how is the retention setting read",  # names settings
    "why is the api endpoint throttled",  # names an endpoint
    "which code empties the recycle bin",  # not how something works
])
def test_no_prior_for_values_instructions_named_wiring_or_other_questions(query: str) -> None:
    assert prior_for_wiring(query, 0.7) == []


def test_weight_one_turns_the_prior_off() -> None:
    assert prior_for_wiring("how does the recycle bin get rid of old items", 1.0) == []


def test_engine_answers_a_how_question_with_the_code_not_the_route(make_engine, project: Path) -> None:
    write(project, "routes/api.php",
          "<?php\nRoute::delete('recycle-bin/purge', [BinController::class, 'destroy']);\n")
    write(project, "app/Tools/TrashCan.php",
          "<?php\nclass TrashCan\n{\n    // purge old items: the recycle bin keeps 30 days\n"
          "    public function autoClear(): int { return $this->destroyOlderThan(30); }\n}\n")
    for name in ("mailer", "player", "search", "upload"):
        write(project, f"lib/{name}.py", f"def {name}():\n    return None\n")
    question = "how does the recycle bin purge items"
    engine = make_engine()
    engine.index_directory()
    firsts = []
    for weight in (1.0, 0.7):  # the route's BM25 score is 1.36 times the code's
        engine.config.retrieval.wiring_weight = weight
        firsts.append(str(engine.search(question, top_k=2, mode="sparse")[0].metadata["path"]))
    assert firsts == ["routes/api.php", "app/Tools/TrashCan.php"]
