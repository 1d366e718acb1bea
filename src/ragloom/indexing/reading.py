"""Reading one file for indexing: size limit, bytes, content hash, then the file's reader."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from ragloom.readers.base import SkipFile, TextSpan
from ragloom.readers.registry import FileReaders
from ragloom.security import redact_secrets

__all__ = ["FileContent", "SkipFile", "read_file", "redacted"]


@dataclass(frozen=True)
class FileContent:
    """A file's text as its reader made it, plus what identifies the file's version."""

    text: str
    size: int
    mtime_ns: int
    sha256: str
    warning: str | None = None
    spans: tuple[TextSpan, ...] = ()
    language: str | None = None


def read_file(path: Path, relative: str, max_bytes: int, readers: FileReaders) -> FileContent:
    """Read ``path`` with the reader registered for it, or raise SkipFile saying why not.
    Binary detection is the ``text`` reader's job, so a reader can claim a binary format."""
    try:
        stat = path.stat()
        if stat.st_size > max_bytes:
            raise SkipFile(f"larger than max_file_bytes ({stat.st_size} > {max_bytes} bytes)")
        with path.open("rb") as handle:
            data = handle.read(max_bytes + 1)
    except SkipFile:
        raise
    except OSError as exc:
        raise SkipFile(f"cannot read: {exc.strerror or exc}") from None
    if len(data) > max_bytes:
        raise SkipFile(f"larger than max_file_bytes ({max_bytes} bytes)")
    reader = readers.for_path(relative)
    try:
        read = reader.read(relative, data)
    except SkipFile:
        raise
    except Exception as exc:  # a reader's failure on one file must not stop the run
        # a parser's message may quote the file (a YAML line with a password): redacted
        message = redact_secrets(f"{type(exc).__name__}: {exc}").text
        raise SkipFile(f"{type(reader).__name__} failed: {message}") from None
    warning = redact_secrets(read.warning).text if read.warning else read.warning
    return FileContent(text=read.text, size=len(data), mtime_ns=stat.st_mtime_ns,
                       sha256=hashlib.sha256(data).hexdigest(), warning=warning,
                       spans=read.spans, language=read.language)


def redacted(text: str, source: str, warnings: list[str] | None, enabled: bool = True) -> str:
    """``text`` with secrets replaced by placeholders before it is chunked, embedded or
    BM25-indexed; a warning in ``warnings`` names the kinds found (values never)."""
    if not enabled:
        return text
    redaction = redact_secrets(text)
    if redaction.count and warnings is not None:
        kinds = ", ".join(f"{n} {kind}" for kind, n in sorted(redaction.kinds.items()))
        warnings.append(f"{source}: redacted {redaction.count} secret(s) ({kinds})")
    return redaction.text
