"""Files whose path names a part of an application but which are not where it lives.

The path prior (``path_prior``) counts a candidate inside a part when a word of its path
names the part. Two framework conventions file something else under those words:

- **An application's own schedules.** A panel whose users keep schedules of their own
  files its model, services, controllers and pages under that word (``Models/Schedule.php``,
  ``Services/Schedules/``, ``components/server/schedules/``); none of them runs work on a
  timer, which is what a question asking how often or at what time work runs ("how often",
  "at what time", "every night", "nightly", "by itself") asks for. So for such a question,
  when some candidate inside the schedules part registers a timer (``part_content``:
  Laravel's ``$schedule->command(...)``, Celery beat, a cron library) or is a file named for
  one (``scheduler``, ``cron``, ``crontab``), only those count; when none does, every file
  the path words name still counts. A question that only says "cron" or "scheduler" ("how
  is the next run of a schedule worked out from its cron fields") may ask about the
  application's own schedules, and keeps them.
- **Laravel's schema dump.** ``php artisan schema:dump`` writes every table the
  migrations made into ``database/schema/<connection>-schema.sql`` (``.dump`` before
  Laravel 9): a generated copy of the migrations' result, one ``CREATE TABLE`` per table,
  whose words match any question about a table. A question naming the migrations part asks
  for the migration that made or changed it, so the dump is not inside that part (it is
  still found, weighed as any candidate outside).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ragloom.retrieval.part_content import holds_part
from ragloom.types import SearchResult

#: File names (before the first dot, lower case) of files running work on a timer.
TIMER_STEMS = frozenset({"scheduler", "cron", "crontab"})
#: Words of a question asking how often or at what time work runs by itself.
_WHEN_IT_RUNS = re.compile(r"\b(?:how\s+often|at\s+what\s+time|nightly|by\s+itself|every\s+(?:\d+\s+)?"
                           r"(?:nights?|days?|hours?|minutes?|weeks?|months?|mornings?))\b", re.IGNORECASE)
#: ``database/schema/mysql-schema.sql``, ``database/schema/pgsql_test-schema.dump``.
_SCHEMA_DUMP = re.compile(r"(?:^|/)database/schema/[^/]+-schema\.(?:sql|dump)$", re.IGNORECASE)


def is_schema_dump(path: str) -> bool:
    """Whether ``path`` is a Laravel schema dump (``database/schema/<connection>-schema.sql``)."""
    return _SCHEMA_DUMP.search(path.replace("\\", "/")) is not None


def registers_timer(result: SearchResult) -> bool:
    """Whether a chunk registers work on a timer (``part_content``'s schedules patterns) or
    is of a file named for one (``TIMER_STEMS``)."""
    meta = result.metadata
    stem = str(meta.get("path") or "").replace("\\", "/").rsplit("/", 1)[-1].split(".", 1)[0].lower()
    symbol = str(meta.get("symbols") or meta.get("symbol") or "")
    return stem in TIMER_STEMS or holds_part("schedules", result.full_text or result.text, symbol)


def without_lookalikes(query: str, part: str, inside: set[str],
                       candidates: Sequence[SearchResult]) -> set[str]:
    """The ids of ``inside`` (the candidates inside ``part`` by their path or text) without
    its lookalikes: for the schedules part and a query asking how often or when work runs
    only the timers when some candidate is one, for the migrations part never a schema
    dump; ``inside`` itself for any other part."""
    if part == "schedules" and _WHEN_IT_RUNS.search(query):
        return {r.id for r in candidates if r.id in inside and registers_timer(r)} or inside
    if part == "migrations":
        return {r.id for r in candidates
                if r.id in inside and not is_schema_dump(str(r.metadata.get("path") or ""))}
    return inside
