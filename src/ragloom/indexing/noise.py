"""Files an application's repository holds that nobody asks questions about: lock files,
minified and compiled assets, snapshots, rendered copies of docs committed beside their
sources, files reached again through a symlink, and generated one-line blobs.

Each rule is one row of ``NOISE_RULES`` (docs/chunking.md prints the table). The config's
``skip_noise`` names the rules that apply (default: all; ``[]`` indexes everything,
``ragloom index --keep-noise`` for one run), and a file an ``include`` pattern names
(not a catch-all like ``**``) is indexed whatever the rules say. A skipped file is in the
index report and in ``ragloom status`` with the rule's reason.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path

from ragloom.config import RAGConfig
from ragloom.globs import compile_glob


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
    NoiseRule("rendered-docs", "rendered copy of a document beside it (rule rendered-docs)"),
    NoiseRule("symlink-copy", "symlink to a file indexed under its own path (rule symlink-copy)"),
    NoiseRule("long-lines", "generated or minified: most of its text is in lines over 2,000 "
              "characters (rule long-lines)"),
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
             names_beside: Callable[[], Collection[str]]) -> str | None:
    """Why a rule in ``rules`` skips the file at ``relative``: a glob rule, or the
    rendered-docs rule (``names_beside``: the names in its folder, listed only if asked)."""
    found = path_noise(relative, rules)
    if found is None and "rendered-docs" in rules:
        name = relative.rsplit("/", 1)[-1]
        if name.endswith(RENDERED_SUFFIXES) and rendered_copy(name, names_beside()):
            found = reason("rendered-docs")
    return found


def rendered_copy(file_name: str, names_beside: Collection[str]) -> bool:
    """Whether ``file_name`` is a rendered copy of a document in the same folder
    (``names_beside``: the names there)."""
    for suffix in RENDERED_SUFFIXES:
        if file_name.endswith(suffix):
            stem = file_name[:-len(suffix)]
            return any(stem + source in names_beside for source in SOURCE_SUFFIXES)
    return False


def mostly_long_lines(text: str, language: str | None) -> bool:
    """Whether ``text`` is a generated blob: at least half its characters in lines over
    LONG_LINE characters (a minified bundle, a one-line JSON icon set). Prose languages
    are never judged so: an unwrapped paragraph is a long line too."""
    if len(text) < LONG_LINE_MIN_CHARS or language in PROSE_LANGUAGES:
        return False
    long_chars = sum(len(line) for line in text.split("\n") if len(line) > LONG_LINE)
    return long_chars >= LONG_LINE_SHARE * len(text)


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
