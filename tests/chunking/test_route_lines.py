"""Route registrations in words in the indexed text: the word ``route``, the verb, the path
and the handler's name split, whatever the framework; other lines untouched."""

from __future__ import annotations

import pytest

from ragloom.chunking.context import indexed_text
from ragloom.chunking.measure import CHARACTERS
from ragloom.chunking.route_lines import readable_routes


@pytest.mark.parametrize(("line", "expected"), [
    # Go net/http (verb in the pattern), chi / gin / echo (verb in the method)
    ('\tmux.HandleFunc("POST /entry/share/{entryID}", handler.createSharedEntry)',
     "\troute POST /entry/share/{entryID} create shared entry"),
    ('\tr.Get("/users", h.listUsers)', "\troute GET /users list users"),
    # a handler made by a call: its maker's name
    ('\tmux.Handle("GET /metrics", metricsHandler())', "\troute GET /metrics metrics handler))"),
    ('\tmux.Handle("/v1/", api.NewHandler(store, pool))', "\troute /v1/ api new handler store, pool))"),
    ('\tuiRouter.HandleFunc("/feeds", handler.showFeedsPage).Name("feeds")',
     '\troute /feeds show feeds page .Name("feeds")'),
    # Express: the last argument is the handler, middleware before it is skipped
    ('router.post("/login", auth, authController.login);', "route POST /login auth controller login;"),
    ("app.get('/health', (req, res) => {", "route GET /health (req, res) => {"),
    # Laravel: controller and action, or an invokable class
    ("Route::get('/profile', [ProfileController::class, 'edit'])->name('profile.edit');",
     "route GET /profile profile controller edit)->name('profile.edit');"),
    ("Route::post('/avatar', UpdateAvatar::class);", "route POST /avatar update avatar);"),
    # axum builder, Django url pattern
    ('    .route("/api/users", get(list_users))', "    route GET /api/users list users))"),
    ('    path("children/<slug:slug>/", views.ChildDetail.as_view(), name="child"),',
     '    route children/<slug:slug>/ views child detail (), name="child"),'),
])
def test_a_registration_line_reads_as_route_verb_path_and_handler_words(line: str, expected: str) -> None:
    assert readable_routes(line) == expected


def test_an_attribute_takes_the_handler_from_the_definition_below() -> None:
    rocket = '#[get("/<host>/icon.png")]\n#[allow(unused)]\nfn icon_external(host: &str) -> Icon {\n}'
    assert readable_routes(rocket).split("\n")[0] == "route GET /<host>/icon.png icon external)]"
    flask = '@app.route("/hello")\nasync def say_hello():\n    return "hi"'
    assert readable_routes(flask) == '@route /hello say hello)\nasync def say_hello():\n    return "hi"' \
        .replace("@route", "route")
    # a front end's route enum (yew_router): the page is the variant under the attribute
    pages = ('#[derive(Routable)]\npub enum AppRoute {\n    #[at("/users/:user_id")]\n'
             '    UserDetails { user_id: String },\n    #[at("/")]\n    Index,\n}\n')
    assert readable_routes(pages).split("\n")[2:6] == [
        "    route /users/:user_id user details)]", "    UserDetails { user_id: String },",
        "    route / index)]", "    Index,"]


@pytest.mark.parametrize("text", [
    'cache.get("key")',  # a map lookup
    'axios.get("/api/x")',  # a client fetching a URL: no handler after it, no router
    'resp, err := http.Get("https://example.com/feed")',
    "def handler(request):\n    return render(request, 'x.html')",
])
def test_text_registering_no_route_is_left_as_it_is(text: str) -> None:
    assert readable_routes(text) is text


def test_the_indexed_text_reads_routes_in_words_after_its_header() -> None:
    metadata = {"source": "file", "path": "internal/ui/ui.go", "symbol": "Serve"}
    text = '\t// Share pages.\n\tmux.HandleFunc("GET /shares", handler.sharedEntries)\n'
    assert indexed_text(CHARACTERS)(text, metadata) == (
        "internal/ui/ui.go: Serve\n\t// Share pages.\n\troute GET /shares shared entries\n")


def test_a_builder_registration_written_over_lines_reads_as_one() -> None:
    # rustfmt's layout of a long axum registration: the call, the path, the method router
    text = ('        .route(\n'
            '            "/{user_id}/inbox",\n'
            '            routing::post(handler::users::inbox::post).layer(VerifyDigestLayer::default()),\n'
            '        )')
    assert readable_routes(text) == (
        "        route POST /{user_id}/inbox inbox post).layer(VerifyDigestLayer::default()),\n"
        "        )")


@pytest.mark.parametrize(("text", "expected"), [
    # a verb chained on the method router, each with its handler
    ('.route("/authorize", get(oauth::authorize::get)\n    .post(oauth::authorize::post))',
     "route GET /authorize authorize get POST authorize post))"),
    # actix's web::get().to(handler)
    ('.route("/users/{id}", web::get().to(users::show))', "route GET /users/{id} users show))"),
    # a nested router names its prefix, not the router it makes; glued to the receiver
    ('let api = router.nest(\n    "/api",\n    Router::new()', 'let api = router route /api()'),
])
def test_builder_forms_read_their_verbs_and_handlers(text: str, expected: str) -> None:
    assert readable_routes(text) == expected
