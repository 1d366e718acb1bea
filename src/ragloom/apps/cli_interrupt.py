"""Ctrl-C during ``ragloom index``: the first one stops the run at the next safe point (the
windows written so far stay, nothing is half-written) and the CLI says what was kept, what
is pending and that running ``index`` again resumes; a second one stops at once."""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the indexer (and numpy) load when a command indexes
    from ragloom.indexing.indexer import IndexingStopped

#: The exit code of a command stopped by Ctrl-C: 128 + SIGINT, as shells report it.
EXIT_INTERRUPTED = 130
RESUME_HINT = ("run 'ragloom index' again to resume: files already written are skipped as "
               "unchanged and embeddings come from the cache")


@contextmanager
def stop_on_interrupt() -> Iterator[threading.Event]:
    """An event the first Ctrl-C sets (the run then stops at its next safe point); the
    handler before it is back for a second Ctrl-C and after the block."""
    stop = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield stop  # signal handlers can only be set from the main thread
        return

    def first_interrupt(signum: int, frame: object) -> None:
        stop.set()
        signal.signal(signal.SIGINT, previous)
        print("ragloom: stopping after the current step (Ctrl-C again to stop at once)",
              file=sys.stderr, flush=True)

    previous = signal.signal(signal.SIGINT, first_interrupt)
    try:
        yield stop
    finally:
        signal.signal(signal.SIGINT, previous)


def describe_stop(stopped: IndexingStopped) -> str:
    """``interrupted: kept 68 files (404 chunks); 1012 files pending; run ... to resume``."""
    report = stopped.report
    kept = (f"kept {report.files_indexed} files ({report.chunks_added} chunks) written before "
            f"the stop" if report is not None else "kept what was written before the stop")
    waiting = (f", {stopped.chunks_unembedded} chunks waiting for their vectors (BM25 finds them "
               f"meanwhile)" if stopped.chunks_unembedded else "")
    return f"interrupted: {kept}; {stopped.files_pending} files pending{waiting}; {RESUME_HINT}"
