"""A chunk that registers routes counts as holding the routes part, whatever its file is
called: one pattern per web framework, and client calls or map lookups do not count."""

from __future__ import annotations

import pytest

from ragloom.retrieval.part_content import holds_part


@pytest.mark.parametrize("text", [
    "Route::get('/calendar', CalendarController::class)->name('calendar');",  # Laravel
    "Route::bind('username', fn (string $u) => User::where('username', $u)->firstOrFail());",
    "#[Route('/blog/{slug}', name: 'blog_show')]",  # Symfony
    "@GetMapping(\"/owners/{id}\")",  # Spring
    "[HttpPost]\npublic IActionResult Create(Item item)",  # ASP.NET
    "#[post(\"/ciphers/<cipher_id>/attachment/v2\", data = \"<data>\")]\nasync fn post_attachment_v2(",
    "pub fn routes() -> Vec<Route> {\n    routes![get_folders, post_folders]\n}",  # Rocket mount
    "Router::new()\n    .route(\"/api/feeds\", get(list_feeds))",  # axum
    "rocket::custom(config)\n    .mount([basepath, \"/api\"].concat(), api::core_routes())",
    "cfg.service(web::scope(\"/api\").service(index));",  # actix
    "#[derive(Routable)]\npub enum AppRoute {\n    #[at(\"/users\")]\n    ListUsers,",  # yew_router
    "uiRouter.HandleFunc(\"/share/{entryID}\", h.createSharedEntry).Name(\"shareEntry\")",  # mux
    "mux.HandleFunc(\"GET /healthz\", healthz)",  # Go 1.22 patterns
    "r.GET(\"/albums\", getAlbums)",  # gin
    "router.get('/users/:id', loadUser, showUser);",  # Express
    "app.use(\"/static\", express.static(dir))",
    "@app.route(\"/login\", methods=[\"GET\", \"POST\"])",  # Flask
    "@router.get(\"/items/{item_id}\")",  # FastAPI
    "app.include_router(items.router, prefix=\"/items\")",
    "app.register_blueprint(auth_bp, url_prefix=\"/auth\")",
    "urlpatterns = [\n    path(\"timers/\", views.TimerList.as_view()),\n]",  # Django
    "path(\"children/<slug:slug>/\", ChildDetail.as_view(), name=\"child\"),",
    "router.register(r\"children\", views.ChildViewSet)",  # DRF
    "  resources :photos\n  get \"/profile\", to: \"users#show\"",  # Rails
    # axum handlers registered elsewhere: their extractor parameters say what they are
    "pub async fn post(\n    State(attachments): State<AttachmentService>,\n    mut multipart: Multipart,",
    "async fn get(Path(id): Path<Uuid>, Query(page): Query<Paging>) -> Json<Post> {",
    "pub async fn update(Json(mut body): Json<Update>) -> StatusCode {",
    "async fn index(pool: web::Data<DbPool>, path: web::Path<(u32,)>) -> impl Responder {",  # actix
    # axum extractors taken whole, not destructured
    "pub async fn list<DB: Database>(\n    req: Query<SyncRequest>,\n    state: State<AppState<DB>>,\n)",
    "async fn delete(user: AuthUser, path: Path<String>, state: State<AppState>) -> Result<()> {",
])
def test_route_registrations_hold_the_routes_part(text: str) -> None:
    assert holds_part("routes", text)


@pytest.mark.parametrize("text", [
    "const { data } = await axios.get('/api/v1/users')",  # a client call
    "router.get('/login')",  # Inertia's client-side visit, no handler
    "api.get('/users', { params: { page } })",  # an axios instance
    "resp, err := client.R().Get(\"/users\")",  # a Go HTTP client
    "resp, err := http.Get(\"https://example.org/feed.xml\")",
    "value := cache.Get(\"key\")",
    "user = cache.get('user:1')",
    "os.path.join(base, 'static')",
    "return redirect(route('dashboard'));",  # naming a route is not registering one
    "# Routes are registered in routes/web.php",
    "fn load(path: &Path) -> Result<Config> {",  # a file path, no extractor
    "let state = State::new(config);\nlet body = Json(payload);",  # values built, not extracted
    "pub struct AppState { pool: PgPool }",
    "pub struct Settings {\n    pub theme: Json<Theme>,\n}",  # sqlx's JSON column type
    "fn build(q: Query<'_, Postgres, PgArguments>) -> String {",  # a sqlx query
    "async fn save_attachment(\n    data: Form<UploadData<'_>>,\n) -> Result<()> {",  # a helper
])
def test_other_code_does_not(text: str) -> None:
    assert not holds_part("routes", text)


def test_a_part_with_no_content_patterns_is_never_held_by_text() -> None:
    assert not holds_part("models", "Route::get('/x', X::class);")
