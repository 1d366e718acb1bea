"""Files whose path names a part of an application but are not where it lives: an
application's own schedules (its model, services and pages) are not what runs work on a
timer, and Laravel's schema dump is not a migration."""

from __future__ import annotations

import pytest

from ragloom.retrieval.part_lookalikes import is_schema_dump, registers_timer, without_lookalikes
from ragloom.retrieval.path_prior import prior_for_paths
from ragloom.retrieval.priors import reweigh
from ragloom.types import SearchResult

KERNEL = """    protected function schedule(Schedule $schedule): void
    {
        // Execute scheduled commands for servers every minute.
        $schedule->command(ProcessRunnableCommand::class)->everyMinute()->withoutOverlapping();
    }
"""


def _result(doc_id: str, path: str, score: float, text: str = "", source_type: str = "code",
            language: str = "php") -> SearchResult:
    metadata = {"path": path, "source_type": source_type, "language": language}
    return SearchResult(doc_id, text, metadata, 0.5, 0.5, rank_score=score)


def _schedules() -> list[SearchResult]:
    return [_result("model", "app/Models/Schedule.php", 0.65, "class Schedule extends Model {}", "model"),
            _result("service", "app/Services/Schedules/ProcessScheduleService.php", 0.6,
                    "public function handle(Schedule $schedule, bool $now = false)"),
            _result("page", "resources/scripts/components/server/schedules/ScheduleRow.tsx", 0.55,
                    "export default ({ schedule }) => <p>{schedule.name}</p>;", language="typescript"),
            _result("kernel", "app/Console/Kernel.php", 0.4, KERNEL)]


def test_a_question_about_how_often_wants_the_timer_not_the_applications_schedules() -> None:
    results = _schedules()
    query = "how often are the users' schedules checked and started"
    # only the kernel is inside: 0.4; 0.65 * 0.5, 0.6 * 0.5, 0.55 * 0.5
    assert [r.id for r in reweigh(results, prior_for_paths(query, results))] == [
        "kernel", "model", "service", "page"]


def test_a_question_saying_only_cron_keeps_the_applications_schedules() -> None:
    results = _schedules()
    query = "how is the next run of a schedule worked out from its cron fields"
    # every file named for schedules is inside: 0.65, 0.6, 0.55, 0.4
    assert [r.id for r in reweigh(results, prior_for_paths(query, results))] == [
        "model", "service", "page", "kernel"]


def test_without_a_timer_among_the_candidates_every_file_named_for_schedules_counts() -> None:
    results = _schedules()[:3] + [_result("mail", "app/Mail/Reminder.php", 0.7, "class Reminder")]
    factors = prior_for_paths("how often are the users' schedules checked", results)
    # the three schedules files are inside: 0.65, 0.6, 0.55; the mail 0.7 * 0.5
    assert [r.id for r in reweigh(results, factors)] == ["model", "service", "page", "mail"]


@pytest.mark.parametrize(("path", "text", "timer"), [
    ("app/Console/Kernel.php", KERNEL, True),
    ("routes/console.php", "Schedule::command('emails:send')->daily();", True),
    ("docker/crontab", "* * * * * php /app/artisan schedule:run", True),  # named for one
    ("internal/cli/scheduler.go", "func runScheduler() {}", True),
    ("app/Models/Schedule.php", "class Schedule extends Model {}", False),
    ("app/Services/Schedules/ProcessScheduleService.php", "$schedule->tasks()->first();", False),
])
def test_what_registers_a_timer(path: str, text: str, timer: bool) -> None:
    assert registers_timer(_result("x", path, 0.5, text)) is timer


@pytest.mark.parametrize(("path", "dump"), [
    ("database/schema/mysql-schema.sql", True),
    ("database/schema/pgsql_test-schema.sql", True),
    ("database/schema/sqlite-schema.dump", True),
    ("database/migrations/2022_05_28_create_activity_logs_table.php", False),
    ("database/schema/README.md", False),
    ("crates/app-db/src/schema.rs", False),  # an ORM's table list, not Laravel's dump
    ("sql/schema.sql", False),
])
def test_is_schema_dump(path: str, dump: bool) -> None:
    assert is_schema_dump(path) is dump


def test_a_table_question_wants_the_migration_above_the_schema_dump() -> None:
    results = [_result("dump", "database/schema/mysql-schema.sql", 0.88,
                       "CREATE TABLE `activity_logs` (`id` bigint unsigned NOT NULL", language="sql"),
               _result("migration", "database/migrations/2022_05_28_135717_create_activity_logs_table.php",
                       0.8, "Schema::create('activity_logs', function (Blueprint $table) {", "migration")]
    # the dump is outside the migrations part: 0.88 * 0.5 < 0.8
    assert [r.id for r in reweigh(results, prior_for_paths("what columns does the activity log table have",
                                                           results))] == ["migration", "dump"]


def test_other_parts_keep_every_candidate_inside() -> None:
    results = _schedules()
    inside = {r.id for r in results}
    assert without_lookalikes("how often", "routes", inside, results) == inside
    assert without_lookalikes("how often", "migrations", inside, results) == inside
