"""A question about what the user sees or does ranks the application's front end
(templates, components, client-side script and styles) above comparable matches in the
server code and docs, unless it names a part of the application or asks about tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import first_path_per_weight
from ragloom.retrieval import frontend_prior
from ragloom.retrieval.frontend_prior import asks_about_the_interface, is_front_end, prior_for_front_end
from ragloom.retrieval.priors import reweigh
from ragloom.types import SearchResult


@pytest.mark.parametrize(("query", "asks"), [
    ("template for the running timer with buttons", True),
    ("page shown after too many failed login attempts", True),
    ("how are posts ranked on the trending page", False),  # a place in the interface, not its kind
    ("default link button shape of a profile", False),
    ("which currency is shown when the organization has none set", True),
    ("email text telling a user their timer is still running", True),
    ("what happens when a visitor clicks the like button", True),
    ("how does swiping left move between articles", True),
    ("dark theme switch in the browser", True),
    ("how does full-text search rank posts", False),
    ("how is a post's text cleaned up before it is shared", False),  # the user's content
    ("error text shown when the upload is too big", True),
    ("how is the next refresh time of a feed computed", False),
    ("which templating engine renders emails", False),  # whole words only
    ("where is the html of the login form", True),
    ("the dropdown that offers html, pdf and markdown downloads", True),
    # HTML as the application's data: a file it writes, a copy of a page it keeps
    ("how is the archived copy made instead of an html snapshot", False),
    ("which page lets me download my bookmarks as an html file", False),
    ("where is markdown turned into html", False),  # a format, made on the server
    ("how are posts rendered to html", False),
    ("html of the profile header", True),
    ("how is a single comment and its replies rendered", True),  # as "shown", "displayed"
    ("which function renders the feed", False),  # a function doing it: no interface word
])
def test_asks_about_the_interface(query: str, asks: bool) -> None:
    assert asks_about_the_interface(query) is asks


def _result(doc_id: str, path: str, language: str, score: float, source_type: str = "code") -> SearchResult:
    metadata = {"path": path, "language": language, "source_type": source_type}
    return SearchResult(doc_id, "", metadata, 0.5, 0.5, rank_score=score)


def test_front_end_is_templates_components_client_code_and_ui_component_classes() -> None:
    cases = [
        ("resources/views/emails/reminder.blade.php", "blade", "code"),
        ("resources/js/Components/Timer.vue", "vue", "code"),
        ("core/templates/core/timer_detail.html", "django-template", "code"),
        ("internal/ui/static/js/app.js", "javascript", "code"),
        ("internal/ui/static/css/common.css", "css", "text"),
        ("app/Livewire/Questions/Create.php", "php", "code"),
        ("app/View/Components/Avatar.php", "php", "code"),
        ("blog-front/src/editor.rs", "rust", "code"),  # a front end compiled to wasm
        ("frontend/src/app.rs", "rust", "code"),
        ("app/Mail/ReminderMail.php", "php", "code"),
        ("docs/timers.md", "markdown", "docs"),
        ("e2e/timer.spec.ts", "typescript", "test"),
        ("src/storefront/cart.rs", "rust", "code"),
        ("app/front_controller/index.php", "php", "code"),
        ("src/frontend.rs", "rust", "code"),  # a file's name is not a folder
    ]
    assert [is_front_end(_result(str(i), path, language, 0.5, kind))
            for i, (path, language, kind) in enumerate(cases)] == [True] * 9 + [False] * 6


def test_candidates_outside_the_front_end_are_weighed_down() -> None:
    results = [_result("mail", "app/Mail/StillRunningMail.php", "php", 0.9),
               _result("docs", "docs/timers.md", "markdown", 0.7),
               _result("view", "resources/views/emails/still-running.blade.php", "blade", 0.6),
               _result("spec", "e2e/timer.spec.ts", "typescript", 0.5, "test")]
    factors = prior_for_front_end("email text telling a user their timer runs", results, weight=0.5)
    # 0.6 (front end); 0.9 * 0.5 = 0.45; 0.7 * 0.5 = 0.35; 0.5 * 0.5 = 0.25
    assert [r.id for r in reweigh(results, factors)] == ["view", "mail", "docs", "spec"]
    results[0].rank_score = 1.3  # a much better match elsewhere still comes first
    assert [r.id for r in reweigh(results, factors)][:2] == ["mail", "view"]


def test_a_docs_page_giving_instructions_is_not_weighed_down() -> None:
    results = [_result("mail", "app/Mail/StillRunningMail.php", "php", 0.9),
               _result("docs", "dev/docs/themes.md", "markdown", 0.7, "docs"),
               _result("view", "resources/views/emails/still-running.blade.php", "blade", 0.6)]
    # "how do I ...": the docs page stays 0.7 above the template, the mail class 0.45
    factors = prior_for_front_end("how do I override the email template", results, weight=0.5)
    assert [r.id for r in reweigh(results, factors)] == ["docs", "view", "mail"]
    factors = prior_for_front_end("where is the email template", results, weight=0.5)
    assert [r.id for r in reweigh(results, factors)] == ["view", "mail", "docs"]


def test_no_prior_for_a_named_part_tests_other_questions_or_no_front_end() -> None:
    results = [_result("urls", "core/urls.py", "python", 0.9),
               _result("page", "core/templates/calendar.html", "django-template", 0.8)]
    assert len(prior_for_front_end("where is the calendar label", results)) == 1
    assert prior_for_front_end("which url shows the calendar label", results) == []  # a route
    assert prior_for_front_end("which tests click the start button", results) == []
    assert prior_for_front_end("how is the calendar computed", results) == []
    assert prior_for_front_end("where is the calendar label", results[:1]) == []  # no front end


def test_engine_answers_an_interface_question_with_the_template(make_engine, project: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    files = {"app/Mail/ReminderMail.php": "<?php\nclass ReminderMail extends Mailable\n{\n"
             "    // the reminder email a user gets: reminder email text, reminder email\n"
             "    public function build() { return $this->markdown('emails.reminder'); }\n}\n",
             "resources/views/emails/reminder.blade.php":
             "@component('mail::message')\nYour timer is still running: the reminder email.\n"
             "@endcomponent\n"}
    assert first_path_per_weight(make_engine, project, files, monkeypatch, frontend_prior,
                                 "FRONTEND_WEIGHT", "reminder email text", (1.0, 0.5)) == [
        "app/Mail/ReminderMail.php", "resources/views/emails/reminder.blade.php"]


def test_a_rust_user_interface_is_front_end_wherever_its_crate_lives() -> None:
    web = _result("web", "app/src/infra/api.rs", "rust", 0.5)
    web.metadata["interface"] = "web"  # the file uses yew (chunking.interface_code)
    server = _result("server", "server/src/auth_service.rs", "rust", 0.9)
    assert (is_front_end(web), is_front_end(server)) == (True, False)
    factors = prior_for_front_end("how does the front end send requests to the backend", [server, web])
    assert [r.id for r in reweigh([server, web], factors)] == ["web", "server"]

