"""Routes, settings, server templates and components rank below the code doing the work
when a question asks how something works.

Route files, URL confs and configuration register or parametrise the code that does the
work, and repeat its nouns in a few dense lines (``Route::delete('recycle-bin/{id}', ...)``,
``'revision_limit' => 100``, ``IP_HEADER=X-Real-IP``); a server-side template shows what
that code did (an import form and its preview listing the rows), and so does a single-file
component (a settings page's form and the script filling it in, ``EstimatesTabExpiryDate.vue``
for "how do estimates get expired automatically"). For a question about how
something happens ("how does the recycle bin get rid of old items by itself", "how is the
client's real IP address found behind a reverse proxy", "what happens to rows whose date
already has an entry when I import") they often outrank the implementation, which is what
such a question asks for: a route or a setting says that it happens, a template what it
looks like, not how.

So when a query asks how something works (``asks_how_it_works``: "how does / is / are X
...", not "how do I ..."; "what happens ..."; "why ...") and names neither routes nor
settings (the path prior's ``routes`` and ``config`` parts: "url", "endpoint", "setting",
"env", "by default", ...), a wiring chunk (``is_wiring``) is multiplied by
``retrieval.wiring_weight`` in the priors' one sort (``priors.reweigh``), and so is a
server template (Blade, Django/Jinja, ERB, Twig, Handlebars, Go templates) or single-file
component (Vue, Svelte: markup and script) unless the query uses a word of the user
interface (``frontend_prior.asks_about_the_interface``: "click", "shown", "button", "UI",
"front end", ...): a question about the client's behaviour says where it looks. When it
does ("what happens in the browser when I press start on the timer"), a component's
markup (``section = "template"``) is still weighed: it shows what the script, or the
store it calls, does. A much better match still comes first. A question about a value
("how many versions are kept", "how long do deleted books stay", "how do I raise the upload
limit") is not about how something works: the setting is its answer, and it is left alone.
"""

from __future__ import annotations

import re

from ragloom.retrieval.frontend_prior import asks_about_the_interface
from ragloom.retrieval.path_prior import PRESENTATION, parts_named
from ragloom.retrieval.priors import Factor
from ragloom.types import SearchResult

#: "how does/do/did/is/are/was/were X" (not "how do I/we/you/one": instructions), "what
#: happens", "why".
_HOW_IT_WORKS = re.compile(r"\bhow\s+(?:does|do|did|is|are|was|were)\s+(?!(?:i|we|you|one)\b)|"
                           r"\bwhat\s+happens\b|\bwhy\b", re.IGNORECASE)
#: Languages of single-file components: their markup shows what the script does.
COMPONENTS = frozenset({"vue", "svelte"})
#: Folders holding only wiring: Laravel's ``routes/`` and ``config/``, Django's
#: ``settings/`` package, Go's ``internal/config/``.
WIRING_FOLDERS = frozenset({"routes", "config", "settings"})
#: File names (before the first dot, lowercase) of wiring: ``urls.py``, ``routes.go``,
#: ``router.ts``, ``config.rs``, ``settings.py``.
WIRING_STEMS = frozenset({"routes", "urls", "router", "config", "settings"})
#: Parts of the path prior whose words make a query about wiring.
_WIRING_PARTS = frozenset({"routes", "config"})


def asks_how_it_works(query: str) -> bool:
    """Whether ``query`` asks how something works or happens (not for instructions)."""
    return _HOW_IT_WORKS.search(query) is not None


def is_wiring(result: SearchResult) -> bool:
    """Whether a chunk is of a route file, URL conf or configuration: a folder of
    ``WIRING_FOLDERS``, a file stem of ``WIRING_STEMS``, or an environment file
    (``.env``, ``.env.example``); never a test, template or component."""
    meta = result.metadata
    path = str(meta.get("path") or "").replace("\\", "/").lower()
    if not path or meta.get("language") in PRESENTATION or meta.get("source_type") == "test":
        return False
    *folders, name = path.split("/")
    return name.startswith(".env") or name.split(".", 1)[0] in WIRING_STEMS \
        or not WIRING_FOLDERS.isdisjoint(folders)


def prior_for_wiring(query: str, weight: float) -> list[Factor]:
    """The prior as a factor: ``weight`` for a wiring chunk, for a server template or a
    component when the query uses no word of the user interface, and for a component's
    markup when it does, unless found by the exact name the query uses; else 1. None when
    ``query`` does not ask how something works or names routes or settings (or ``weight``
    is 1)."""
    if weight >= 1.0 or not asks_how_it_works(query) \
            or any(part.name in _WIRING_PARTS for part in parts_named(query)):
        return []
    interface = asks_about_the_interface(query)

    def factor(result: SearchResult) -> float:
        if "name" in result.retrievers:
            return 1.0
        language = result.metadata.get("language")
        shows = language in COMPONENTS and result.metadata.get("section") == "template" if interface \
            else language in PRESENTATION
        return weight if shows or is_wiring(result) else 1.0
    return [factor]
