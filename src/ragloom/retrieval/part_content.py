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
service it calls.

Work done outside a request is filed as loosely: a queued notification in ``app/App/``
(``implements ShouldQueue``), Celery tasks in any ``tasks.py``, a Rust server's job
scheduler and command line in ``main.rs``, a Go ticker loop in ``cli/scheduler.go``. So
the jobs part also holds a chunk defining such work (``JOB_PATTERNS``: a queued job, a
task decorator, a console or management command's definition, a spawned task or a
worker loop) or registering a timer (``SCHEDULE_PATTERNS``), and the schedules part
(questions asking when work runs by itself) holds only the timer registrations. The
migrations of the application sets measured (docs/benchmarks.md) all sit under a path the
migrations part names already, so ``Schema::create`` / ``CREATE TABLE`` patterns changed
nothing.
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
    # Rocket / actix attributes (and yew_router's #[at("/users")] on a front end's route
    # enum), Rocket's routes![...] and .mount(..."/api"...), axum / actix builders
    "rust": r"#\[(?:get|post|put|patch|delete|head|options|route|at)\(\s*\"/|\broutes!\s*\[|"
            r"\.(?:route|nest|nest_service|route_service)\(\s*\"/|\bweb::(?:resource|scope)\(\s*\"|"
            r"\.mount\([^\n]*\"/",
    # axum handlers: an extractor destructured in a parameter, State(db): State<Pool>, or
    # taken whole, state: State<AppState<DB>>, req: Query<Paging> (not Json<T>, which is also
    # a database column's type, nor Form<T>, which Rocket's helpers take too, nor a
    # lifetime's sqlx Query<'q, ...>); actix handlers: a parameter of web::Json<T> /
    # web::Path<T> / web::Data<T>
    "rust handlers": r"\b(?:State|Path|Query|Json|Form|Extension|Multipart)\(\s*(?:mut\s+)?\w+\s*\)"
                     r"\s*:\s*(?:\w+::)*(?:State|Path|Query|Json|Form|Extension|Multipart)\b|"
                     r"[(,]\s*(?:mut\s+)?\w+\s*:\s*(?:axum::extract::)?(?:State|Path|Query|Extension)"
                     r"\s*<(?!')|"
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
#: What registers work to run on a timer, per framework family: the answer to "what runs
#: every night", "how often does ... run by itself" (the ``schedules`` part).
SCHEDULE_PATTERNS: dict[str, str] = {
    # Laravel: app/Console/Kernel.php's schedule() and routes/console.php (Laravel 11)
    "laravel": r"\$schedule->(?:command|job|call|exec)\(|\bSchedule::(?:command|job|call|exec)\(",
    # Celery beat (a task's periodic registration, the beat settings), APScheduler, django-q
    "python": r"\badd_periodic_task\(|\bbeat_schedule\b|\bCELERY_BEAT_SCHEDULE\b|@periodic_task\b|"
              r"\bcrontab\(|\bscheduler\.add_job\(|\b(?:Background|AsyncIO|Blocking)Scheduler\(",
    # Rust: job_scheduler / tokio-cron-scheduler jobs, tokio interval loops, the cron crate
    "rust": r"\bJobScheduler\b|\bJob::new(?:_async)?\(|\btokio::time::interval\(|"
            r"\bSchedule::from_str\(",
    # Go: tickers and cron libraries
    "go": r"\btime\.(?:Tick|NewTicker)\(|\bcron\.New\(|\.AddFunc\(\s*\"",
    # Node: node-cron, cron, Agenda; Rails: whenever's schedule.rb, sidekiq-cron
    "node": r"\bcron\.schedule\(|\bnew\s+CronJob\(|\bagenda\.every\(",
    "rails": r"^\s*every\s+(?:\d+\.\w+|:\w+)|\bSidekiq::Cron::Job\b",
    # A loop sleeping between rounds (a management command polling forever, a Go or Rust
    # worker loop); a browser's setInterval is a page refreshing itself, not server work.
    "loops": r"\bwhile\s+(?:True|not\s+[\w.()]+)\s*:[\s\S]{0,600}?\bsleep\(|"
             r"\bloop\s*\{[\s\S]{0,600}?\bsleep\(|\bfor\s*\{[\s\S]{0,600}?\btime\.Sleep\(",
}
#: What defines work done outside a request: a queued job, a background task, an event
#: listener or signal receiver, a console command (the ``jobs`` part, with every schedule
#: registration). A command's definition says how it is called (Laravel's ``$signature``,
#: Django's ``BaseCommand``, clap, cobra).
JOB_PATTERNS: dict[str, str] = {
    "laravel": r"\bimplements\s+[\w\\\s,]*\bShouldQueue\b|\bprotected\s+\$signature\s*=|"
               r"\bArtisan::command\(|\bEvent::listen\(",
    # Celery / Huey / Dramatiq / RQ tasks, invoke tasks, Django management commands and
    # signal receivers, CLIs
    "python": r"^\s*@(?:[\w.]+\.)?(?:task|shared_task|actor|job)\b|^\s*@receiver\(|"
              r"\bclass\s+Command\(\s*BaseCommand\s*\)|\bdef\s+add_arguments\(\s*self\s*,\s*parser\b|"
              r"^\s*@(?:[\w.]+\.)?command\(",
    # Rails jobs, Sidekiq workers, rake tasks
    "rails": r"<\s*(?:ApplicationJob|ActiveJob::Base)\b|\binclude\s+Sidekiq::(?:Job|Worker)\b|"
             r"^\s*task\s+(?::\w+|\w+:\s)",
    # Rust: spawned tasks, clap command lines (derived, or built: ``SubCommand::with_name``,
    # ``.subcommand(...)``, ``Arg::with_name``), pico-args
    "rust": r"\btokio::spawn\(|#\[derive\([^)]*\b(?:Parser|Subcommand)\b|#\[command\(|"
            r"\bSubCommand::with_name\(|\.subcommand\(|\bArg::with_name\(|"
            r"\bpico_args::Arguments\b|\bstd::env::args\(\)",
    # Go: cobra commands, workers reading a channel of jobs
    "go": r"\bcobra\.Command\s*\{|<-chan\s+[\w.]*Job\b|\bfor\s+\w+\s*:=\s*range\s+\w*(?:[jJ]obs?|[qQ]ueue)\b",
    # Node: BullMQ / Bee-Queue workers, commander / yargs commands
    "node": r"\bnew\s+Worker\(\s*['\"`]|\.process\(\s*['\"`]\w|\bprogram\s*\.command\(",
}


def _compile(*tables: dict[str, str]) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{p})" for table in tables for p in table.values()), re.MULTILINE)


#: What only a route registration says (``ROUTE_PATTERNS`` but a handler's extractors).
REGISTRATION = _compile({k: v for k, v in ROUTE_PATTERNS.items() if k != "rust handlers"})

#: Per part of the application (``path_prior.PARTS``' names): what a chunk holding it says.
CONTENT: dict[str, re.Pattern[str]] = {
    "routes": _compile(ROUTE_PATTERNS),
    "jobs": _compile(JOB_PATTERNS, SCHEDULE_PATTERNS),
    "schedules": _compile(SCHEDULE_PATTERNS),
}


#: Per part: the names of definitions holding it, whatever their chunk says. A command line
#: parsed by hand is one long function, and its later chunks (``command == "backup"``)
#: carry only its name: ``parse_args``, ``parse_cli``, ``run_cli``, a ``Cli`` or ``Args``.
SYMBOLS: dict[str, re.Pattern[str]] = {
    "jobs": re.compile(r"(?:^|[.:_])(?:parse_?args|parse_?cli|cli|args|subcommands?)$", re.IGNORECASE),
}


def holds_part(part: str, text: str, symbol: str = "") -> bool:
    """Whether ``text`` says what a chunk holding ``part`` says (``CONTENT``), or one of the
    comma-separated names in ``symbol`` is a definition holding it (``SYMBOLS``); always
    false for a part with neither."""
    pattern, names = CONTENT.get(part), SYMBOLS.get(part)
    return (pattern is not None and pattern.search(text) is not None
            or names is not None and any(names.search(name.strip()) for name in symbol.split(",")))
