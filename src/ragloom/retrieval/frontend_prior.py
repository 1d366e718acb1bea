"""A question about what the user sees and does goes to the application's front end.

"Template for the running timer with buttons to log a feeding", "page shown after too
many failed logins", "which currency is shown when none is set", "email text telling a
user their timer is still running": the answer is a template, a component or client-side
script, but the view, controller, mailable or docs page that serves or describes it shares
the question's words and often outranks it (the handler ``showOfflinePage`` above the
offline page's service worker; ``TimeEntryStillRunningMail.php`` above the mail's Blade
view).

So when a query uses a word of the user interface (``INTERFACE_WORDS``: the kind of
file it is made of, "template", "component", "html" (not the format something is turned
"into", rendered "to" or sent "as": "where is markdown turned into html" asks for the
renderer), "css", "javascript", "browser"; what the user does, "click", "press", "swipe";
what they read, "shown", "rendered", "label", "email text"), names no part of the
application (``path_prior``: "which url shows the welcome text" asks for a route) and does
not ask about tests, and some candidate is front end, every candidate that is not is
multiplied by ``FRONTEND_WEIGHT`` in the one prior sort (``priors.reweigh``).
Words naming a place in the interface ("page", "screen", "button", "modal") are not
among them: they locate a feature whose answer is as often on the server ("how are posts
ranked on the trending page": the feed query; "the default link button shape of a
profile": the user model), and with them the prior lowered such questions on the Pinkary
dev set while it raised two more frontend questions. Nor is "text" alone: "a post's
text" is the user's content, a model's field (Pinkary: the question model fell below the
post views); the text of an email, a notification, an error or a button is the interface's
own copy, in its template. Nor is "html" naming the application's data, an HTML file,
snapshot, export or copy it writes or keeps ("how is the archived copy made instead of an
html snapshot": linkding's settings templates above the code making it).
A docs page is weighed down too, unless the question asks for instructions ("how do I
override a view template": the developer docs saying how answer it).
Front end: templates and single-file components (the markup chunker's languages), client-side
script and styles (JavaScript, TypeScript, TSX, CSS and its dialects), and server-side
UI component classes (Livewire components, Blade component classes: their folders name
them), and code of any language under a folder named for the front end (``frontend/``,
``web-front/``, a Rust workspace's ``app-front`` crate compiled to WebAssembly: its
``editor.rs`` is the browser's code). Tests are never front end here (an ``e2e/`` spec is
TypeScript). A Rust user interface is as often a crate named for nothing (``app/``,
``web/``), so Rust code is front end by what its file uses too (``interface`` metadata,
``chunking.interface_code``: Yew, Leptos, Dioxus, ``web_sys``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ragloom.chunking.markup.syntax import SYNTAXES
from ragloom.retrieval.path_prior import factor_outside, parts_named
from ragloom.retrieval.priors import Factor
from ragloom.retrieval.test_prior import asks_about_tests
from ragloom.types import SearchResult

#: How much the rank score of a candidate outside the front end counts.
FRONTEND_WEIGHT = 0.5

#: Words of a query about the user interface (whole words, any case).
INTERFACE_WORDS = re.compile(
    r"\b(templates?|components?|(?<!into\s)(?<!to\s)(?<!as\s)html(?!\s+(?:files?|snapshots?|exports?|"
    r"documents?|cop(?:y|ies)|dumps?|archives?)\b)|css|stylesheets?|javascript|js|front[- ]?end|ui|browsers?|"
    r"click(s|ed|ing)?|press(es|ed|ing)?|taps?|swip(e|es|ed|ing)|scroll(s|ed|ing)?|hover|"
    r"drag(s|ged|ging)?|shown|display(s|ed)?|rendered(?!\s+(?:to|into|as)\b)|wording|labels?|"
    r"(e-?mail|mail|notification|message|error|button|link|placeholder|tooltip|banner|welcome|help)"
    r"\s+texts?)\b",
    re.IGNORECASE)

#: A question asking for instructions ("how do I override a view template"): a docs page
#: giving them is as much an answer as the template.
_HOW_TO = re.compile(r"^\W*how\s+(?:do|can|should|would)\s+(?:i|we|you)\b", re.IGNORECASE)

#: Languages of the front end besides the templates and components.
CLIENT_LANGUAGES = frozenset({"javascript", "typescript", "tsx", "css", "scss", "sass", "less"})
#: Folders of server-side UI components (``app/Livewire/``, ``app/View/Components/``).
_COMPONENT_FOLDERS = re.compile(r"(^|/)(livewire|view/components)/", re.IGNORECASE)
#: A folder named for the front end: ``frontend/``, ``front-end/``, ``web_front/``,
#: ``app-front/`` (a word of the folder's name, not of the file's; a PHP "front
#: controller" is the server's entry point).
_FRONT_END_FOLDER = re.compile(r"(?:^|[/_.-])front(?:[-_]?end)?(?![-_.]?controller)(?:[_.-][^/]*)?/",
                               re.IGNORECASE)


def asks_about_the_interface(query: str) -> bool:
    """Whether ``query`` uses a word of the user interface (``INTERFACE_WORDS``)."""
    return INTERFACE_WORDS.search(query) is not None


def is_front_end(result: SearchResult) -> bool:
    """Whether a candidate is a template, a component or client-side script or style, or
    code in a folder named for the front end."""
    metadata = result.metadata
    if metadata.get("source_type") == "test":
        return False
    language = str(metadata.get("language") or "")
    if language in SYNTAXES or language in CLIENT_LANGUAGES:
        return True
    path = str(metadata.get("path") or "").replace("\\", "/")
    if metadata.get("interface"):
        return True
    return _COMPONENT_FOLDERS.search(path) is not None or _FRONT_END_FOLDER.search(path) is not None


def prior_for_front_end(query: str, candidates: Sequence[SearchResult],
                        weight: float | None = None) -> list[Factor]:
    """A factor weighing candidates outside the front end by ``weight`` (default
    ``FRONTEND_WEIGHT``) when ``query`` is about the interface and names no part of the
    application; none otherwise, or when no candidate is front end."""
    if not asks_about_the_interface(query) or parts_named(query) or asks_about_tests(query):
        return []
    inside = {result.id for result in candidates if is_front_end(result)}
    if not inside:
        return []
    if _HOW_TO.search(query):  # instructions: the project's docs say how
        inside |= {result.id for result in candidates if result.metadata.get("source_type") == "docs"}
    return [factor_outside(inside, FRONTEND_WEIGHT if weight is None else weight)]
