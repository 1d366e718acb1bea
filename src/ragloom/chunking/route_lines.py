"""Route registrations read in words: what the embedder and BM25 read of a line that
registers a route.

An application's route table is a list of calls whose text is punctuation, a path literal
and a handler's identifier: ``mux.HandleFunc("POST /entry/share/{entryID}",
handler.createSharedEntry)``, ``Route::get('/profile', [ProfileController::class,
'edit'])``, ``router.post("/login", authController.login)``, ``#[get("/<host>/icon.png")]``
above ``fn icon_external``. A developer asks for "the routes for sharing an entry"; the
embedding of the raw call matches that poorly (the call's tokens, repeated on every line,
outweigh the few words that differ), and BM25 never sees the word "route". So in the
indexed text (``context.indexed_text``; the stored text stays the file's exact slice)
each registration line becomes ``route POST /entry/share/{entryID} create shared entry``:
the word ``route``, the HTTP verb, the path, and the handler's name split into words. On
miniflux's share routes the cosine to "routes for sharing an article publicly" went from
0.20 to 0.44 (docs/benchmarks.md).

The forms are the frameworks' own, one pattern each (a literal path, and for a method
call a handler after it, as ``retrieval.part_content`` asks): Go's net/http, chi, gin,
echo and fiber; Express, Koa, Fastify and Hono routers; Laravel's ``Route::``; Django's
``path()`` / ``re_path()``; axum's ``.route("/x", get(handler))``; and attributes or
decorators above the handler (Rocket, actix, Flask, FastAPI), whose handler is the name of
the ``fn`` / ``def`` on the next lines (for yew_router's ``#[at("/users")]``, the route
enum's variant on the next line: a front end's page). An axum or actix builder is read over
line ends (``BUILDER``): rustfmt writes a long registration as ``.route(`` / the path / the method
router on lines of their own (``routing::post(handler::users::inbox::post)``, verbs chained
as ``get(show).post(update)``), and the chunker keeps such a call whole
(``treesitter.tables.OPENED_CALL``). On Kitsune's router (docs/benchmarks.md) route
nDCG@10 went from 0.396 to 0.430.
"""

from __future__ import annotations

import re

#: HTTP verbs a registration's method name may carry (``Get``, ``post``, ``GET``).
_VERBS = r"get|post|put|patch|delete|head|options|any|all|match"

#: A handler passed last (middleware before it): ``auth, controller.show)``, or the call
#: making it (``api.NewHandler(store)``); optional, so an inline closure still leaves the
#: verb and path.
_LAST_ARGUMENT = r"(?:(?:[\w.]+\s*,\s*)*(?P<handler>[\w.]+)\s*[()])?"

#: axum / actix builders: ``.route("/x", get(handler))``, ``routing::post(handler::x::post)``,
#: actix's ``web::get().to(handler)``; rustfmt writes a long one over several lines
#: (``.route(`` / the path / the verb and handler), so this form is read over line ends.
BUILDER = (rf"\.(?:route|nest|nest_service|route_service)\(\s*\"(?P<path>/[^\"\n]*)\"\s*,\s*"
           rf"(?:(?:\w+::)*(?P<verb>{_VERBS})\(\s*(?:\)\s*\.to\(\s*)?)?(?P<handler>[\w:]+)"
           rf"(?P<chain>(?:\s*\)\s*\.(?:{_VERBS})\(\s*[\w:]+)*)")
#: A further verb chained on a builder's method router: ``get(show).post(update)``.
_CHAINED = re.compile(rf"\.(?P<verb>{_VERBS})\(\s*(?P<handler>[\w:]+)")
#: A nested router's maker, which names no handler: ``.nest("/oauth", Router::new()``.
_ROUTER_MAKER = re.compile(r"(?:\w+::)*(?:Router|Scope)::new$|(?:web::)?scope$")

#: One pattern per form (besides ``BUILDER``); groups: ``verb`` (the call's method, or the verb in the path
#: literal), ``path``, ``handler`` (may be absent), ``attribute`` for the forms whose
#: handler is the next definition.
_FORMS = [
    # Go: mux.HandleFunc("GET /x/{id}", h.show), r.Get("/x", h.show), e.POST("/x", h.show)
    rf"\w*\.(?P<verb>HandleFunc|Handle|(?i:{_VERBS})|Group|Route|Mount)\(\s*\"(?:(?P<pathverb>[A-Z]+) )?"
    rf"(?P<path>/[^\"\n]*)\"\s*,\s*{_LAST_ARGUMENT}",
    # Express / Koa / Fastify / Hono: router.get('/x', auth, controller.show)
    rf"\b(?:app|router|server|routes|\w+Router|\w+_router)\.(?P<verb>{_VERBS}|use|route)\("
    rf"\s*['\"`](?P<path>/[^'\"`\n]*)['\"`]\s*,\s*{_LAST_ARGUMENT}",
    # Laravel: Route::get('/x', [XController::class, 'show']) / (XController::class) / ('x.y')
    rf"\bRoute::(?P<verb>{_VERBS}|resource|apiResource|view|redirect|livewire)\(\s*['\"]"
    r"(?P<path>[^'\"\n]*)['\"]\s*,\s*\[?\s*"
    r"(?P<handler>\w+(?:::class(?:\s*,\s*['\"]\w+['\"]\s*\]?)?)?)",
    # Django: path("x/<int:pk>/", views.show, name="x"), re_path(r"^x/$", XView.as_view())
    r"\b(?:re_)?path\(\s*r?['\"](?P<path>[^'\"\n]*)['\"]\s*,\s*(?P<handler>[\w.]+)",
    # Rocket / actix attributes, Flask / FastAPI decorators: the handler is defined below;
    # yew_router's #[at("/users")] above the variant of a front end's route enum
    rf"(?:#\[|@\w+\.)(?P<verb>{_VERBS}|route|api_route|at)\(\s*r?['\"](?P<path>/[^'\"\n]*)['\"]"
    r"(?P<attribute>)",
]
_REGISTRATIONS = [re.compile(form) for form in _FORMS]
_BUILDERS = re.compile(BUILDER)
#: A definition's name on the lines under an attribute (Rust ``fn``, Python ``def``).
_DEFINITION = re.compile(r"^\s*(?:pub(?:\([\w ]+\))?\s+)?(?:async\s+)?(?:fn|def)\s+(\w+)")
#: How many lines below an attribute its handler may be defined (other attributes between).
_ATTRIBUTE_REACH = 4
#: Words of an identifier: ``createSharedEntry`` -> create, shared, entry.
_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
#: Calls that name no verb: ``HandleFunc``, ``Route``, Laravel's ``resource`` ...
_NOT_VERBS = frozenset({"handlefunc", "handle", "group", "route", "mount", "use", "any", "all",
                        "match", "api_route", "at"})
#: The variant under a route enum's attribute (``Login,``, ``UserDetails { user_id: String },``).
_VARIANT = re.compile(r"^\s*([A-Z]\w*)\s*(?:[,{(]|$)")
#: Parts of a handler reference that name no action.
_NOT_NAMES = frozenset({"class", "as_view", "handler", "h"})


def readable_routes(text: str) -> str:
    """``text`` with every route registration line in words (module doc); ``text`` itself
    when it registers none."""
    text = _BUILDERS.sub(_builder_words, text)
    forms = [form for form in _REGISTRATIONS if form.search(text)]
    if not forms:
        return text
    lines = text.split("\n")
    for number, line in enumerate(lines):
        match = next((m for m in map(lambda form: form.search(line), forms) if m), None)
        if match is None:
            continue
        groups = {k: v for k, v in match.groupdict().items() if v is not None}
        handler = groups.get("handler")
        if "attribute" in groups:
            handler = _defined_below(lines, number, groups.get("verb") == "at")
        words = ["route", _verb(groups), groups["path"], *_handler_words(handler)]
        rest = line[match.end():]
        space = " " if rest and not rest[0].isspace() and rest[0] not in ")];," else ""
        lines[number] = line[:match.start()] + " ".join(w for w in words if w) + space + rest
    return "\n".join(lines)


def _builder_words(match: re.Match[str]) -> str:
    """A builder registration (``BUILDER``, over line ends) in words, with every verb and
    handler chained after the first (``get(show).post(update)``)."""
    groups = {k: v for k, v in match.groupdict().items() if v is not None}
    handler = groups.get("handler")
    words = ["route", _verb(groups), groups["path"],
             *([] if handler is None or _ROUTER_MAKER.match(handler) else _handler_words(handler))]
    for chained in _CHAINED.finditer(groups.get("chain", "")):
        words += [chained["verb"].upper(), *_handler_words(chained["handler"])]
    glued = match.start() > 0 and match.string[match.start() - 1].isalnum()  # router.route(
    return (" " if glued else "") + " ".join(w for w in words if w)


def _verb(groups: dict[str, str]) -> str:
    verb = groups.get("pathverb") or groups.get("verb") or ""
    return "" if verb.lower() in _NOT_VERBS else verb.upper()


def _defined_below(lines: list[str], number: int, variant: bool = False) -> str | None:
    """The handler defined under the attribute on line ``number``: a ``fn`` / ``def``, or
    for a route enum's attribute (``variant``) the variant on the next line."""
    if variant:
        found = _VARIANT.match(lines[number + 1]) if number + 1 < len(lines) else None
        return found.group(1) if found else None
    for line in lines[number + 1:number + 1 + _ATTRIBUTE_REACH]:
        found = _DEFINITION.match(line)
        if found:
            return found.group(1)
    return None


def _handler_words(handler: str | None) -> list[str]:
    """The handler's name split into lowercase words: its last two dotted or ``::`` parts
    (``handler.createSharedEntry`` -> create shared entry; ``views.child_detail`` -> views
    child detail; ``UserController::class, 'show'`` -> user controller show)."""
    if not handler:
        return []
    parts = [p for p in re.split(r"\W+", handler) if p and p not in _NOT_NAMES]
    return [word.lower() for part in parts[-2:] for word in _WORD.findall(part)]
