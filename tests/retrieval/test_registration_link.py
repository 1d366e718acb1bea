"""A route question's handler is followed by the line registering it: from the candidates
when one registers it, else from BM25's best chunks for its words; any other question, and
a handler no candidate registers, keep the order."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ragloom.retrieval.registration_link import registrations_beside
from ragloom.types import SearchResult

ROUTER = ('pub fn create() -> Router {\n    Router::new()\n        .route(\n'
          '            "/{id}/reblog",\n'
          '            routing::post(handler::api::v1::statuses::reblog::post),\n        )\n'
          '        .route(\n            "/{id}/unreblog",\n'
          '            routing::post(handler::api::v1::statuses::unreblog::post),\n        )\n')
HANDLER = ("pub async fn post(\n    State(posts): State<PostService>,\n    Path(id): Path<Uuid>,\n"
           ") -> Result<Json<Status>> {\n    posts.repost(id).await\n}\n")


@dataclass
class _Lookup:
    search: Callable[[str], list[str]]
    read: Callable[[list[str]], list[SearchResult]]


def _result(doc_id: str, path: str, text: str, symbol: str = "") -> SearchResult:
    metadata = {"path": path, **({"symbol": symbol} if symbol else {})}
    return SearchResult(doc_id, text, metadata, 0.5, 0.5)


def _candidates(router_text: str = ROUTER) -> list[SearchResult]:
    return [_result("reblog", "src/http/handler/api/v1/statuses/reblog.rs", HANDLER, "post"),
            _result("other", "src/http/handler/api/v1/statuses/unreblog.rs", HANDLER, "post"),
            _result("service", "crates/service/src/post.rs", "fn repost() {}", "PostService::repost"),
            _result("router", "src/http/router.rs", router_text, "create")]


def test_a_handler_is_followed_by_its_registration_among_the_candidates() -> None:
    ordered = registrations_beside("API endpoint to boost a post", _candidates())
    assert [r.id for r in ordered] == ["reblog", "router", "other", "service"]


def test_a_question_naming_no_routes_keeps_the_order() -> None:
    ordered = registrations_beside("how is a post boosted", _candidates())
    assert [r.id for r in ordered] == ["reblog", "other", "service", "router"]


def test_a_common_name_needs_its_owner_on_the_registering_line() -> None:
    # the router registers unreblog::post and other posts, never reblog::post
    router = ROUTER.replace("statuses::reblog::post", "statuses::favourite::post")
    ordered = registrations_beside("API endpoint to boost a post", _candidates(router))
    assert [r.id for r in ordered][:2] == ["reblog", "other"]
    # a name of its own is enough: Go's handler.createSharedEntry
    go = _result("share", "internal/ui/share.go", "func (h *handler) createSharedEntry() {}",
                 "handler.createSharedEntry")
    routes = _result("routes", "internal/ui/ui.go",
                     'uiRouter.HandleFunc("/entry/share/{entryID}", handler.createSharedEntry).Name("x")',
                     "Serve")
    assert [r.id for r in registrations_beside("route for sharing an entry", [go, routes])] == [
        "share", "routes"]


def test_a_registration_deeper_than_the_candidates_is_looked_up() -> None:
    candidates = _candidates()[:3]
    router = _candidates()[3]
    asked: list[str] = []

    def search(words: str) -> list[str]:
        asked.append(words)
        return ["service", "router"]

    def read(ids: list[str]) -> list[SearchResult]:
        return [router for doc_id in ids if doc_id == "router"]

    ordered = registrations_beside("endpoint to boost a post", candidates, None, _Lookup(search, read))
    assert [r.id for r in ordered] == ["reblog", "router", "other", "service"]
    assert asked[0] == "route reblog post"


def test_only_the_window_is_read_and_a_looked_up_registration_is_not_repeated() -> None:
    candidates = _candidates()
    # the router is past the window: not taken from the candidates
    assert [r.id for r in registrations_beside("endpoint to boost a post", candidates, 3)] == [
        "reblog", "other", "service", "router"]
    # looked up, it comes after the handler once (its deeper copy goes)
    lookup = _Lookup(lambda words: ["router"], lambda ids: [candidates[3]] if ids == ["router"] else [])
    ordered = registrations_beside("endpoint to boost a post", candidates, 3, lookup)
    assert [r.id for r in ordered] == ["reblog", "router", "other", "service"]


def test_a_line_defining_the_name_or_a_hook_without_its_owner_registers_nothing() -> None:
    handler = _result("limits", "app/Providers/FortifyServiceProvider.php",
                      "public function boot(): void\n{\n    RateLimiter::for('login', fn () => 5);\n}",
                      "FortifyServiceProvider::boot")
    provider = _result("provider", "app/Providers/AppServiceProvider.php",
                       "public function boot(): void\n{\n    Route::bind('user', fn ($u) => $u);\n}",
                       "AppServiceProvider::boot")
    helper = _result("helper", "src/routes.rs", 'fn build_feed() {}\n.route("/feed", get(show_feed))',
                     "routes")
    feed = _result("feed", "src/feed.rs", "fn build_feed() -> Feed {}", "build_feed")
    assert [r.id for r in registrations_beside("is the login endpoint rate limited",
                                               [handler, feed, provider, helper])] == [
        "limits", "feed", "provider", "helper"]


def test_a_test_registering_a_route_is_no_registration_unless_tests_are_asked_about() -> None:
    middleware = _result("middleware", "app/Http/Middleware/ForceHttps.php",
                         "public function handle($request, $next) { }", "ForceHttps::handle")
    other = _result("config", "config/app.php", "'url' => env('APP_URL'),")
    test = _result("test", "tests/Unit/Middleware/ForceHttpsMiddlewareTest.php",
                   "Route::get('/test', fn () => 'ok')->middleware(ForceHttps::class);\n"
                   "$this->app->make(ForceHttps::class)->handle($request, $next);", "test_it_redirects")
    test.metadata["source_type"] = "test"
    assert [r.id for r in registrations_beside("force every generated URL to use https",
                                               [middleware, other, test])] == ["middleware", "config", "test"]
    assert [r.id for r in registrations_beside("which tests cover the https url middleware",
                                               [middleware, other, test])] == ["middleware", "test", "config"]
