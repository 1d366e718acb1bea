"""Chunks that hold a part of an application by what they say, not where they are filed.

Route registrations often live in files not named for routes: a Go server's
``router.HandleFunc("/feeds", ...)`` list in ``ui.go`` / ``api.go``, a Rocket handler's
``#[get("/api/...")]`` attribute beside its function and the ``routes![...]`` it is mounted
with, axum's ``.route("/x", get(handler))``, Express's ``router.get("/x", ...)``, Flask's
``@app.route("/x")``, Django's ``path("x/", view)`` in a module not called ``urls``,
Laravel's ``Route::get`` in a service provider. The path prior (``path_prior``) counts such
a chunk inside the routes part when its text registers a route by one of the per-framework
patterns of ``ROUTE_PATTERNS``.

The patterns ask for what only a registration says: a framework's route call or attribute
with a literal path (``"/..."``; for a method call, a handler after it), so a client
fetching a URL (``axios.get("/api/x")``, ``http.Get("https://...")``) or a map lookup
(``cache.get("key")``) does not count. An axum or actix handler is registered in one
router file, far from its function, and carries no attribute as a Rocket handler does; it
says what it is by its parameters, the framework's request extractors
(``State(db): State<Pool>``, ``Json(body): Json<NewPost>``, ``path: web::Path<u32>``): an
endpoint question ("endpoint for uploading an image") wants that function, not the
service it calls. Only routes have content patterns: the migrations
of the application sets measured (docs/benchmarks.md) all sit under a path the migrations
part names already, so ``Schema::create`` / ``CREATE TABLE`` patterns changed nothing.
"""

from __future__ import annotations

import re

#: One alternative per framework family: a route literal, or a call only a router makes.
ROUTE_PATTERNS: dict[str, str] = {
    # Laravel: Route::get('/x', ...), Route::resource(...), Route::middleware(...)->group(...)
    "laravel": r"\bRoute::(?:get|post|put|patch|delete|options|any|match|resource|apiResource|"
               r"resources|apiResources|group|prefix|middleware|name|controller|view|redirect|"
               r"bind|domain|fallback|livewire)\s*\(",
    # Symfony attribute / annotation, Spring and ASP.NET attributes
    "attributes": r"(?:#\[|@)Route\(\s*['\"]/|@(?:Get|Post|Put|Patch|Delete|Request)Mapping\b|"
                  r"\[Http(?:Get|Post|Put|Patch|Delete)\b|\[Route\(\s*\"",
    # Rocket / actix attributes, Rocket's routes![...] and .mount(..."/api"...), axum / actix
    # builders
    "rust": r"#\[(?:get|post|put|patch|delete|head|options|route)\(\s*\"/|\broutes!\s*\[|"
            r"\.(?:route|nest|nest_service|route_service)\(\s*\"/|\bweb::(?:resource|scope)\(\s*\"|"
            r"\.mount\([^\n]*\"/",
    # axum handlers: an extractor destructured in a parameter, State(db): State<Pool>; actix
    # handlers: a parameter of web::Json<T> / web::Path<T> / web::Data<T>
    "rust handlers": r"\b(?:State|Path|Query|Json|Form|Extension|Multipart)\(\s*(?:mut\s+)?\w+\s*\)"
                     r"\s*:\s*(?:\w+::)*(?:State|Path|Query|Json|Form|Extension|Multipart)\b|"
                     r"\b\w+\s*:\s*web::(?:Json|Path|Query|Form|Data)\s*<",
    # Go: net/http, gorilla/mux, chi, gin, echo, fiber: a path literal ("GET /x" in Go 1.22)
    # and a handler after it (a client's .Get("/users") has none)
    "go": r"\.(?:HandleFunc|Handle|Get|Post|Put|Patch|Delete|GET|POST|PUT|PATCH|DELETE|Group|"
          r"Route|Mount|Any)\(\s*\"(?:[A-Z]+ )?/[^\"\n]*\"\s*,",
    # Express, Koa, Fastify, Hono: app.get('/x', handler), router.post("/x", ...) (a handler
    # after the path: Inertia's client-side router.get('/login') registers nothing; an
    # axios instance is often called api, so api.get('/x', config) does not count)
    "node": r"\b(?:app|router|server|routes|\w+Router|\w+_router)\."
            r"(?:get|post|put|patch|delete|all|use|route)\(\s*['\"`]/[^'\"`\n]*['\"`]\s*,",
    # Flask, FastAPI, Sanic, Bottle decorators: @app.route("/x"), @router.get("/x"); mounting a
    # blueprint or router
    "python": r"@\w+\.(?:route|get|post|put|patch|delete|api_route|websocket)\(\s*r?['\"]/|"
              r"\b(?:include_router|register_blueprint)\(",
    # Django url patterns and DRF routers (module-level lists, any module)
    "django": r"\burlpatterns\b|\bre_path\(\s*r?['\"]|"
              r"\bpath\(\s*r?['\"][^'\"\n]*['\"]\s*,\s*(?:include\(|views?\.|[\w.]+\.as_view\()|"
              r"\brouter\.register\(\s*r?['\"]",
    # Rails routes.rb: get "/x", to: ...; resources :posts; root "home#index"
    "rails": r"^\s*(?:(?:get|post|put|patch|delete|match)\s+['\"]/|resources?\s+:\w|root\s+(?:to:|['\"]))",
}
#: Per part of the application (``path_prior.PARTS``' names): what a chunk holding it says.
CONTENT: dict[str, re.Pattern[str]] = {
    "routes": re.compile("|".join(f"(?:{p})" for p in ROUTE_PATTERNS.values()), re.MULTILINE),
}


def holds_part(part: str, text: str) -> bool:
    """Whether ``text`` says what a chunk holding ``part`` says (``CONTENT``; always false
    for a part with no content patterns)."""
    pattern = CONTENT.get(part)
    return pattern is not None and pattern.search(text) is not None
