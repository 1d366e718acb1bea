"""A question naming a part of an application (migrations, routes, models, jobs, config)
ranks the files whose path names that part above comparable matches elsewhere."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import first_path_per_weight
from ragloom.retrieval import path_prior
from ragloom.retrieval.layout_priors import layout_priors
from ragloom.retrieval.path_prior import (
    is_one_migration,
    parts_inside,
    parts_named,
    path_words,
    prior_for_paths,
    prior_for_running,
)
from ragloom.retrieval.priors import reweigh
from ragloom.types import SearchResult


@pytest.mark.parametrize(("query", "parts"), [
    ("which migration added the share column", ["migrations"]),
    ("database schema for saved reports", ["migrations"]),
    ("REST API routes for managing users", ["routes"]),
    ("which url shows the calendar", ["routes"]),
    ("where is the prometheus metrics endpoint mounted", ["routes"]),
    ("which model holds the invoice", ["models"]),
    ("background worker that refreshes feeds", ["jobs"]),
    ("which env variable picks the queue driver", ["jobs", "config"]),
    ("setting to log users in from a proxy header", ["config"]),
    ("how does swiping move between articles", []),
    ("migrating the data by hand", []),  # whole words only
    ("which table stores the votes on polls", ["migrations"]),
    ("table that records who follows whom", ["migrations"]),
    ("when was the column remembering the email added", ["migrations"]),
    ("database change that lets users archive items", ["migrations"]),
    ("where in the database are banned emails kept", ["migrations"]),
    ("when was the view counter added to posts", ["migrations"]),
    ("admin page table listing registered users", []),
    ("how are old events removed from the database", []),
    ("how do I point the app at a postgres database", []),
    ("how do I set up a local development environment", []),
    ("which environment variables configure email", ["config"]),
    ("when did we start recording the time of birth of a child", ["migrations"]),
    ("since when do we keep the last login", ["migrations"]),
    ("when did the timer stop", []),
    ("when did API keys get an expiry date", ["migrations"]),
    ("when did posts gain a language column", ["migrations"]),
    ("when does a user get a reminder email", []),  # what happens, not when it came in
    ("how are the weight percentile reference tables filled in", ["seeding"]),
    ("which seeder creates the admin user", ["seeding"]),
    ("how is the view counter filled in", []),  # no table or column filled
    ("which address does the server listen on by default", ["config"]),
    ("is two factor authentication turned on", ["config"]),
    ("can I switch off sign ups", ["config"]),
    ("what is the default gradient of a profile", []),  # "default" alone names no setting
    ("turn the page on swipe", []),
    ("which subcommands does the binary have", ["jobs"]),  # clap's and cobra's word
    ("what does the sub-command for imports do", ["jobs"]),
])
def test_parts_named(query: str, parts: list[str]) -> None:
    assert [part.name for part in parts_named(query)] == parts


def test_path_words_split_folders_and_file_names() -> None:
    assert path_words("app/Console/Commands/SendMailReminder.php") == {
        "app", "console", "commands", "send", "mail", "reminder"}
    assert path_words("core/migrations/0028_alter_sleep_nap.py") == {
        "core", "migrations", "0028", "alter", "sleep", "nap"}
    assert path_words("internal/http/server/routes.go") == {"internal", "http", "server", "routes"}
    assert path_words("docker/.env.example") == {"docker", "env", "example"}


def _result(doc_id: str, path: str | None, score: float) -> SearchResult:
    metadata = {} if path is None else {"path": path}
    return SearchResult(doc_id, "", metadata, 0.5, 0.5, rank_score=score)


def test_candidates_outside_the_named_part_are_weighed_down() -> None:
    results = [_result("model", "app/Models/Report.php", 0.9),
               _result("migration", "database/migrations/2024_create_reports_table.php", 0.8),
               _result("text", None, 0.7),
               _result("far", "app/Services/ReportService.php", 0.3)]
    factors = prior_for_paths("which migration creates the reports table", results, weight=0.7)
    # 0.8 (in the part); 0.9 * 0.7 = 0.63; 0.7 * 0.7 = 0.49; 0.3 * 0.7 = 0.21
    assert [r.id for r in reweigh(results, factors)] == ["migration", "model", "text", "far"]
    assert [r.rank_score for r in reweigh(results, factors)] == [0.8, 0.9, 0.7, 0.3]
    # a much better match elsewhere still comes first: 0.9 * 0.7 = 0.63 > 0.6
    results[1].rank_score = 0.6
    assert [r.id for r in reweigh(results, factors)][:2] == ["model", "migration"]


def test_factories_seeders_and_models_under_db_are_not_migrations() -> None:
    results = [_result("factory", "database/factories/BlockedAccountFactory.php", 0.9),
               _result("seeder", "database/seeders/DatabaseSeeder.php", 0.85),
               _result("seeds", "db/seeds.rb", 0.85),
               _result("model", "src/db/models/archive.rs", 0.8),
               _result("migration", "database/migrations/2026_create_blocked_accounts_table.php", 0.6),
               _result("runner", "src/db/mod.rs", 0.5),
               _result("alembic", "alembic/versions/3f2a_add_blocked_emails.py", 0.41)]
    factors = prior_for_paths("where in the database are banned email addresses kept", results,
                              weight=0.5)
    # 0.6, 0.5, 0.45 (the factory, 0.9 * 0.5), 0.425 (seeder, seeds), 0.41 (inside), 0.4 (model)
    assert [r.id for r in reweigh(results, factors)] == [
        "migration", "runner", "factory", "seeder", "seeds", "alembic", "model"]


def test_a_test_file_is_inside_a_part_only_for_a_question_about_tests() -> None:
    test = SearchResult("test", "", {"path": "internal/config/options_test.go", "source_type": "test"},
                        0.5, 0.5, rank_score=0.9)
    results = [test, _result("options", "internal/config/options.go", 0.6),
               _result("proxy", "internal/ui/proxy.go", 0.8)]
    factors = prior_for_paths("option to load images through the proxy", results, weight=0.5)
    assert [r.id for r in reweigh(results, factors)] == ["options", "test", "proxy"]  # 0.6, 0.45, 0.4
    factors = prior_for_paths("which tests cover the proxy option", results, weight=0.5)
    assert [r.id for r in reweigh(results, factors)] == ["test", "options", "proxy"]  # 0.9, 0.6, 0.4


def test_a_component_or_template_is_never_inside_a_part() -> None:
    def part(doc_id: str, path: str, language: str, score: float) -> SearchResult:
        return SearchResult(doc_id, "", {"path": path, "language": language}, 0.5, 0.5,
                            rank_score=score)

    page = part("page", "resources/js/Pages/OrganizationFormatSettings.vue", "vue", 0.9)
    view = part("view", "templates/settings/form.html", "django-template", 0.85)
    config = part("config", "config/app.php", "php", 0.5)
    assert [r.id for r in reweigh([page, view, config],
                                  prior_for_paths("which settings hold formats", [page, view, config]))
            ] == ["config", "page", "view"]  # 0.5; 0.9 * 0.5 = 0.45; 0.85 * 0.5 = 0.425
    assert prior_for_paths("which settings hold formats", [page, view]) == []
    # a Rust UI component (a Yew crate's ``user_schema_table.rs``) shows the schema, holds none
    table = part("table", "app/src/components/user_schema_table.rs", "rust", 0.9)
    table.metadata["interface"] = "component"
    migrations = part("migrations", "crates/backend/src/sql_migrations.rs", "rust", 0.6)
    assert [r.id for r in reweigh([table, migrations],
                                  prior_for_paths("initial database schema", [table, migrations]))
            ] == ["migrations", "table"]


def test_nothing_changes_when_no_path_names_the_part_or_no_part_is_named() -> None:
    results = [_result("a", "src/report.py", 0.9), _result("b", None, 0.8)]
    assert prior_for_paths("which migration creates the reports table", results) == []
    assert prior_for_paths("how are reports rendered", [
        _result("m", "db/migrations/0001.py", 0.9)]) == []


def test_engine_finds_the_migration_a_question_names(make_engine, project: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    files = {"app/Models/Invoice.php": "<?php\nclass Invoice extends Model\n{\n"
             "    // the invoice table its migration creates: one invoice row; invoice table, invoice\n"
             "    protected $table = 'invoices';\n}\n",
             "database/migrations/2024_01_01_create_invoices_table.php":
             "<?php\nreturn new class extends Migration\n{\n    public function up(): void\n    {\n"
             "        Schema::create('invoices', function (Blueprint $t) {\n"
             "            $t->string('number');\n            $t->timestamp('paid_at');\n"
             "        });\n    }\n};\n"}
    assert first_path_per_weight(make_engine, project, files, monkeypatch, path_prior, "STRONG_WEIGHT",
                                 "which migration creates the invoice table", (1.0, 0.7)) == [
        "app/Models/Invoice.php", "database/migrations/2024_01_01_create_invoices_table.php"]


def test_engine_answers_a_table_question_with_the_migration_not_the_seeder(
        make_engine, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a seeder, not a factory: factories weigh as tests whatever the path prior does (test_prior)
    files = {"database/seeders/BlockedAccountSeeder.php":
             "<?php\nclass BlockedAccountSeeder extends Seeder\n{\n"
             "    // banned email addresses for the demo: a banned email, a blocked email address\n"
             "    public function run(): void\n"
             "    {\n        BlockedAccount::create(['email' => 'banned@email.test']);\n    }\n}\n",
             "database/migrations/2024_01_01_create_blocked_accounts_table.php":
             "<?php\nreturn new class extends Migration\n{\n    public function up(): void\n    {\n"
             "        Schema::create('blocked_accounts', function (Blueprint $t) {\n"
             "            $t->string('email');\n        });\n    }\n};\n"}
    assert first_path_per_weight(make_engine, project, files, monkeypatch, path_prior, "PATH_WEIGHT",
                                 "which table stores the banned email accounts", (1.0, 0.5)) == [
        "database/seeders/BlockedAccountSeeder.php",
        "database/migrations/2024_01_01_create_blocked_accounts_table.php"]


def test_a_chunk_that_registers_routes_is_inside_the_routes_part_whatever_its_path() -> None:
    def chunk(doc_id: str, path: str, text: str, score: float, **metadata: str) -> SearchResult:
        return SearchResult(doc_id, text, {"path": path, **metadata}, 0.5, 0.5, rank_score=score)

    handler = chunk("handler", "internal/ui/share.go", "func (h *handler) createSharedEntry() {}", 0.9)
    table = chunk("table", "internal/ui/ui.go",
                  'uiRouter.HandleFunc("/share/{entryID}", h.createSharedEntry)', 0.6)
    test = chunk("test", "internal/ui/ui_test.go", 'r.HandleFunc("/share/1", nil)', 0.8,
                 source_type="test")
    view = chunk("view", "templates/entry.html", 'r.HandleFunc("/share/1", nil)', 0.7,
                 language="django-template")
    results = [handler, table, test, view]
    # 0.6 (registers routes); 0.9 * 0.5 = 0.45; 0.8 * 0.5 = 0.4; 0.7 * 0.5 = 0.35
    assert [r.id for r in reweigh(results, prior_for_paths("routes for sharing an entry", results))
            ] == ["table", "handler", "test", "view"]
    assert prior_for_paths("how is an entry shared", results) == []  # no part named


def test_engine_finds_the_route_table_of_a_file_not_named_for_routes(
        make_engine, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the handler's comment names routes too (the route table's indexed text says "route",
    # chunking.route_lines), so without the prior the handler comes first
    files = {"internal/ui/share.go": "package ui\n\n// routes for sharing an entry: the share handler"
             " makes a shared entry, shared by sharing, routes\nfunc (h *handler) share() {}\n",
             "internal/ui/ui.go": "package ui\n\nfunc Serve(r *mux.Router, h *handler) {\n"
             "\tr.HandleFunc(\"/share/{entryID}\", h.share).Name(\"sharing\")\n"
             "\tr.HandleFunc(\"/feeds\", h.feeds).Name(\"feeds\")\n}\n"}
    assert first_path_per_weight(make_engine, project, files, monkeypatch, path_prior, "PATH_WEIGHT",
                                 "routes for sharing", (1.0, 0.5)) == [
        "internal/ui/share.go", "internal/ui/ui.go"]


def _typed(doc_id: str, path: str, source_type: str, score: float, symbol: str = "") -> SearchResult:
    metadata = {"path": path, "source_type": source_type, **({"symbol": symbol} if symbol else {})}
    return SearchResult(doc_id, "", metadata, 0.5, 0.5, rank_score=score)


@pytest.mark.parametrize(("query", "order"), [
    # asks for one migration or a date: outside weighs STRONG_WEIGHT (0.8 * 0.25 = 0.2 < 0.3)
    ("which migration added the view counter", ["migration", "job"]),
    ("when was the view counter added to posts", ["migration", "job"]),
    ("when did posts get a view counter", ["migration", "job"]),
    ("where is the database table for post views created", ["migration", "job"]),
    ("where is the table for the views of a post created", ["migration", "job"]),
    # only names a column: PATH_WEIGHT (0.8 * 0.5 = 0.4 > 0.3)
    ("the column counting views of a post", ["job", "migration"]),
])
def test_a_question_asking_for_one_migration_weighs_the_rest_down_more(query: str, order: list[str]) -> None:
    results = [_typed("job", "app/Jobs/IncrementViews.php", "code", 0.8),
               _typed("migration", "database/migrations/2024_04_13_add_views_column_to_questions_table.php",
                      "migration", 0.3)]
    assert [r.id for r in reweigh(results, prior_for_paths(query, results))] == order


@pytest.mark.parametrize("query", ["where is the table for custom emojis created",
                                   "sql definition of the posts table with its search column"])
def test_where_a_table_is_created_is_a_migration_not_a_generated_schema(query: str) -> None:
    # diesel's schema.rs mirrors every table (``table!``), a path naming the migrations part
    schema = _typed("schema", "crates/app-db/src/schema.rs", "code", 0.88)
    sql = _typed("sql", "crates/app-db/migrations/2023-10-14-102320_create_emoji_tables/up.sql",
                 "migration", 0.8)
    # the generated schema weighs STRONG_WEIGHT: 0.88 * 0.25 < 0.8
    assert [r.id for r in reweigh([schema, sql], prior_for_paths(query, [schema, sql]))] == ["sql", "schema"]


def test_rows_of_a_data_file_in_a_migrations_folder_are_not_migrations() -> None:
    rows = _typed("rows", "core/migrations/weight_percentile_boys.csv", "data", 0.9)
    loader = _typed("loader", "core/migrations/0030_weightpercentile.py", "migration", 0.5)
    view = _typed("view", "reports/graphs/weight_change.py", "code", 0.6)
    factors = prior_for_paths("how are the weight percentile reference tables filled in",
                              [rows, loader, view])
    # 0.5 (inside); 0.9 * 0.5 = 0.45; 0.6 * 0.5 = 0.3
    assert [r.id for r in reweigh([rows, loader, view], factors)] == ["loader", "rows", "view"]


def test_an_api_schema_is_not_the_database_schema() -> None:
    api = _typed("api", "openapi-schema.yml", "config", 0.9)
    migration = _typed("migration", "core/migrations/0032_child_birth_time.py", "migration", 0.5)
    factors = prior_for_paths("database schema for children", [api, migration])
    assert [r.id for r in reweigh([api, migration], factors)] == ["migration", "api"]


def test_a_question_about_running_migrations_wants_the_runner_not_a_migration() -> None:
    results = [_typed("sql", "migrations/sqlite/2020-08-02_add_favorites/up.sql", "migration", 0.9),
               _typed("runner", "src/db/mod.rs", "code", 0.8, "run_migrations"),
               _typed("list", "internal/database/migrations.go", "code", 0.85),
               _typed("migrate", "internal/database/migrations.go", "code", 0.3, "Migrate")]
    query = "how are pending database migrations applied when the server starts"
    # 0.8, 0.9 * 0.5, 0.85 * 0.5, 0.3 (a migrations file's function running them is no migration)
    assert [r.id for r in reweigh(results, prior_for_paths(query, results))] == [
        "runner", "sql", "list", "migrate"]
    assert prior_for_running("which migration added the favorites table", results) == []
    assert [is_one_migration(r) for r in results] == [True, False, True, False]
    # without the running rule the migrations part would put the up.sql first
    other = "which database migrations add favorites"
    assert [r.id for r in reweigh(results, prior_for_paths(other, results))][0] == "sql"


def test_a_changelog_answers_when_something_was_added_as_a_migration_does() -> None:
    results = [_typed("changelog", "CHANGELOG.md", "docs", 0.6),
               _typed("service", "app/Services/Changelog.php", "code", 0.7),
               _typed("guide", "docs/usage.md", "docs", 0.65),
               _typed("migration", "database/migrations/2024_04_13_add_views_column.php", "migration", 0.3)]
    factors = prior_for_paths("when was the view counter added", results)
    # 0.6 (a changelog counts as inside); 0.3; 0.65 * 0.25; 0.7 * 0.25
    assert [r.id for r in reweigh(results, factors)] == ["changelog", "migration", "service", "guide"]
    # not for a question that does not ask when
    factors = prior_for_paths("which migration added the view counter", results)
    assert [r.id for r in reweigh(results, factors)][:2] == ["migration", "service"]


def test_a_config_file_named_for_queues_is_not_inside_the_jobs_part() -> None:
    config = _result("config", "app/Config/queue.php", 0.9)
    job = _result("job", "app/Jobs/SendNotification.php", 0.6)
    factors = prior_for_paths("are notification emails sent right away or through a queue", [config, job])
    # 0.6 (inside); 0.9 * 0.5 = 0.45: config/queue.php sets the queue up, it runs no job
    assert [r.id for r in reweigh([config, job], factors)] == ["job", "config"]
    assert parts_inside("which env variable picks the queue driver", [config, job]) == [{"job"}, {"config"}]


def test_a_question_asking_for_one_migration_wants_a_migration_not_the_rest_of_the_db_crate() -> None:
    """In a Rust workspace the database crate (``crates/app-db``) holds the schema macro
    and the models beside the migrations, and a job queue kept in the database is a
    ``db_queue.rs``: their paths name the part, but only a migration answers "which
    migration creates ...", so only migrations are inside for such a question."""
    results = [_typed("queue", "job-runner/src/db_queue.rs", "code", 0.46),
               _typed("schema", "crates/app-db/src/schema.rs", "code", 0.45),
               _typed("sql", "crates/app-db/migrations/2025-04-23_jobs/up.sql", "migration", 0.40)]
    factors = prior_for_paths("migration that creates the table for the background job queue", results)
    # 0.40 (the one migration); 0.46 * 0.25; 0.45 * 0.25
    assert [r.id for r in reweigh(results, factors)] == ["sql", "queue", "schema"]
    # a question naming only the tables keeps the whole database crate inside
    factors = prior_for_paths("which table stores the pending deliveries", results)
    assert [r.id for r in reweigh(results, factors)] == ["queue", "schema", "sql"]
    # no migration among the candidates: the paths decide as before
    factors = prior_for_paths("which migration creates the jobs table", results[:2])
    assert [r.id for r in reweigh(results[:2], factors)] == ["queue", "schema"]


@pytest.mark.parametrize(("query", "order"), [
    # asks for the documentation: the prose pages go up (0.62 * 0.5 < 0.5)
    ("documentation for writing content filters as WebAssembly modules", ["page", "code", "manifest"]),
    ("overview of the project's folder layout for new contributors", ["page", "code", "manifest"]),
    # names no documentation, or the documentation an API serves: left alone
    ("how are content filters written as WebAssembly modules", ["code", "manifest", "page"]),
    ("where can I open the swagger documentation of the API", ["code", "manifest", "page"]),
    ("where are the API docs for content filters served", ["code", "manifest", "page"]),
])
def test_a_question_asking_for_documentation_prefers_the_docs_pages(query: str, order: list[str]) -> None:
    results = [_typed("code", "crates/app-filter/src/lib.rs", "code", 0.62),
               _typed("manifest", "crates/app-filter/Cargo.toml", "config", 0.6),
               _typed("page", "website/src/content/docs/configuration/filters.mdx", "docs", 0.5)]
    assert [r.id for r in reweigh(results, prior_for_paths(query, results))] == order


@pytest.mark.parametrize(("query", "routes"), [
    ("API that returns the home timeline of the logged in user", True),
    ("which API to call for deleting a post", True),
    ("how many API requests per minute can one user make", False),
    ("migration creating the table for API keys", False),
    ("where do I put the token for GitHub's API", False),
])
def test_an_api_that_does_something_names_the_routes(query: str, routes: bool) -> None:
    assert any(part.name == "routes" for part in parts_named(query)) is routes


def test_a_ci_services_configuration_is_not_the_applications() -> None:
    ci = _result("ci", ".circleci/config.yml", 0.6)
    gitlab = _result("gitlab", ".gitlab/ci/config.yml", 0.55)
    env = _result("env", ".env.sample", 0.5)
    factors = prior_for_paths("where do I configure the database url", [ci, gitlab, env])
    # 0.5 (inside: env); 0.6 * 0.5 = 0.3; 0.55 * 0.5 = 0.275
    assert [r.id for r in reweigh([ci, gitlab, env], factors)] == ["env", "ci", "gitlab"]


def test_a_question_for_an_entitys_fields_wants_its_model_not_the_migration() -> None:
    migration = _typed("sql", "migrations/2018-04-23_create_posts/up.sql", "migration", 0.6)
    model = _typed("model", "crates/app-db/src/model/post.rs", "code", 0.5, "Post")
    results = [migration, model]
    factors = layout_priors("fields of a post as stored in the database", results)
    # 0.5 (inside the models part); 0.6 * 0.5 = 0.3: the fields now are the model's (the
    # migrations part named by "in the database" put the migration first: 0.6, 0.5 * 0.5)
    assert [r.id for r in reweigh(results, factors)] == ["model", "sql"]
    factors = layout_priors("which migration added the fields of a post", results)
    assert [r.id for r in reweigh(results, factors)] == ["sql", "model"]


def test_an_examples_page_is_not_inside_the_part_its_folder_names() -> None:
    # client guides under example_configs/ explain another service's setup, not the app's
    guide = _result("guide", "example_configs/open-webui.md", 0.9)
    guide.metadata["source_type"] = "docs"
    template = _result("template", "lldap_config.docker_template.toml", 0.6)
    sample = _result("sample", "config.example.toml", 0.5)  # the app's own sample
    results = [guide, template, sample]
    # 0.6 and 0.5 inside; 0.9 * 0.5 = 0.45
    assert [r.id for r in reweigh(results, prior_for_paths("what port does it listen on by default", results))
            ] == ["template", "sample", "guide"]
