"""Questions about work done outside a request (queued jobs, console commands, timers) and
about data migrations, in a newcomer's words, go to the chunks that define that work: by
the words of the question (``path_prior``) and by what a chunk says (``part_content``)."""

from __future__ import annotations

import pytest

from ragloom.retrieval.part_content import holds_part
from ragloom.retrieval.path_prior import parts_named, prior_for_paths
from ragloom.retrieval.priors import reweigh
from ragloom.types import SearchResult


@pytest.mark.parametrize(("query", "parts"), [
    ("how do I create a read-only user from the command line", ["jobs"]),
    ("a user lost their phone, how do I clear their two-factor setup from the terminal", ["jobs"]),
    ("command that deletes images no page uses anymore", ["jobs"]),
    ("which command emails people whose timer has been running for too long", ["jobs"]),
    ("artisan command to rebuild the search index", ["jobs"]),
    ("are notification emails sent right away or through a background queue", ["jobs"]),
    ("how are views counted in the background", ["jobs"]),
    ("background task that deletes unused pictures", ["jobs"]),
    ("where is the background colour of the sidebar set", []),  # the interface's words
    ("where are the click listeners of the menu attached", []),
    ("how does the dashboard refresh itself periodically", []),
    ("where is the schedule view of the calendar", []),
    ("which signal receiver creates the profile of a new user", ["jobs"]),
    ("keyboard shortcut that opens the command palette", []),
    ("what commands run the linter before a pull request", []),
    ("how often does the server pull new exercises by itself", ["schedules"]),
    ("what runs every night", ["schedules"]),
    ("what is scheduled to run nightly", ["jobs", "schedules"]),
    ("at what time of day does the instance check for updates", ["schedules"]),
    ("when are the digest emails sent, daily or weekly", ["schedules"]),
    ("when are items in the trash deleted for good", ["schedules"]),
    ("when a page is saved, how are old revisions removed", []),
    ("which scheduled job re-checks sponsorships", ["jobs", "schedules"]),
    ("urls of the daily calorie calculator pages", ["routes"]),  # "daily" alone: no timer
    ("how is the hourly rate of a time entry chosen", []),
    ("when dark mode came in, how were the existing colour settings carried over",
     ["migrations", "config"]),
    ("how were the end dates of existing plans filled in", ["migrations"]),
    ("which rows were backfilled for old accounts", ["migrations"]),
    ("how were existing posts copied into the timelines when timelines came in", ["migrations"]),
    ("how are existing posts shown on the timeline", []),  # present tense: the code showing them
    ("how is the view counter filled in", []),  # present tense: the code filling it
    ("what does setting up a fresh install do", []),  # "setting up" is no setting
    ("which setting turns off sign ups", ["config"]),
    ("what fields does an article have in the database", ["models"]),  # what they are now
    ("fields of a post as stored in the database", ["models"]),
    ("which fields does the sign-up form show", []),  # a form's fields: no model named
    ("which migration added the fields of a post", ["migrations"]),
    ("what columns does the posts table have", ["migrations"]),
])
def test_parts_named(query: str, parts: list[str]) -> None:
    assert [part.name for part in parts_named(query)] == parts


@pytest.mark.parametrize("text", [
    "class SendReminder implements ShouldQueue\n{",  # Laravel queued job / notification
    "abstract class MailNotification extends Notification implements ShouldQueue",
    "protected $signature = 'bookstack:cleanup-images {--a|all}';",  # Laravel command
    "Artisan::command('inspire', function () {",
    "@app.task\ndef sync_exercises_task():",  # Celery
    "@shared_task(bind=True)\ndef refresh(self):",
    "@task(help={'settings-path': 'Path'})\ndef bootstrap(context):",  # invoke
    "class Command(BaseCommand):\n    help = 'Create a user'",  # Django management command
    "    def add_arguments(self, parser):",
    "@receiver(post_save, sender=User)\ndef create_profile(sender, instance, created, **kwargs):",
    "Event::listen(OrderShipped::class, SendShipmentNotification::class);",
    "class GuestsCleanupJob < ApplicationJob",  # Rails
    "task :cleanup => :environment do",
    "tokio::spawn(async move { purge(pool).await });",  # Rust
    "#[derive(Debug, Parser)]\nstruct Cli {",
    'SubCommand::with_name("migration")\n    .about("Manage migrations")',  # clap's builder
    "App::new(\"Admin\")\n    .subcommand(users::command())",
    'Arg::with_name("path")\n    .short("p")\n    .takes_value(true)',
    "let mut pargs = pico_args::Arguments::from_env();",
    "func (w *worker) Run(c <-chan model.Job, shutdown <-chan struct{}) {",  # Go
    "var rootCmd = &cobra.Command{",
    "const worker = new Worker('emails', async job => {",  # BullMQ
    "program.command('serve')",  # commander
    "$schedule->command('reminders:send')->daily();",  # schedules count as jobs too
])
def test_definitions_of_background_work_hold_the_jobs_part(text: str) -> None:
    assert holds_part("jobs", text)


@pytest.mark.parametrize("text", [
    "$schedule->command('reminders:send')->dailyAt('03:00');",  # Laravel Kernel
    "Schedule::job(new PruneStaleAttachments)->hourly();",  # routes/console.php
    "sender.add_periodic_task(crontab(hour=3), sync_exercises_task.s())",  # Celery
    "CELERY_BEAT_SCHEDULE = {'sync': {'task': 'x', 'schedule': 3600}}",
    "scheduler.add_job(cleanup, 'interval', hours=1)",  # APScheduler
    "let mut sched = JobScheduler::new();",  # Rust
    "sched.add(Job::new(schedule.parse().unwrap(), || {}));",
    "let mut ticker = tokio::time::interval(Duration::from_secs(60));",
    "let schedule = Schedule::from_str(\"0 30 3 * * *\")?;",  # cron crate
    "for range time.Tick(frequency) {",  # Go
    "c := cron.New()",
    "cron.schedule('0 3 * * *', () => purge());",  # node-cron
    "every 1.day, at: '4:30 am' do",  # whenever
    "while True:\n    send_alerts()\n    time.sleep(2)",  # a management command polling
    "loop {\n    purge(&pool).await;\n    tokio::time::sleep(PERIOD).await;\n}",
    "for {\n\tcleanup(store)\n\ttime.Sleep(time.Hour)\n}",
])
def test_timer_registrations_hold_the_schedules_part(text: str) -> None:
    assert holds_part("schedules", text)


@pytest.mark.parametrize(("part", "text"), [
    ("jobs", "class UserController extends Controller\n{"),
    ("jobs", "task = Task.objects.get(pk=pk)"),
    ("jobs", "The task is done when the timer stops."),
    ("jobs", "const command = palette.commands[0]"),
    ("jobs", 'let out = Command::new("git").arg("status").output()?;'),  # a process, no CLI
    ("schedules", "@app.task\ndef sync_exercises_task():"),  # a task, not its timer
    ("schedules", "setTimeout(() => save(), 500)"),
    ("schedules", "setInterval(() => refresh(), 60000)"),  # a page refreshing itself
    ("schedules", "while True:\n    line = f.readline()\n    if not line: break"),
    ("schedules", "'schedule' => env('BACKUP_SCHEDULE')"),
])
def test_other_code_does_not(part: str, text: str) -> None:
    assert not holds_part(part, text)


@pytest.mark.parametrize(("symbol", "held"), [
    ("parse_args", True), ("main.parse_cli", True), ("Cli", True), ("commands::Args", True),
    ("ImportArgs", False), ("parse_arguments_of_query", False), ("click_handler", False),
    ("config, parse_args", True), ("", False),
])
def test_a_command_line_parser_holds_the_jobs_part_by_its_name(symbol: str, held: bool) -> None:
    # a later chunk of a hand-written parser says only `} else if command == "backup" {`
    assert holds_part("jobs", '} else if command == "backup" {', symbol) is held


def _chunk(doc_id: str, path: str, text: str, score: float, symbol: str = "") -> SearchResult:
    metadata = {"path": path, "symbol": symbol} if symbol else {"path": path}
    return SearchResult(doc_id, text, metadata, 0.5, 0.5, rank_score=score)


def test_a_question_for_a_command_goes_to_the_command_line_parser() -> None:
    env = _chunk("env", ".env.template", "## Vaultwarden has a built-in generator: `vaultwarden hash`", 0.9)
    parser = _chunk("parser", "src/main.rs", '} else if command == "hash" {', 0.47, "parse_args")
    results = [env, parser]
    # 0.47 (the parser, by its name); 0.9 * 0.5 = 0.45
    assert [r.id for r in reweigh(results, prior_for_paths("command to generate a hashed admin token",
                                                           results))] == ["parser", "env"]


def test_a_queued_notification_is_inside_the_jobs_part_whatever_its_path() -> None:
    queue = _chunk("queue", "app/Config/queue.php", "'default' => env('QUEUE_CONNECTION', 'sync'),", 0.5)
    mail = _chunk("mail", "app/App/MailNotification.php",
                  "abstract class MailNotification extends Notification implements ShouldQueue", 0.85)
    view = _chunk("view", "app/Http/Controllers/PageController.php", "public function show()", 0.7)
    results = [mail, view, queue]
    query = "are notification emails sent right away or through a background queue"
    # 0.85 (queued); 0.7 * 0.5 = 0.35; 0.5 * 0.5 = 0.25 (a config file sets the queue up,
    # it runs no job: not inside the jobs part whatever its name)
    assert [r.id for r in reweigh(results, prior_for_paths(query, results))] == ["mail", "view", "queue"]


def test_a_question_about_a_timer_puts_the_registration_first() -> None:
    command = _chunk("command", "wger/exercises/management/commands/sync-exercises.py",
                     "class Command(BaseCommand):\n    def handle(self): sync_exercises()", 0.6)
    timer = _chunk("timer", "wger/exercises/tasks.py",
                   "sender.add_periodic_task(crontab(hour=h), sync_exercises_task.s())", 0.35)
    sync = _chunk("sync", "wger/exercises/sync.py", "def sync_exercises(print_fn):", 0.5)
    results = [command, sync, timer]
    # 0.35 (registers a timer); 0.6 * 0.5 = 0.3; 0.5 * 0.5 = 0.25
    assert [r.id for r in reweigh(results, prior_for_paths("how often are exercises pulled", results))
            ] == ["timer", "command", "sync"]


def test_a_backfill_question_goes_to_the_data_migration() -> None:
    model = _chunk("model", "wger/nutrition/models/plan.py", "end = models.DateField(null=True)", 0.6)
    migration = _chunk("migration", "wger/nutrition/migrations/0027_prefill_end_date.py",
                       "plan.end = plan.start + timedelta(weeks=12)", 0.4)
    results = [model, migration]
    query = "when plans got start and end dates, how were the end dates of existing plans filled in"
    # 0.4 (a migration); 0.6 * 0.5 = 0.3 (a model is no migration)
    assert [r.id for r in reweigh(results, prior_for_paths(query, results))] == ["migration", "model"]


def test_a_fresh_install_question_wants_the_setup_code_not_a_migration_or_seeder() -> None:
    migration = _chunk("migration", "wger/config/migrations/0001_initial.py",
                       "migrations.CreateModel(name='GymConfig')", 0.75)
    migration.metadata["source_type"] = "migration"
    setup = _chunk("setup", "wger/tasks.py", "migrate_db(context)\nload_fixtures(context)", 0.58)
    results = [migration, setup]
    query = "what does setting up a fresh install do: migrations, initial data and the admin user"
    # 0.58 (not a migration); 0.75 * 0.5 = 0.375. Without the rule the migrations and
    # seeding parts named by "migrations" and "initial data" put the migration first.
    assert [r.id for r in reweigh(results, prior_for_paths(query, results))] == ["setup", "migration"]


def test_a_question_for_the_cli_command_running_migrations_finds_the_command() -> None:
    """A CLI crate (``admin-cli/src/migration.rs``) defining ``migration run`` with clap's
    builder is a command, not a list of migrations: inside the jobs part by its folder
    and its text, and not weighed down as a migration by the running rule."""
    command = _chunk("command", "admin-cli/src/migration.rs",
                     'pub fn command<\'a, \'b>() -> App<\'a, \'b> {\n'
                     '    SubCommand::with_name("migration")\n'
                     '        .subcommand(SubCommand::with_name("run"))',
                     0.40, "command")
    runner = _chunk("runner", "app-models/src/migrations.rs",
                    "pub fn run_pending_migrations(&self, conn: &Connection) -> Result<()> {", 0.55,
                    "ImportedMigrations.run_pending_migrations")
    main = _chunk("main", "src/main.rs", 'panic!("run migrations via: admin migration run")', 0.5)
    results = [runner, main, command]
    query = "which cli command runs the pending database migrations"
    # 0.40 (the command); 0.55 * 0.5; 0.5 * 0.5
    assert [r.id for r in reweigh(results, prior_for_paths(query, results))] == ["command", "runner", "main"]
