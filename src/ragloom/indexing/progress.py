"""Progress of one indexing run: files read, and chunks embedded out of chunks to embed."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from ragloom.types import IndexReport


class IndexingStopped(Exception):
    """An indexing run stopped on request at a point where the index is consistent: every
    window written before is complete, the one in progress was not journaled.

    From ``index_directory``: ``report`` holds what was written (files and chunks),
    ``files_pending`` what the next run will index or remove (it resumes there) and
    ``chunks_unembedded`` the chunks in BM25 still waiting for their vectors (the next run
    embeds them first)."""

    def __init__(self, message: str, report: IndexReport | None = None,
                 files_pending: int = 0, chunks_unembedded: int = 0) -> None:
        super().__init__(message)
        self.report = report
        self.files_pending = files_pending
        self.chunks_unembedded = chunks_unembedded


@dataclass(frozen=True)
class IndexProgress:
    """A snapshot handed to the ``progress`` callback of ``index_directory``.

    ``chunks_to_embed`` counts the chunks of the changed files read so far plus, while
    files remain unread, an estimate for them (``estimated`` is then True): the chunks per
    byte read so far times the bytes (sizes listed at discovery) not read yet, so a first
    file of 22 tests does not make a 2,700-file run look 100 times longer than it is. Chunks whose
    text is in the embedding cache count as embedded as soon as their window is done.
    """

    files_done: int
    files_total: int
    chunks_embedded: int
    chunks_to_embed: int
    estimated: bool
    elapsed_seconds: float

    @property
    def finished(self) -> bool:
        """Every file read and every chunk embedded."""
        return (self.files_done == self.files_total and not self.estimated
                and self.chunks_embedded >= self.chunks_to_embed)

    @property
    def chunks_per_second(self) -> float:
        return self.chunks_embedded / self.elapsed_seconds if self.elapsed_seconds > 0 else 0.0

    @property
    def eta_seconds(self) -> float | None:
        """Seconds left at the rate so far; None before the first chunk is embedded."""
        rate = self.chunks_per_second
        if rate <= 0:
            return None
        return max(0, self.chunks_to_embed - self.chunks_embedded) / rate


ProgressCallback = Callable[[IndexProgress], None]


class ProgressTracker:
    """Counts what the indexer did and tells the callback (if any) after each step."""

    def __init__(self, callback: ProgressCallback | None, files_total: int, files_to_read: int,
                 files_done: int, bytes_to_read: int = 0) -> None:
        self._callback = callback
        self._started = time.perf_counter()
        self.files_total = files_total
        self._to_read = files_to_read
        self._read = 0
        self.files_done = files_done
        self._chunks_read = 0
        self._bytes_to_read = bytes_to_read  # 0: unknown, estimate per file instead
        self._bytes_read = 0
        self._chunks_finished = 0  # chunks of windows that are done (cached ones included)
        self._embedded_in_window = 0
        self._waiting = 0  # chunks an earlier run left waiting for their vectors

    def waiting(self, chunks: int) -> None:
        """Chunks written to BM25 by an earlier run and waiting for their vectors: this run
        embeds them too."""
        self._waiting = chunks

    def file_read(self, chunks: int, size: int = 0) -> None:
        """One file read (``size`` bytes on disk, as listed) and chunked into ``chunks``."""
        self._read += 1
        self._bytes_read += size
        self.files_done += 1
        self._chunks_read += chunks
        self._tell()

    def batch_embedded(self, chunks: int) -> None:
        self._embedded_in_window += chunks
        self._tell()

    def window_done(self, chunks: int) -> None:
        self._chunks_finished += chunks
        self._embedded_in_window = 0
        self._tell()

    def snapshot(self) -> IndexProgress:
        unread = self._to_read - self._read
        estimate = 0
        if unread and self._bytes_to_read and self._bytes_read:
            left = max(0, self._bytes_to_read - self._bytes_read)
            estimate = round(left * self._chunks_read / self._bytes_read)
        elif unread and self._read:
            estimate = round(unread * self._chunks_read / self._read)
        embedded = self._chunks_finished + self._embedded_in_window
        return IndexProgress(self.files_done, self.files_total, embedded,
                             max(embedded, self._chunks_read + self._waiting + estimate), unread > 0,
                             time.perf_counter() - self._started)

    def _tell(self) -> None:
        if self._callback is not None:
            self._callback(self.snapshot())
