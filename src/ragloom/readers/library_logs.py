"""What a third-party library logs while ragloom reads one file, kept for that file's
reader warning instead of going to stderr.

pypdf logs every robustness fix on a malformed PDF ("incorrect startxref pointer(1)",
"parsing for Object Streams") through Python logging; an application without logging set
up gets each one on stderr from the last-resort handler, on every read. While a reader
collects (``collecting``), records of that library logged by the same thread are kept
for the reader's warning; records of other threads go where they always went (the
library's logger hands them on to the root logger's handlers, as propagation would).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_local = threading.local()
_installed: set[str] = set()
_install_lock = threading.Lock()


class _Collector(logging.Handler):
    """Keeps the warnings of a thread that collects; hands the rest on to the root."""

    def emit(self, record: logging.LogRecord) -> None:
        kept: list[str] | None = getattr(_local, "messages", None)
        if kept is not None and record.levelno >= logging.WARNING:
            kept.append(record.getMessage().strip())
        else:  # another thread's, or a debug record: where propagation would take it
            logging.getLogger().callHandlers(record)


def _install(library: str) -> None:
    with _install_lock:
        if library not in _installed:
            logger = logging.getLogger(library)
            logger.addHandler(_Collector())
            logger.propagate = False  # the collector propagates what it does not keep
            _installed.add(library)


@contextmanager
def collecting(library: str) -> Iterator[list[str]]:
    """The warnings ``library`` logs in this thread inside the block, in order."""
    _install(library)
    messages: list[str] = []
    outer = getattr(_local, "messages", None)
    _local.messages = messages
    try:
        yield messages
    finally:
        _local.messages = outer


def summary(messages: list[str], shown: int = 3) -> str | None:
    """``first; second; third (+2 more)``: distinct messages, None when there are none."""
    distinct = list(dict.fromkeys(m for m in messages if m))
    if not distinct:
        return None
    more = f" (+{len(distinct) - shown} more)" if len(distinct) > shown else ""
    return "; ".join(distinct[:shown]) + more
