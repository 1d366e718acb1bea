"""A question that names a part of an application goes to the files where that part lives.

Developers ask about an application in the words its layout uses: "which migration adds
the column", "where are the routes for sharing", "what does the job do", "which setting
turns it off"; a question about what happens "by default" or whether a feature is "turned
on" asks about a setting without saying so. Every framework files these parts under
folders and file names with the same words (``database/migrations/``, ``core/migrations/0028_...py``,
``internal/database/migrations.go``; ``routes/api.php``, ``core/urls.py``,
``internal/http/server/routes.go``; ``app/Models/``, ``core/models.py``,
``internal/model/``; ``app/Jobs/``, ``management/commands/``, ``internal/worker/``, ``tasks.py``;
``config/``, ``settings/``, ``internal/config/options.go``), but a chunk's text rarely
says so (a Laravel migration says ``Schema::create``, a route file ``Route::get``), and
the path is one line of a chunk's header, outweighed by the words of its body.

So when the query uses a word of one of the ``PARTS`` below and some candidate is inside
that part (its path names it: a folder or a word of the file name; or, for routes, its
text registers one: ``part_content``, Go's ``HandleFunc`` lists in ``ui.go``, Rocket's
``#[get("/...")]``; for jobs, a class that ``implements ShouldQueue``, a Celery task, a
command line's definition; for a question asking when work runs by itself, "how often",
"every night", only what registers a timer; for a question asking for "documentation",
"docs" or what "contributors" read, the project's prose pages), every other candidate is
multiplied by
``PATH_WEIGHT`` (``priors.reweigh``): the part's files go up among comparable matches, and a much better
match elsewhere still comes first; ``STRONG_WEIGHT`` when the query asks for one of the
part's files ("which migration added ...", "when was ... added"), and then only the
migrations themselves are inside (``is_one_migration``), not the rest of a database
folder or crate (``crates/app-db/src/schema.rs``, ``job-runner/src/db_queue.rs``). When no
candidate is inside the part (a library, plain documents), nothing changes. A question about
what was done to the rows already there when a change came in ("how were the existing ...
filled in") names the migrations part too: a data migration did it. A question about how
migrations are run wants the code running them instead (``prior_for_running``). A test
file is not where a part lives (``internal/config/options_parsing_test.go`` holds no
option): tests never count as inside a part unless the query is about tests. Nor do
components and templates (``PRESENTATION``, and Rust UI components: ``interface =
"component"``): they show a part, never hold it (``OrganizationFormatSettings.vue`` is a
settings page, not where settings are defined; a Yew ``user_schema_table.rs`` no schema).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ragloom.chunking.registry import TEMPLATE_LANGUAGES
from ragloom.retrieval.part_content import holds_part
from ragloom.retrieval.part_lookalikes import without_lookalikes
from ragloom.retrieval.priors import Factor
from ragloom.retrieval.test_prior import asks_about_tests
from ragloom.retrieval.tokenize import identifier_parts
from ragloom.types import SearchResult

#: How much the rank score of a candidate outside the part the query names counts.
PATH_WEIGHT = 0.5
#: The same when the query asks for one file of the part (``Part.strong``).
STRONG_WEIGHT = 0.25
#: Languages of components and templates: never inside a part, whatever their file name.
PRESENTATION = frozenset({*TEMPLATE_LANGUAGES, "vue", "svelte"})
#: Folder words of examples: a prose page under one (``example_configs/gitea.md``: how to
#: connect another service) holds no part of the application, whatever the folder's other
#: words (``configs``); a sample file of the application's own (``config.example.toml``)
#: still does.
_EXAMPLES = frozenset({"example", "examples", "sample", "samples"})


@dataclass(frozen=True)
class Part:
    """One part of an application: the query words that name it (a pattern of whole
    words), the path words (folder names, words of a file name) of the files holding it,
    and path words of neighbours filed with it that are not it (``unlike``)."""

    name: str
    query: re.Pattern[str]
    path_words: frozenset[str]
    unlike: frozenset[str] = frozenset()
    #: Query words asking for one of the part's files (``STRONG_WEIGHT``), if any.
    strong: re.Pattern[str] | None = None
    #: The ``source_type`` of the files holding it, when that, not a path, says so.
    source_type: str | None = None


def _part(name: str, query: str, path_words: str, unlike: str = "", strong: str = "",
          source_type: str | None = None) -> Part:
    return Part(name, _words(query), frozenset(path_words.split()), frozenset(unlike.split()),
                _words(strong) if strong else None, source_type)


def _words(pattern: str) -> re.Pattern[str]:
    return re.compile(rf"\b({pattern})\b", re.IGNORECASE)


#: A question about when something came into the application ("when was the view counter
#: added", "when did we start recording the birth time", "when did API keys get an expiry
#: date", "since when do we keep ..."): among the code only a migration, dated by its name
#: or folder, answers it ("when does a user get ..." asks what happens, not when it came in).
_HISTORY = (r"when\s+(?:was|were|did)\b[^?]*\b(?:added|introduced)|"
            r"when\s+did\s+(?:we|you|they|it|the\s+\w+)\s+(?:start|begin)|since\s+when|"
            r"when\s+did\s+[^?]{1,60}?\s(?:get|gain|receive)\b")
_HISTORY_WORDS = _words(_HISTORY)
#: File names (no extension, lower case) of documents listing changes by release.
_CHANGELOGS = frozenset({"changelog", "changes", "history", "news", "release_notes", "releases"})
#: A question about what was done once to the rows already there when a change came in
#: ("how were the existing settings carried over", "how were the end dates of existing plans
#: filled in", "backfilled", "how were existing posts copied into the new table"): a data
#: migration did it.
_BACKFILL = (r"(?:were|was)\s+(?:\w+\s+){0,6}?(?:filled\s+in|carried\s+over|backfilled|converted|"
             r"copied\s+over|moved\s+over|migrated)|backfill(?:s|ed|ing)?|"
             r"(?:were|was)\s+(?:all\s+)?(?:the\s+)?(?:existing|already\s+existing)\s+\w+")
#: Words of a question about the database's tables and columns that does not say
#: "migration": "which table stores ...", "the column remembering ...", "database change
#: that ...", "where in the database ...", and the history questions above.
_SCHEMA_WORDS = (r"(?:what|which)\s+tables?|tables?\s+(?:that\s+|which\s+)?(?:stores?|records?|"
                 r"holds?|keeps?|for)|columns?|(?:database|db)\s+(?:changes?|tables?|columns?|fields?)|"
                 rf"in\s+the\s+database|{_HISTORY}|{_BACKFILL}")
#: A question asking for one migration ("which migration added ...", "migration creating
#: the table for ...", "database change that ...", "where is the table for ... created",
#: "the SQL definition of the ... table") or for a date only migrations carry: the part's
#: files weigh more (``STRONG_WEIGHT``) than for a question that only names tables or
#: columns, which a model or the code using them may answer as well. A table is created
#: by a migration; an ORM's generated schema (diesel's ``schema.rs``) only mirrors it.
_ONE_MIGRATION = (r"which\s+(?:database\s+|db\s+|schema\s+)?migrations?|migrations?\s+(?:that|which|"
                  r"adding|added|creating|created|removing|dropping|renaming|changing|making)|"
                  r"tables?\b[^?.]{0,60}?\b(?:created|defined)|sql\s+(?:definition|schema)|"
                  rf"(?:database|db|schema)\s+changes?\s+(?:that|which)|{_HISTORY}|"
                  # "where is the (database) table for custom emojis created"
                  r"(?:tables?|columns?)\b[^?.]{0,80}?\b(?:created|added|dropped|renamed)\b")
#: A question about how migrations are run ("how are pending migrations applied when the
#: server starts") or about setting up a fresh install (which runs them, loads the initial
#: data and creates the first user): the code doing it answers it, not any one migration
#: or seeder (``prior_for_running``).
_RUNNING = re.compile(r"\b(?:migrations?\s+(?:are\s+|is\s+|get\s+|gets\s+)?(?:applied|run|executed)|"
                      r"(?:apply|applies|applying|run|runs|running|execute|executes|pending)\s+"
                      r"(?:the\s+)?(?:\w+\s+)?migrations|fresh\s+install(?:ation|s)?|"
                      r"(?:first[- ]time|initial)\s+setup)\b", re.IGNORECASE)

#: A question asking for an entity's fields ("what fields does a post have", "fields of a
#: post as stored in the database"): what they are now is its model's (``model_prior``),
#: whatever the migrations did on the way, so it names no migrations ("which migration
#: added the field" still asks for one). It names the models part when it says the fields
#: are stored ("in the database", "as stored"), not otherwise: "which fields does the
#: sign-up form show" asks for a form.
_FIELDS = r"(?:what|which)\s+fields|fields\s+(?:of|does|do|on)\b"
_FIELDS_WORDS = _words(_FIELDS)
_STORED_FIELDS = rf"(?:{_FIELDS})[^?]{{0,60}}?\b(?:database|db|stored|persisted|saved)"

#: Words of a question about a setting that does not say "setting": what happens "by
#: default", whether a feature is "turned on" / "switched off".
_SWITCH_WORDS = r"by\s+default|(?:turn|switch)(?:s|ed|ing)?\s+(?:on|off)"

#: Words of a question about a console command: "which command ...", "command that ...",
#: "from the command line", "in the terminal", "artisan", "management command", a CLI's
#: "subcommands" (clap's, cobra's word for them).
_COMMAND_WORDS = (r"command[- ]line|terminal|artisan|cli|sub-?commands?|"
                  r"(?:console|management|artisan|cli)\s+commands?|"
                  r"command\s+(?:that|to|which|for)|(?:which|what|a|the)\s+command(?!\s+palette)")
#: Work done "in the background", a "background job / task / worker / loop / sync".
_BACKGROUND = (r"in\s+the\s+background|background\s+(?:jobs?|tasks?|workers?|process(?:es|ing)?|"
               r"loops?|queues?|threads?|sync\w*)")
#: Words of a question about when work runs by itself: "how often", "every night",
#: "at what time of day", "scheduled", "nightly", "when are ... deleted" (not "periodically"
#: or "schedule": a page refreshing itself, a calendar's schedule view).
_SCHEDULE_WORDS = (r"how\s+often|scheduled|scheduler|scheduling|cron\w*|nightly|at\s+what\s+time|"
                   r"by\s+itself|every\s+(?:\d+\s+)?(?:nights?|days?|hours?|minutes?|weeks?|months?|"
                   r"mornings?)|(?:daily|hourly|weekly)\s+or\s+(?:daily|hourly|weekly|monthly)|"
                   r"when\s+(?:are|is|do|does)\s+[^?]{0,60}?\b(?:deleted|removed|purged|pruned|"
                   r"cleaned\s+up|sent|run|executed)\b")

PARTS = (
    # db/ and database/ also file seeders, factories and fixtures (Laravel's
    # database/factories, Rails' db/seeds.rb) and, in some layouts, the models
    # (src/db/models/): none is a migration.
    _part("migrations", rf"migrations?|schemas?|{_SCHEMA_WORDS}",
          "migration migrations migrate schema db database alembic",
          "factory factories seeder seeders seed seeds fixture fixtures model models "
          "openapi swagger graphql",  # an API's schema (openapi-schema.yml) is not the database's
          strong=_ONE_MIGRATION),
    # Rows an application ships in its tables: seeders, or data migrations (Django's
    # RunPython loading a CSV, a Laravel migration inserting defaults).
    _part("seeding", r"(?:tables?|columns?)\b[^?.]{0,40}\b(?:filled|populated|seeded|prefilled|"
                     r"pre-filled)|seed(?:ed|ing)?\s+(?:data|rows)|seeders?|initial\s+(?:data|rows)",
          "seed seeds seeder seeders seeding migration migrations"),
    # "the API that returns ...", "API to delete ...", "API for ..." (not "API keys",
    # "API requests per minute", "GitHub's API": those ask about a key, a limit, a client)
    _part("routes", r"routes?|routing|router|urls?|endpoints?|api(?=\s+(?:that|which|to|for)\b)",
          "route routes router routers routing urls urlconf"),
    # An entity's fields "in the database", "as stored": the model (``_STORED_FIELDS``).
    _part("models", rf"models?|{_STORED_FIELDS}", "model models entity entities"),
    # A console or management command is asked for as a command "that" does something,
    # one run "from the terminal"; "the command palette" of a front end is no command. Words
    # a question about the interface uses as well stay out: a "background" colour, a
    # click "listener" (``frontend_prior`` stands aside for any part named).
    _part("jobs", rf"jobs?|workers?|cron|scheduler|scheduled|queues?|queued|celery|{_BACKGROUND}|"
                  rf"receivers?|signal\s+handlers?|{_COMMAND_WORDS}",
          "job jobs worker workers cron scheduler schedule queue queues console commands tasks "
          "listeners celery signals cli",
          "config configs settings"),  # config/queue.php sets the queue up, it runs no job
    # Work run on a timer: only what registers it (``part_content``) or a scheduler's file.
    _part("schedules", _SCHEDULE_WORDS, "scheduler schedule schedules cron crontab"),
    # "setting up" an install is no setting. A CI service's configuration
    # (``.circleci/config.yml``, ``.gitlab/ci/config.yml``) builds and tests the
    # application: none of its settings.
    _part("config", r"config|configuration|configure[sd]?|settings?(?!\s+up\b)|env|environment variables?|"
                    rf"options?|{_SWITCH_WORDS}",
          "config configs configuration settings options env",
          "circleci ci workflows buildkite travis"),
    # "documentation for ...", "docs on ...", "the readme", "for new contributors": the
    # project's prose pages (``source_type = docs``: Markdown, MDX, reStructuredText, a
    # docs site's pages, README and CONTRIBUTING), wherever the docs site files them. An
    # API's documentation ("the swagger documentation of the API", "API docs") is a page
    # the application serves from its routes, not one of them.
    _part("docs", r"(?<!api\s)(?:docs|documentation)(?!\s+(?:of|for)\s+(?:the\s+|its\s+)?(?:rest\s+)?api\b)|"
                  r"documented|readme|contributors?|contributing", "", source_type="docs"),
)


def parts_named(query: str) -> list[Part]:
    """The parts whose words ``query`` uses (whole words, any case); not the migrations
    for a question asking for an entity's fields (``_FIELDS``) but not for one migration."""
    named = [part for part in PARTS if part.query.search(query)]
    if _FIELDS_WORDS.search(query) and not re.search(_ONE_MIGRATION, query, re.IGNORECASE):
        named = [part for part in named if part.name != "migrations"]
    return named


def path_words(path: str) -> set[str]:
    """Lowercase words of a path's folders and file name (extension dropped; snake_case,
    kebab-case and camelCase split): ``app/Console/Commands/SendMail.php`` -> app,
    console, commands, send, mail."""
    segments = path.replace("\\", "/").split("/")
    segments[-1] = segments[-1].split(".", 1)[0] if not segments[-1].startswith(".") \
        else segments[-1]
    words: set[str] = set()
    for segment in segments:
        for piece in re.split(r"[^A-Za-z0-9]+", segment):
            words.update(identifier_parts(piece))
    return words


def parts_inside(query: str, candidates: Sequence[SearchResult]) -> list[set[str]]:
    """Per part the query names that some candidate's path names: the ids of the
    candidates inside it (tests only when the query is about tests); none when no part
    applies."""
    return [inside for _, inside in _parts_holding(query, candidates)]


def _parts_holding(query: str, candidates: Sequence[SearchResult]) -> list[tuple[Part, set[str]]]:
    """``parts_inside`` with each set's part. Neither a test (unless the query is about
    tests) nor a data row (a CSV a data migration loads sits in ``migrations/``) is inside
    a part: they are what a part's code reads, not the part; nor a file only named like it
    (``part_lookalikes``: an application's own schedules, Laravel's schema dump)."""
    tests_count = asks_about_tests(query)
    found = []
    for part in parts_named(query):
        inside = {r.id for r in candidates if _is_inside(part, r)
                  and (tests_count or r.metadata.get("source_type") != "test")
                  and r.metadata.get("source_type") != "data"}
        if inside and part.name == "migrations" and part.strong and part.strong.search(query):
            inside = {r.id for r in candidates if r.id in inside and is_one_migration(r)} or inside
        if inside and part.name == "migrations" and _HISTORY_WORDS.search(query):
            inside |= {r.id for r in candidates if is_changelog(r)}
        inside = without_lookalikes(query, part.name, inside, candidates)
        if inside:
            found.append((part, inside))
    return found


def is_changelog(result: SearchResult) -> bool:
    """Whether a chunk is of a document listing the application's changes by release
    (``CHANGELOG.md``, ``CHANGES``, ``HISTORY.md``, ``NEWS``, ``RELEASE_NOTES.md``): it
    answers "when was ... added" as a migration does, and is never weighed down for it."""
    meta = result.metadata
    return meta.get("source_type") in ("docs", "text") \
        and file_stem(str(meta.get("path", ""))).replace("-", "_") in _CHANGELOGS


def prior_for_paths(query: str, candidates: Sequence[SearchResult],
                    weight: float | None = None) -> list[Factor]:
    """One factor per part the query names that some candidate's path names: ``weight``
    (default ``PATH_WEIGHT``; ``STRONG_WEIGHT`` when the query asks for one file of the
    part) for a candidate whose path does not name it, else 1 (none when no part
    applies). A question about how migrations are run, or a fresh install set up, gets
    ``prior_for_running`` instead of the migrations and seeding parts."""
    running = prior_for_running(query, candidates, weight)
    factors = []
    for part, inside in _parts_holding(query, candidates):
        if running and part.name in ("migrations", "seeding"):
            continue
        strong = part.strong is not None and part.strong.search(query) is not None
        own = weight if weight is not None else STRONG_WEIGHT if strong else PATH_WEIGHT
        factors.append(factor_outside(inside, own))
    return factors + running


def prior_for_running(query: str, candidates: Sequence[SearchResult],
                      weight: float | None = None) -> list[Factor]:
    """For a question about how migrations are run or a fresh install is set up
    (``_RUNNING``): ``weight`` (default ``PATH_WEIGHT``) for a migration itself
    (``is_one_migration``), so the code that runs them comes first; none for any other
    question, or when no candidate (or every candidate) is a migration."""
    if _RUNNING.search(query) is None:
        return []
    others = {r.id for r in candidates if not is_one_migration(r)}
    if not others or len(others) == len(candidates):
        return []
    return [factor_outside(others, PATH_WEIGHT if weight is None else weight)]


def is_one_migration(result: SearchResult) -> bool:
    """Whether a chunk is (part of) a migration rather than code running migrations: a
    file of ``source_type = migration``, or a chunk of a file named for migrations
    (``migrations.go``: a list of them) whose symbol does not name migrating
    (``run_migrations``, ``Migrate``) and that defines no command (a CLI's
    ``migration.rs`` defining ``migration run`` runs them)."""
    meta = result.metadata
    if meta.get("source_type") == "migration":
        return True
    symbol = str(meta.get("symbols") or meta.get("symbol") or "")
    return file_stem(str(meta.get("path", ""))) in ("migration", "migrations") \
        and "migrat" not in symbol.lower() and not holds_part("jobs", result.full_text or result.text, symbol)


def file_stem(path: str) -> str:
    """A file's name before its first dot, lowercase (``docs/CHANGELOG.md`` -> ``changelog``)."""
    return path.replace("\\", "/").rsplit("/", 1)[-1].split(".", 1)[0].lower()


def factor_outside(inside: set[str], weight: float) -> Factor:
    """1 for a candidate whose id is in ``inside``, else ``weight``."""
    def factor(result: SearchResult) -> float:
        return 1.0 if result.id in inside else weight
    return factor


def _is_inside(part: Part, result: SearchResult) -> bool:
    """Whether a candidate's path names ``part`` or its text says what the part's chunks
    say (``part_content``), or for a part of one source type (the docs) whether it is of
    that type; never a component or template, nor a chunk with no path."""
    path = result.metadata.get("path")
    if not path or result.metadata.get("language") in PRESENTATION \
            or result.metadata.get("interface") == "component":
        return False
    if part.source_type is not None:
        return result.metadata.get("source_type") == part.source_type
    if result.metadata.get("source_type") == "docs" and _EXAMPLES & path_words(str(path).rsplit("/", 1)[0]):
        return False  # an example's page: how to use the application with something else
    words = path_words(str(path))
    return (bool(part.path_words & words) and not part.unlike & words
            or holds_part(part.name, result.full_text or result.text,
                          str(result.metadata.get("symbols") or result.metadata.get("symbol") or "")))
