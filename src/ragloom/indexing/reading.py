"""Reading one file for indexing: size limit, binary detection, decoding, content hash."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

BINARY_SNIFF_BYTES = 8192
#: More replacement characters than this share of the text means "not text".
MAX_REPLACEMENT_SHARE = 0.01


class SkipFile(Exception):
    """This file is not indexed; the message says why."""


@dataclass(frozen=True)
class FileContent:
    """A file's decoded text plus what identifies its version."""

    text: str
    size: int
    mtime_ns: int
    sha256: str
    warning: str | None = None


def read_text_file(path: Path, max_bytes: int) -> FileContent:
    """Read and decode ``path`` as UTF-8 text, or raise SkipFile saying why it is not text."""
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
    if b"\x00" in data[:BINARY_SNIFF_BYTES]:
        raise SkipFile("binary file (NUL bytes)")
    warning = None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("utf-8", errors="replace")
        replaced = text.count("\ufffd")
        if replaced > max(1, len(text) * MAX_REPLACEMENT_SHARE):
            raise SkipFile("not UTF-8 text") from None
        warning = f"invalid UTF-8 replaced by U+FFFD in {replaced} place(s)"
    if "\x00" in text:
        text = text.replace("\x00", "")
        warning = "NUL characters removed"
    return FileContent(text=text, size=len(data), mtime_ns=stat.st_mtime_ns,
                       sha256=hashlib.sha256(data).hexdigest(), warning=warning)
