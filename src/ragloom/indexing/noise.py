"""Files an application's repository holds that nobody asks questions about: lock files,
minified and compiled assets, snapshots, vendored third-party code, rendered copies of
docs committed beside their sources, files reached again through a symlink, generated
one-line blobs, translation catalogs, SVG and PostScript images, generated stubs, editor
syntax definitions, nested license texts, dependency license listings, ignore lists,
hashed copies of assets, collected static folders, a Laravel app's runtime storage, AI
assistants' instruction folders, the reverse halves of SQL migrations and data dumps
committed as fixtures or seeds.

Each rule is one row of ``NOISE_RULES`` (docs/chunking.md prints the table). The config's
``skip_noise`` names the rules that apply (default: all; ``[]`` indexes everything,
``ragloom index --keep-noise`` for one run), and a file an ``include`` pattern names
(not a catch-all like ``**``) is indexed whatever the rules say. A skipped file is in the
index report and in ``ragloom status`` with the rule's reason.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path

from ragloom.chunking.registry import language_for_path
from ragloom.config import RAGConfig
from ragloom.globs import compile_glob

#: Folders AI coding assistants read their instructions and skills from.
AGENT_FOLDERS = (".agents", ".claude", ".codex", ".cursor", ".junie", ".windsurf", ".gemini",
                 ".kiro", ".roo", ".clinerules", ".continue", ".github/skills",
                 ".github/instructions", ".github/prompts", ".github/chatmodes")


@dataclass(frozen=True)
class NoiseRule:
    """Files matching ``globs`` (a glob without ``/`` matches the file name) are skipped
    with ``reason``; a rule without globs is checked in code (see its ``reason``)."""

    name: str
    reason: str
    globs: tuple[str, ...] = ()


NOISE_RULES: tuple[NoiseRule, ...] = (
    NoiseRule("lock-file", "lock file (rule lock-file)",
              ("*.lock", "package-lock.json", "npm-shrinkwrap.json", "pnpm-lock.yaml",
               "go.sum", "Package.resolved", "packages.lock.json", "gradle.lockfile")),
    NoiseRule("minified", "minified file (rule minified)", ("*.min.*", "*-min.js", "*.bundle.js")),
    NoiseRule("source-map", "source map (rule source-map)", ("*.js.map", "*.css.map", "*.mjs.map",
                                                           "*.cjs.map", "*.ts.map")),
    NoiseRule("build-output", "compiled assets (rule build-output)",
              ("**/public/build/**", "**/public/vendor/**", "**/public/hot", "**/dist/**",
               "build/**")),
    NoiseRule("snapshot", "test snapshot (rule snapshot)", ("**/__snapshots__/**", "*.snap")),
    # Third-party code committed into the tree: Rails' ``vendor/javascript``, Go's and
    # Composer's ``vendor/`` (at the top only), a front end's ``static/vendor/jquery.js``,
    # libraries copied into the web root (``public/libs/tinymce``, ASP.NET's ``wwwroot/lib``),
    # a theme's libraries under the web root (``public/themes/<theme>/vendor/ace``).
    NoiseRule("vendored", "vendored third-party code (rule vendored)",
              ("vendor/**", "**/static/vendor/**", "**/assets/vendor/**", "**/third_party/**",
               "**/bower_components/**", "**/js/vendor/**", "**/css/vendor/**",
               *(f"**/{root}/{folder}/**" for root in ("public", "static", "wwwroot")
                 for folder in ("lib", "libs", "*/**/vendor")))),
    NoiseRule("rendered-docs", "rendered copy of a document beside it (rule rendered-docs)"),
    NoiseRule("symlink-copy", "symlink to a file indexed under its own path (rule symlink-copy)"),
    NoiseRule("long-lines", "generated or minified: most of its text is in lines over 2,000 "
              "characters (rule long-lines)"),
    NoiseRule("translations", "translation catalog (rule translations)",
              ("*.po", "*.pot", "*.xlf", "*.xliff", *(f"**/{folder}/**/*.{suffix}"
               for folder in ("lang", "locale", "locales", "i18n", "l10n", "translations")
               for suffix in ("json", "yml", "yaml")),
              # Laravel's PHP catalogs (``lang/en/auth.php``, published ``lang/vendor/...``):
              # the labels of the features questions ask about, in every locale
              "**/lang/*/**/*.php")),
    NoiseRule("svg-image", "SVG image (rule svg-image)", ("*.svg",)),
    NoiseRule("postscript", "PostScript or Illustrator drawing (rule postscript)",
              ("*.eps", "*.ps", "*.ai")),
    NoiseRule("app-storage", "runtime files of a Laravel app: uploads, caches, logs under "
              "storage/app, storage/framework, storage/logs beside artisan (rule app-storage)"),
    # Files a tool writes and nobody edits: Laravel IDE Helper's stubs, protobuf output,
    # sqlx's offline query cache (each query of the source again, with its column types).
    NoiseRule("generated", "generated file (rule generated)",
              (".phpstorm.meta.php", "_ide_helper*.php", "*_pb2.py", "*_pb2_grpc.py", "*.pb.go",
               "**/.sqlx/query-*.json")),
    # A highlighter's grammars committed into the tree (Sublime Text / TextMate packages
    # that syntect or a docs site loads) and their syntax tests, one per language.
    NoiseRule("editor-syntax", "editor syntax definitions (rule editor-syntax)",
              ("*.sublime-*", "*.tmLanguage", "*.tmPreferences", "*.tmTheme", "*.YAML-tmLanguage",
               "*.YAML-tmPreferences", "syntax_test_*")),
    # The license of a font, a vendored library or a package below the top: the project's
    # own LICENSE stays (at the top), these copies only match words of questions.
    NoiseRule("nested-license", "license text below the top folder (rule nested-license)",
              ("*/**/*LICENSE*", "*/**/*LICENCE*", "*/**/COPYING*")),
    # The licenses of every dependency, listed by a tool (license-checker, Angular's
    # ``3rdpartylicenses.txt``, ``THIRD_PARTY_NOTICES``): package names, copyright lines and
    # license texts, thousands of lines whose words match questions about any feature.
    NoiseRule("dependency-licenses", "licenses of the dependencies (rule dependency-licenses)",
              tuple(f"*{sep}{name}{suffix}" for sep in ("-", "_") for name in ("licenses", "LICENSES")
                    for suffix in ("", ".txt", ".md")) + (
                  "3rdpartylicenses.txt", "THIRD_PARTY_NOTICES*", "THIRD-PARTY-NOTICES*",
                  "ThirdPartyNotices*")),
    # Lists of paths for git, docker, npm and linters, and placeholder files: nothing in
    # them answers a question, and their words (``database``, ``storage``) match many.
    NoiseRule("ignore-files", "ignore list or placeholder (rule ignore-files)",
              (".gitignore", ".gitattributes", ".gitkeep", ".keep", ".dockerignore", ".npmignore",
               ".prettierignore", ".eslintignore", ".stylelintignore", ".slugignore",
               ".vercelignore", ".gcloudignore")),
    NoiseRule("hashed-copy", "copy of an asset beside it under a content-hash name "
              "(rule hashed-copy)"),
    # Instructions and skills for AI coding assistants: mostly framework guidelines a tool
    # (Laravel Boost, rulers) writes into each assistant's folder, the same text many times.
    NoiseRule("agent-files", "AI-assistant instructions (rule agent-files)",
              tuple(f"**/{folder}/**" for folder in AGENT_FOLDERS)),
    NoiseRule("collected-static", "collected static files: a folder holding Django's "
              "staticfiles.json manifest (rule collected-static)"),
    NoiseRule("reverse-migration", "reverse of the SQL migration beside it "
              "(rule reverse-migration)"),
    NoiseRule("data-fixtures", "data dump: a JSON, YAML, XML or CSV file of 100 kB or more "
              "under a fixtures or seeds folder (rule data-fixtures)"),
)

RULE_NAMES = tuple(rule.name for rule in NOISE_RULES)
_BY_NAME = {rule.name: rule for rule in NOISE_RULES}
_COMPILED = {rule.name: [(glob, compile_glob(glob)) for glob in rule.globs] for rule in NOISE_RULES}

#: Rendered formats and the sources they are rendered from (``usage.html-fragment`` beside
#: ``usage.md``).
RENDERED_SUFFIXES = (".html-fragment", ".html", ".htm")
SOURCE_SUFFIXES = (".md", ".markdown", ".rst", ".txt", ".adoc")

#: The long-lines rule: lines longer than this, holding at least LONG_LINE_SHARE of a
#: file's characters, in a file of at least LONG_LINE_MIN_CHARS.
LONG_LINE = 2000
LONG_LINE_SHARE = 0.5
LONG_LINE_MIN_CHARS = 4000
#: Languages whose long lines are prose (an unwrapped paragraph), never checked.
PROSE_LANGUAGES = frozenset({"markdown", "rst", "text", "html"})
#: The data-fixtures rule: a data file of at least this many bytes in such a folder.
DATA_DUMP_MIN_BYTES = 100_000
_DATA_DUMP = re.compile(r"(^|/)(fixtures?|seeds?|seeders|seed[_-]data)/(.+/)?[^/]+\."
                        r"(json|jsonl|ndjson|ya?ml|xml|csv)$", re.IGNORECASE)


def noise_rules(config: RAGConfig) -> tuple[str, ...]:
    """The rules the config's ``skip_noise`` turns on (unset: all of them)."""
    return RULE_NAMES if config.skip_noise is None else tuple(config.skip_noise)


def reason(name: str) -> str:
    return _BY_NAME[name].reason


def path_noise(relative: str, rules: Collection[str]) -> str | None:
    """Why the glob rules in ``rules`` skip the file at ``relative`` (POSIX, from
    base_dir), or None."""
    file_name = relative.rsplit("/", 1)[-1]
    for rule in NOISE_RULES:
        if rule.name in rules:
            for glob, pattern in _COMPILED[rule.name]:
                if pattern.matches(relative if "/" in glob else file_name):
                    return rule.reason
    return None


def noise_of(relative: str, rules: Collection[str],
             names_beside: Callable[[], Collection[str]],
             markers: MarkerFiles | None = None) -> str | None:
    """Why a rule in ``rules`` skips the file at ``relative``: a glob rule, the
    rendered-docs or hashed-copy rule (``names_beside``: the names in its folder, listed
    only if asked), or the collected-static, app-storage or data-fixtures rule
    (``markers``: where the walk is)."""
    found = path_noise(relative, rules)
    name = relative.rsplit("/", 1)[-1]
    if found is None and "rendered-docs" in rules:
        if name.endswith(RENDERED_SUFFIXES) and rendered_copy(name, names_beside()):
            found = reason("rendered-docs")
    if found is None and "hashed-copy" in rules and _HASHED.match(name) \
            and hashed_copy(name, names_beside()):
        found = reason("hashed-copy")
    if found is None and "reverse-migration" in rules and name.lower().endswith(".sql") \
            and reverse_migration(name, names_beside()):
        found = reason("reverse-migration")
    if found is None and "collected-static" in rules and markers is not None \
            and markers.collected_static(relative):
        found = reason("collected-static")
    if found is None and "app-storage" in rules and markers is not None \
            and markers.laravel_storage(relative):
        found = reason("app-storage")
    if found is None and "data-fixtures" in rules and markers is not None \
            and data_dump(relative, lambda: markers.size(relative)):
        found = reason("data-fixtures")
    return found


#: Flyway's undo migration ``U3__add_events.sql`` (versioned: ``V3__add_events.sql``).
_UNDO = re.compile(r"^U(?P<rest>\d[^_]*__.+\.sql)$", re.IGNORECASE)


def reverse_migration(file_name: str, names_beside: Collection[str]) -> bool:
    """Whether ``file_name`` undoes the SQL migration beside it (``names_beside``): diesel's
    ``down.sql`` beside ``up.sql``, golang-migrate's and sqlx's ``3_events.down.sql``
    beside ``3_events.up.sql``, Flyway's ``U3__events.sql`` beside ``V3__events.sql``. It
    names the same tables and columns as its forward half (``DROP TABLE event``) and, a few
    words long, outranks it for every question about the change."""
    lower = file_name.lower()
    if lower == "down.sql":
        return any(name.lower() == "up.sql" for name in names_beside)
    if lower.endswith(".down.sql"):
        forward = lower[:-len(".down.sql")] + ".up.sql"
        return any(name.lower() == forward for name in names_beside)
    undo = _UNDO.match(file_name)
    return undo is not None and any(name.lower() == "v" + undo["rest"].lower() for name in names_beside)


#: ``app.7606a4559e55.js``: a name, a dot, a content hash of 8 to 32 hex digits, a suffix.
_HASHED = re.compile(r"^(?P<stem>.+)\.(?P<hash>[0-9a-f]{8,32})(?P<suffix>(\.[A-Za-z0-9]+)+)$")


def hashed_copy(file_name: str, names_beside: Collection[str]) -> bool:
    """Whether ``file_name`` is an asset under a content-hash name (Django's
    ``ManifestStaticFilesStorage``, Rails' and bundlers' fingerprints) whose plain name is
    in the same folder (``names_beside``): ``app.7606a4559e55.js`` beside ``app.js``."""
    match = _HASHED.match(file_name)
    if match is None or not any(c.isdigit() for c in match["hash"]):
        return False
    return match["stem"] + match["suffix"] in names_beside


#: Django's collectstatic writes this manifest at the top of STATIC_ROOT.
STATIC_MANIFEST = "staticfiles.json"
#: A Laravel application's root holds this console script; its runtime folders are these.
LARAVEL_MARKER = "artisan"
LARAVEL_RUNTIME = frozenset({"app", "framework", "logs"})


class MarkerFiles:
    """Which folders under ``base_dir`` hold a marker file (each folder asked once): a
    collectstatic manifest (everything below is a copy of the apps' and installed
    packages' assets, Django admin's jQuery) or Laravel's ``artisan`` (its
    ``storage/app``, ``storage/framework`` and ``storage/logs`` hold uploads, demo data,
    compiled views, caches and logs, not the project's source); and a file's size."""

    def __init__(self, base_dir: Path) -> None:
        self.base_dir = base_dir
        self._known: dict[tuple[str, str], bool] = {}

    def collected_static(self, relative: str) -> bool:
        """Whether the file at ``relative`` (POSIX, from base_dir) is below a folder
        holding STATIC_MANIFEST."""
        parts = relative.split("/")[:-1]
        return any(self._holds("/".join(parts[:depth]), STATIC_MANIFEST)
                   for depth in range(1, len(parts) + 1))

    def laravel_storage(self, relative: str) -> bool:
        """Whether the file at ``relative`` is below ``storage/<app|framework|logs>/`` of a
        folder holding LARAVEL_MARKER (the top, or a monorepo's ``backend/``)."""
        parts = relative.split("/")[:-1]
        return any(parts[depth] == "storage" and parts[depth + 1] in LARAVEL_RUNTIME
                   and self._holds("/".join(parts[:depth]), LARAVEL_MARKER)
                   for depth in range(len(parts) - 1))

    def size(self, relative: str) -> int:
        """The size in bytes of the file at ``relative`` (0 if it cannot be read)."""
        try:
            return (self.base_dir / relative).stat().st_size
        except OSError:
            return 0

    def _holds(self, folder: str, marker: str) -> bool:
        if (folder, marker) not in self._known:
            self._known[folder, marker] = (self.base_dir / folder / marker).is_file()
        return self._known[folder, marker]


def rendered_copy(file_name: str, names_beside: Collection[str]) -> bool:
    """Whether ``file_name`` is a rendered copy of a document in the same folder
    (``names_beside``: the names there)."""
    for suffix in RENDERED_SUFFIXES:
        if file_name.endswith(suffix):
            stem = file_name[:-len(suffix)]
            return any(stem + source in names_beside for source in SOURCE_SUFFIXES)
    return False


def long_lines_judge(relative: str, size: int) -> bool:
    """Whether the long-lines rule could catch the file at ``relative`` of ``size`` bytes
    on disk, before it is read: big enough and not prose by its extension."""
    return size >= LONG_LINE_MIN_CHARS and language_for_path(relative) not in PROSE_LANGUAGES


def mostly_long_lines(text: str, language: str | None) -> bool:
    """Whether ``text`` is a generated blob: at least half its characters in lines over
    LONG_LINE characters (a minified bundle, a one-line JSON icon set). Prose languages
    are never judged so: an unwrapped paragraph is a long line too."""
    if len(text) < LONG_LINE_MIN_CHARS or language in PROSE_LANGUAGES:
        return False
    long_chars = sum(len(line) for line in text.split("\n") if len(line) > LONG_LINE)
    return long_chars >= LONG_LINE_SHARE * len(text)


def data_dump(relative: str, size: Callable[[], int]) -> bool:
    """Whether the file at ``relative`` is a data dump: a JSON, YAML, XML or CSV file of
    at least DATA_DUMP_MIN_BYTES (``size``: its size, asked only for such a path) under a
    ``fixtures/`` or ``seeds/`` folder (Django's ``loaddata`` fixtures, Rails' and
    Laravel's seed data): rows a tool wrote, thousands of chunks of records (wger: 8,628
    of 14,716, most of its index time) that answer no question about the code loading
    them. A small fixture (a test's users) stays."""
    return _DATA_DUMP.search(relative) is not None and size() >= DATA_DUMP_MIN_BYTES


@dataclass
class LinkedCopies:
    """What a walk met of regular files (real paths) and file symlinks, to index a file
    reached through several paths once: under its own path, else the first symlink's."""

    real: set[str] = field(default_factory=set)
    linked: list[tuple[Path, str, str]] = field(default_factory=list)  # path, relative, target

    def copies(self) -> list[tuple[Path, str]]:
        """The symlinks (path, relative) whose target is indexed already, in walk order."""
        found = []
        for path, relative, target in self.linked:
            if target in self.real:
                found.append((path, relative))
            else:
                self.real.add(target)
        return found
