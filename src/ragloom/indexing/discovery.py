"""Which files of a tree get indexed: default excludes, secret files, include/exclude globs."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ragloom.stores.filters import glob_regex
from ragloom.types import SkippedFile

#: Version-control, virtual-environment, cache and editor folders: never indexed.
DEFAULT_EXCLUDED_DIRS = frozenset({
    ".git", ".hg", ".svn", ".bzr", ".venv", "venv", ".env", "env", "node_modules",
    "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".tox", ".nox",
    ".hypothesis", ".ipynb_checkpoints", ".idea", ".eggs", ".ragloom",
})

#: Files that commonly hold credentials: skipped unless an include pattern names them.
SECRET_FILE_PATTERNS = (
    ".env", ".env.*", "*.env", "*.pem", "*.key", "*.p12", "*.pfx", "*.keystore", "*.jks",
    "id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*", ".netrc", ".pgpass", ".htpasswd",
    "credentials", "credentials.*", "*credentials*.json", "secrets.*", ".npmrc", ".pypirc",
)


def matches_any(relative_path: str, patterns: Iterable[str]) -> bool:
    """Whether a POSIX relative path matches a glob; a pattern without ``/`` also
    matches the bare file name (as in .gitignore)."""
    name = relative_path.rsplit("/", 1)[-1]
    for pattern in patterns:
        target = relative_path if "/" in pattern.rstrip("/") else name
        if glob_regex(pattern.rstrip("/")).fullmatch(target):
            return True
    return False


def is_secret_file(relative_path: str) -> bool:
    return matches_any(relative_path, SECRET_FILE_PATTERNS)


def _is_catch_all(pattern: str) -> bool:
    return not pattern.replace("*", "").replace("/", "").replace(".", "")


@dataclass
class Discovery:
    """The files a walk found to index and the ones it passed over."""

    files: list[Path] = field(default_factory=list)
    skipped: list[SkippedFile] = field(default_factory=list)


def discover_files(root: Path, base_dir: Path, include: Sequence[str] = (),
                   exclude: Sequence[str] = (), index_dir: Path | None = None) -> Discovery:
    """Walk ``root`` (relative paths are matched against ``base_dir``) without following
    directory symlinks; symlinked files are kept only when they resolve inside base_dir."""
    result = Discovery()
    named_secrets = [p for p in include if not _is_catch_all(p)]
    resolved_base = base_dir.resolve()
    resolved_index = index_dir.resolve() if index_dir is not None else None
    for folder, dirnames, filenames in os.walk(root, followlinks=False):
        folder_path = Path(folder)
        kept_dirs = []
        for dirname in sorted(dirnames):
            child = folder_path / dirname
            relative = relative_posix(child, base_dir)
            if (dirname in DEFAULT_EXCLUDED_DIRS or dirname.endswith(".egg-info")
                    or matches_any(relative, exclude)
                    or (resolved_index is not None and child.resolve() == resolved_index)):
                continue
            kept_dirs.append(dirname)
        dirnames[:] = kept_dirs
        for filename in sorted(filenames):
            path = folder_path / filename
            relative = relative_posix(path, base_dir)
            if include and not matches_any(relative, include):
                continue
            if matches_any(relative, exclude):
                continue
            if is_secret_file(relative) and not matches_any(relative, named_secrets):
                result.skipped.append(SkippedFile(relative, "secret file (excluded by default)"))
                continue
            if path.is_symlink():
                try:
                    target = path.resolve(strict=True)
                except (OSError, RuntimeError):
                    result.skipped.append(SkippedFile(relative, "broken or looping symlink"))
                    continue
                if not target.is_relative_to(resolved_base):
                    result.skipped.append(SkippedFile(relative, "symlink points outside base_dir"))
                    continue
            result.files.append(path)
    return result


def relative_posix(path: Path, base_dir: Path) -> str:
    """``path`` relative to ``base_dir`` in POSIX form, or absolute when outside it."""
    absolute = Path(os.path.abspath(path))
    try:
        return absolute.relative_to(Path(os.path.abspath(base_dir))).as_posix()
    except ValueError:
        return absolute.as_posix()
