"""An indexed file's text for a reader outside the process (MCP resources, the inspector
page): only files the index holds, only inside base_dir (symlinks resolved), judged as the
directory walk judges them now, with secrets redacted as search redacts them."""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from ragloom.security import redact_secrets

if TYPE_CHECKING:
    from ragloom.engine import RAGEngine


class FileRefused(ValueError):
    """A file that is not served; ``reason`` is ``"outside"`` (leaves the project folder),
    ``"unknown"`` (not an indexed file) or ``"unreadable"`` (excluded now, or unreadable)."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


def confined(relative: str) -> str:
    """``relative`` itself, if it is a plain relative path (no ``..``, not absolute, no
    backslash or NUL); else FileRefused("outside")."""
    pure = PurePosixPath(relative)
    if (not relative or pure.is_absolute() or ".." in pure.parts or "\\" in relative
            or "\x00" in relative or Path(relative).is_absolute()):
        raise FileRefused(f"path {relative!r} is outside the project folder", "outside")
    return relative


def read_indexed_file(engine: RAGEngine, relative: str) -> str:
    """The text of an indexed file; anything not indexed, or outside base_dir, is refused."""
    from ragloom.indexing.reading import read_file
    from ragloom.readers import FileReaders, SkipFile

    if relative not in set(engine.get_all_indexed_paths()):
        raise FileRefused(f"{relative!r} is not an indexed file of this project", "unknown")
    target = (engine.base_dir / relative).resolve()
    if engine.base_dir.resolve() not in target.parents:
        raise FileRefused(f"{relative!r} is outside the project folder", "outside")
    # judged as the walk judges it now: a file swapped since indexing for a symlink to .env
    # (or become excluded or gitignored) is not served
    refusal = engine.excluded_reason(engine.base_dir / relative)
    if refusal is not None:
        raise FileRefused(f"{relative!r} is not served: {refusal}", "unreadable")
    try:
        text = read_file(target, relative, engine.config.max_file_bytes, FileReaders(engine.config)).text
    except SkipFile as skip:
        raise FileRefused(f"{relative!r} cannot be read: {skip}", "unreadable") from None
    return redact_secrets(text).text if engine.config.redact_secrets else text  # as search shows it
