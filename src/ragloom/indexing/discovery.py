"""Which files of a tree get indexed: default excludes, secret files, include/exclude globs."""

from __future__ import annotations

import os
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from ragloom.config import RAGConfig
from ragloom.globs import matches_any
from ragloom.indexing.ignore import GitIgnore
from ragloom.indexing.noise import LinkedCopies, MarkerFiles, noise_of, noise_rules
from ragloom.indexing.noise import reason as noise_reason
from ragloom.indexing.secret_files import is_secret_file, secret_in_name
from ragloom.security import redact_secrets
from ragloom.types import SkippedFile

#: Version-control, virtual-environment, cache and editor folders: never indexed.
DEFAULT_EXCLUDED_DIRS = frozenset({
    ".git", ".hg", ".svn", ".bzr", ".venv", "venv", ".env", "env", "node_modules",
    "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".tox", ".nox",
    ".hypothesis", ".ipynb_checkpoints", ".idea", ".eggs", ".ragloom",
})

def _is_catch_all(pattern: str) -> bool:
    return not pattern.replace("*", "").replace("/", "").replace(".", "")


def named_by(relative_path: str, include: Iterable[str]) -> bool:
    """Whether an include pattern that is not a catch-all (``**``, ``*.*``) names the
    path: such a pattern brings back a file the default rules skip."""
    return matches_any(relative_path, [p for p in include if not _is_catch_all(p)])


@dataclass
class Discovery:
    """The files a walk found to index and the ones it passed over."""

    files: list[Path] = field(default_factory=list)
    skipped: list[SkippedFile] = field(default_factory=list)


@dataclass(frozen=True)
class Rules:
    """What the walk excludes, for checking one path outside a walk (a file named to
    ``index_file``/``rag_index``, the target of a symlink) by the walk's own rules."""

    base_dir: Path
    include: Sequence[str] = ()
    exclude: Sequence[str] = ()
    index_dir: Path | None = None
    respect_gitignore: bool = True
    config_files: Collection[str] = ()
    #: Skip files whose path holds a secret (off with ``redact_secrets = false``).
    secret_names: bool = True
    #: The noise rules that apply (``indexing.noise``; the config's ``skip_noise``).
    noise: Collection[str] = ()

    @classmethod
    def from_config(cls, config: RAGConfig, base_dir: Path) -> Rules:
        """The rules ``config`` sets for a project in ``base_dir`` (what the engine's indexer
        and ``ragloom status`` both walk by)."""
        config_files = [relative_posix(config.source_file, base_dir)] if config.source_file else []
        return cls(base_dir, list(config.include), list(config.exclude), base_dir / config.index_dir,
                   config.respect_gitignore, frozenset(config_files), config.redact_secrets,
                   noise_rules(config))

    def discover(self, root: Path, include: Sequence[str] | None = None,
                 exclude: Sequence[str] = ()) -> Discovery:
        """The walk of ``root`` by these rules (``include`` replacing, ``exclude`` adding to
        theirs)."""
        return discover_files(root, replace(self, include=self.include if include is None else include,
                                            exclude=[*self.exclude, *exclude]))

    def excluded(self, path: Path) -> str | None:
        """Why the walk would not index the file at ``path``, or None when it would. Every
        folder on the way down from base_dir is checked as the walk checks it; a symlink
        is judged by its own path and by its target's."""
        relative = self._relative(path)
        if relative is None:
            return "outside base_dir"
        reason, gitignore = self._folders_excluded(relative[:-1])
        reason = reason or self.file_excluded("/".join(relative), gitignore)
        real = Path(os.path.realpath(path))
        if reason is None and real != Path(os.path.abspath(path)):
            target = self._relative(real)
            if target is None:
                return "symlink points outside base_dir"
            reason, gitignore = self._folders_excluded(target[:-1])
            reason = reason or self.file_excluded("/".join(target), gitignore)
            if reason is not None:
                return f"symlink to {'/'.join(target)}: {reason}"
            if "symlink-copy" in self.noise and not named_by("/".join(relative), self.include):
                return noise_reason("symlink-copy")  # walking base_dir indexes the target
        return reason

    def folder_excluded(self, folder: Path) -> str | None:
        """Why the walk would not enter ``folder`` (or a folder above it), or None."""
        relative = self._relative(folder)
        return "outside base_dir" if relative is None else self._folders_excluded(relative)[0]

    def inside(self, path: Path) -> bool:
        """Whether ``path`` is base_dir or below it (after resolving, if need be)."""
        return self._relative(path) is not None

    def _relative(self, path: Path) -> tuple[str, ...] | None:
        base = self.base_dir.resolve()
        absolute = Path(os.path.abspath(path))
        if not absolute.is_relative_to(base):
            absolute = absolute.resolve()
        return absolute.relative_to(base).parts if absolute.is_relative_to(base) else None

    def _folders_excluded(self, parts: tuple[str, ...]) -> tuple[str | None, GitIgnore | None]:
        """The first of these nested folders the walk would not enter, with why; and the
        .gitignore rules that apply below the last one."""
        gitignore = GitIgnore() if self.respect_gitignore else None
        folder = self.base_dir.resolve()
        for depth, name in enumerate(parts):
            if gitignore is not None:
                gitignore.load(folder, "/".join(parts[:depth]))
            folder = folder / name
            relative = "/".join(parts[:depth + 1])
            if name in DEFAULT_EXCLUDED_DIRS or name.endswith(".egg-info"):
                return f"inside {relative}/ (excluded by default)", gitignore
            if matches_any(relative, self.exclude):
                return f"inside {relative}/ (matches exclude)", gitignore
            if gitignore is not None and gitignore.ignored(relative, True):
                return f"inside {relative}/ (ignored by .gitignore)", gitignore
            if self.index_dir is not None and folder.resolve() == self.index_dir.resolve():
                return f"inside {relative}/ (the index folder)", gitignore
        if gitignore is not None:
            gitignore.load(folder, "/".join(parts))
        return None, gitignore

    def file_excluded(self, relative: str, gitignore: GitIgnore | None) -> str | None:
        """The walk's rules for a file whose folders it entered."""
        if self.include and not matches_any(relative, self.include):
            return "not matched by include"
        if gitignore is not None and gitignore.ignored(relative, False):
            return "ignored by .gitignore"
        if matches_any(relative, self.exclude):
            return "matches exclude"
        named = [p for p in self.include if not _is_catch_all(p)]
        if is_secret_file(relative) and not matches_any(relative, named):
            return "secret file (excluded by default)"
        if relative in self.config_files and not matches_any(relative, named):
            return "the ragloom config file (may hold keys; excluded by default)"
        if self.secret_names and (kinds := secret_in_name(relative)):
            return f"its path holds a secret ({kinds})"
        if self.noise and not matches_any(relative, named):
            folder = self.base_dir / relative.rsplit("/", 1)[0] if "/" in relative else self.base_dir
            return noise_of(relative, self.noise, lambda: _names_in(folder), MarkerFiles(self.base_dir))
        return None


def discover_files(root: Path, rules: Rules) -> Discovery:
    """Walk ``root`` by ``rules`` without recursion (any depth) and without following folder
    symlinks. Paths are matched relative to their ``base_dir``; .gitignore files from
    base_dir down are honoured. Secret files and ``config_files`` (relative paths of the
    config the engine was loaded from, which may hold API keys) are skipped unless an
    include pattern names them. A file symlink is kept only when its target resolves inside base_dir to a file
    these same rules would index (``src/settings.txt -> ../.env`` is not). The ``noise``
    rules (``indexing.noise``) skip what nobody asks about, each file with the rule's
    reason, unless an include pattern names it; a symlink to a file indexed under its own
    path, or to one another symlink already reached, is skipped by ``symlink-copy``."""
    result = Discovery()
    base_dir, include, exclude, index_dir, noise = (rules.base_dir, rules.include, rules.exclude,
                                                    rules.index_dir, rules.noise)
    # A symlink's target is judged by these rules; symlink-copy is the walk's own business.
    rules = replace(rules, noise=tuple(rule for rule in noise if rule != "symlink-copy"))
    links, markers = LinkedCopies() if "symlink-copy" in noise else None, MarkerFiles(base_dir)
    named_secrets = [p for p in include if not _is_catch_all(p)]
    resolved_base = base_dir.resolve()
    resolved_index = index_dir.resolve() if index_dir is not None else None
    reason = rules.folder_excluded(root)  # rag_index {"path": ".git"} walks nothing
    if reason is not None and reason != "outside base_dir":  # other roots are walked as given
        result.skipped.append(SkippedFile(_printable(relative_posix(root, base_dir)), reason))
        return result
    gitignore = GitIgnore() if rules.respect_gitignore else None
    if gitignore is not None:
        for ancestor in reversed(root.resolve().parents):
            if ancestor.is_relative_to(resolved_base):
                gitignore.load(ancestor, _folder_key(ancestor, base_dir))
    stack = [root]
    while stack:
        folder = stack.pop()
        if gitignore is not None:
            gitignore.load(folder, _folder_key(folder, base_dir))
        try:
            entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
        except OSError as exc:
            result.skipped.append(SkippedFile(_printable(relative_posix(folder, base_dir)),
                                              f"cannot list folder: {exc.strerror or exc}"))
            continue
        subfolders = []
        names = {entry.name for entry in entries}
        real_folder = os.path.realpath(folder) if links is not None else ""
        for entry in entries:
            path = Path(entry.path)
            relative = relative_posix(path, base_dir)
            if not _is_utf8(entry.name):
                result.skipped.append(SkippedFile(_printable(relative), "file name is not valid UTF-8"))
                continue
            try:
                is_folder = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if is_folder:
                if not (entry.name in DEFAULT_EXCLUDED_DIRS or entry.name.endswith(".egg-info")
                        or matches_any(relative, exclude)
                        or (gitignore is not None and gitignore.ignored(relative, True))
                        or (resolved_index is not None and path.resolve() == resolved_index)):
                    subfolders.append(path)
                continue
            if include and not matches_any(relative, include):
                continue
            ignored = gitignore is not None and gitignore.ignored(relative, False)
            if ignored or matches_any(relative, exclude):
                continue
            if is_secret_file(relative) and not matches_any(relative, named_secrets):
                result.skipped.append(SkippedFile(relative, "secret file (excluded by default)"))
                continue
            if relative in rules.config_files and not matches_any(relative, named_secrets):
                result.skipped.append(SkippedFile(
                    relative, "the ragloom config file (may hold keys; excluded by default)"))
                continue
            if rules.secret_names and (kinds := secret_in_name(relative)):
                result.skipped.append(SkippedFile(redact_secrets(relative).text,
                                                  f"its path holds a secret ({kinds})"))
                continue
            if noise and not matches_any(relative, named_secrets):
                why = noise_of(relative, noise, lambda names=names: names, markers)
                if why is not None:
                    result.skipped.append(SkippedFile(relative, why))
                    continue
            if entry.is_symlink():
                reason = _symlink_problem(path, resolved_base, rules)
                if reason:
                    result.skipped.append(SkippedFile(relative, reason))
                    continue
                if links is not None and not matches_any(relative, named_secrets):
                    links.linked.append((path, relative, os.path.realpath(path)))
            elif not entry.is_file(follow_symlinks=False):
                continue  # sockets, fifos, devices
            elif links is not None:
                links.real.add(os.path.join(real_folder, entry.name))
            result.files.append(path)
        stack.extend(reversed(subfolders))
    copies = links.copies() if links is not None else []
    if copies:
        dropped = {path for path, _ in copies}
        result.files = [path for path in result.files if path not in dropped]
        result.skipped += [SkippedFile(relative, noise_reason("symlink-copy")) for _, relative in copies]
    return result


def _symlink_problem(path: Path, resolved_base: Path, rules: Rules) -> str | None:
    """Why a file symlink is not indexed: its target is judged by its own path."""
    try:
        target = path.resolve(strict=True)
    except (OSError, RuntimeError):
        return "broken or looping symlink"
    if not target.is_relative_to(resolved_base):
        return "symlink points outside base_dir"
    if not target.is_file():
        return "symlink to a folder (not followed)"
    return rules.excluded(path)


def _names_in(folder: Path) -> set[str]:
    try:
        return set(os.listdir(folder))
    except OSError:
        return set()


def _folder_key(folder: Path, base_dir: Path) -> str:
    key = relative_posix(folder, base_dir)
    return "" if key == "." else key


def _is_utf8(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _printable(path: str) -> str:
    """A path whose undecodable bytes are shown as escapes, safe to print and store."""
    return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def relative_posix(path: Path, base_dir: Path) -> str:
    """``path`` relative to ``base_dir`` in POSIX form, or absolute when outside it."""
    absolute, base = os.path.abspath(path), os.path.abspath(base_dir)
    if absolute == base:
        return "."
    inside = base.rstrip(os.sep) + os.sep  # string work: pathlib costs 35 µs a file here
    relative = absolute[len(inside):] if absolute.startswith(inside) else absolute
    return relative.replace(os.sep, "/")
