"""Progress of one indexing run: files read, and chunks embedded out of chunks to embed."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ragloom.indexing.noise import LONG_LINE, long_lines_judge
from ragloom.readers.registry import FALLBACK, reader_name_for
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
    files remain unread, an estimate for them (``estimated`` is then True): chunks per byte
    times the bytes (sizes listed at discovery) not read yet. Chunks per byte are those of
    the files read so far, pulled towards a guess from the chunk window (``prior_density``)
    until ``PRIOR_BYTES`` are read, so a first file of 22 tests or one fixture does not set
    the total of a 2,700-file run; a file that will give no chunks (binary, minified:
    ``expected_bytes``) weighs nothing. Chunks whose text is in the embedding cache count as
    embedded as soon as their window is done.

    The rate (``chunks_per_second``, hence ``eta_seconds``) is the model's own: the chunks
    it computed over the seconds it spent on them (``ModelClock``), from its second batch
    on. Over the run's time it would count the model's loading and the files read while it
    waits for a window, and make the first estimates several times too long.
    """

    files_done: int
    files_total: int
    chunks_embedded: int
    chunks_to_embed: int
    estimated: bool
    elapsed_seconds: float
    #: Chunks the model computed after its first batch, and the seconds it spent on them.
    measured_chunks: int = 0
    measured_seconds: float = 0.0

    @property
    def finished(self) -> bool:
        """Every file read and every chunk embedded."""
        return (self.files_done == self.files_total and not self.estimated
                and self.chunks_embedded >= self.chunks_to_embed)

    @property
    def chunks_per_second(self) -> float:
        """The model's rate; before its second batch, chunks embedded over the run's time."""
        if self.measured_chunks > 0 and self.measured_seconds > 0:
            return self.measured_chunks / self.measured_seconds
        return self.chunks_embedded / self.elapsed_seconds if self.elapsed_seconds > 0 else 0.0

    @property
    def eta_seconds(self) -> float | None:
        """Seconds left at the model's rate; None until it is measured."""
        left = max(0, self.chunks_to_embed - self.chunks_embedded)
        if not left and not self.estimated:
            return 0.0
        if self.measured_chunks <= 0 or self.measured_seconds <= 0:
            return None
        return left / (self.measured_chunks / self.measured_seconds)


ProgressCallback = Callable[[IndexProgress], None]

#: Bytes of a file's start looked at to tell whether it will give chunks.
HEAD_BYTES = 8192
#: Bytes a file gives per chunk, as a share of the chunk window in characters: ten app
#: repositories gave 387-600 bytes a chunk at a 230-token window (bench/progress_estimate.py).
WINDOW_BYTES_SHARE = 0.55
#: How many bytes read the window's guess weighs as: until about this much is read, what
#: the first files gave only moves the estimate part of the way.
PRIOR_BYTES = 256 * 1024


def prior_density(window_characters: int) -> float:
    """Chunks per byte expected before any file is read, from the chunk window's size."""
    return 1.0 / (WINDOW_BYTES_SHARE * window_characters) if window_characters > 0 else 0.0


def expected_bytes(path: Path, relative: str, size: int) -> int:
    """What a file to read weighs in the estimate of chunks to embed: its size, or 0 when
    its first HEAD_BYTES show it will give none (a NUL byte: binary; a line over LONG_LINE
    in a file the long-lines rule judges: minified). An image or a compiled bundle listed
    at 1 MB would otherwise count as a thousand chunks (an app's ``public/``: 5.8 of 7.2 MB).
    A file with a reader of its own (a PDF, a notebook) weighs its size."""
    if reader_name_for(relative) != FALLBACK:
        return size
    try:
        with path.open("rb") as handle:
            head = handle.read(HEAD_BYTES)
    except OSError:
        return 0
    if b"\0" in head:
        return 0
    if long_lines_judge(relative, size) and max(map(len, head.split(b"\n"))) > LONG_LINE:
        return 0
    return size


class ModelClock:
    """The seconds the model spends on batches and the chunks it computes in them, told
    on the embedding thread: from the start of an embedding call (``start``) or the batch
    before to each batch (``batch``), never the time it waits for a window. The first
    batch of the run, which loads the model, is left out."""

    def __init__(self, clock: Callable[[], float] = time.perf_counter) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._since: float | None = None
        self._first = True
        self.chunks = 0
        self.seconds = 0.0

    def start(self) -> None:
        with self._lock:
            self._since = self._clock()

    def batch(self, chunks: int) -> None:
        with self._lock:
            now = self._clock()
            if self._since is not None and not self._first:
                self.chunks += chunks
                self.seconds += now - self._since
            self._first, self._since = False, now

    def measured(self) -> tuple[int, float]:
        with self._lock:
            return self.chunks, self.seconds


class ProgressTracker:
    """Counts what the indexer did and tells the callback (if any) after each step."""

    def __init__(self, callback: ProgressCallback | None, files_total: int, files_to_read: int,
                 files_done: int, bytes_to_read: int = 0, window_characters: int = 0,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        self._callback = callback
        self._clock = clock
        self._started = clock()
        #: Told by the embedding thread (``Indexer._embed``).
        self.model = ModelClock(clock)
        self.files_total = files_total
        self._to_read = files_to_read
        self._read = 0
        self.files_done = files_done
        self._chunks_read = 0
        self._bytes_to_read = bytes_to_read  # 0: unknown, estimate per file instead
        self._bytes_read = 0
        self._prior = prior_density(window_characters)  # 0: none, the files read alone
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

    def window_done(self, chunks: int, computed: int) -> None:
        """A window of ``chunks`` stored, ``computed`` of them by the model (told before
        through ``batch_embedded``); the batches of windows behind it still count."""
        self._chunks_finished += chunks
        self._embedded_in_window = max(0, self._embedded_in_window - computed)
        self._tell()

    def snapshot(self) -> IndexProgress:
        unread = self._to_read - self._read
        estimate = 0
        prior_bytes = PRIOR_BYTES if self._prior else 0
        if unread and self._bytes_to_read and self._bytes_read + prior_bytes:
            left = max(0, self._bytes_to_read - self._bytes_read)
            density = ((self._chunks_read + prior_bytes * self._prior)
                       / (self._bytes_read + prior_bytes))
            estimate = round(left * density)
        elif unread and self._read:
            estimate = round(unread * self._chunks_read / self._read)
        embedded = self._chunks_finished + self._embedded_in_window
        return IndexProgress(self.files_done, self.files_total, embedded,
                             max(embedded, self._chunks_read + self._waiting + estimate), unread > 0,
                             self._clock() - self._started, *self.model.measured())

    def _tell(self) -> None:
        if self._callback is not None:
            self._callback(self.snapshot())
