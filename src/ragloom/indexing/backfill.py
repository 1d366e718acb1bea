"""Progressive indexing, second step: embedding the chunks BM25 already holds.

The indexer writes each window of files to BM25 and the unembedded table first
(``JournaledWriter.write_sparse``) and calls ``pump`` after each: it keeps up to
IN_FLIGHT windows of waiting chunks on the embedding thread, in the order they were
written, and stores the vectors of those done (``write_vectors``) without waiting for
the model. ``finish`` waits for the rest, rows a stopped or crashed run left included.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence

from ragloom.embeddings.cache import EmbeddedTexts
from ragloom.indexing.embed_ahead import EmbedAhead, Embedding
from ragloom.indexing.progress import ProgressTracker
from ragloom.indexing.unembedded import Unembedded
from ragloom.indexing.writer import JournaledWriter
from ragloom.stores.base import DataRejectedError
from ragloom.types import Chunk, IndexReport

#: Windows of waiting chunks embedded (or queued) at once: one embedding, one next.
IN_FLIGHT = 2
#: At most this many chunks per window, so vectors land (and hybrid search covers them)
#: at least this often; a window's write costs little beside embedding it.
MAX_WINDOW_CHUNKS = 1024

Rows = list[tuple[int, Chunk]]
#: Told about a file whose chunks the store refused (its path, the reason).
OnRefused = Callable[[str, str], None]


class Backfill:
    """Feeds the unembedded table to an embedding line and stores what comes back."""

    def __init__(self, writer: JournaledWriter, line: EmbedAhead[Rows], report: IndexReport,
                 tracker: ProgressTracker, on_refused: OnRefused, first_window: int,
                 max_window: int) -> None:
        assert writer.unembedded is not None
        self.writer = writer
        self.unembedded: Unembedded = writer.unembedded
        self.line = line
        self.report = report
        self.tracker = tracker
        self.on_refused = on_refused
        self._max = min(max_window, MAX_WINDOW_CHUNKS)
        self._limit = min(first_window, self._max)
        self._last = 0  # seq of the last row handed to the line
        self._in_flight: deque[Embedding[Rows]] = deque()
        tracker.waiting(self.unembedded.count())  # left by an earlier run: embedded now too

    def pump(self) -> None:
        """Queue more, then store the windows embedded so far; never waits for the model.
        Queuing first keeps the model busy while the main thread writes vectors."""
        self._fill()
        while self._in_flight and self._in_flight[0].future.done():
            self._store(self._in_flight.popleft())
            self._fill()

    def finish(self) -> None:
        """Embed and store every waiting chunk."""
        self._fill()
        while self._in_flight:
            self._store(self._in_flight.popleft())
            self._fill()

    def _fill(self) -> None:
        while len(self._in_flight) < IN_FLIGHT:
            rows = self.unembedded.next_after(self._last, self._limit)
            if not rows:
                return
            self._last = rows[-1][0]
            self._limit = min(self._limit * 2, self._max)
            self._in_flight.append(self.line.submit(rows))

    def _store(self, embedding: Embedding[Rows]) -> None:
        embedded = self.line.result(embedding, self.tracker.batch_embedded)
        self._write(embedding.job, embedded)

    def _write(self, rows: Rows, embedded: EmbeddedTexts) -> None:
        """``write_vectors``; when the store refuses a value, file by file, and a file it
        refuses is dropped with its reason (``on_refused``)."""
        try:
            self.writer.write_vectors(rows, embedded, self.report, self.tracker)
            return
        except DataRejectedError as exc:
            paths = _by_path(rows)
            if len(paths) == 1:
                reason = f"the {self.writer.store.name} store cannot hold it: {exc}"
                self.on_refused(next(iter(paths)), reason)
                return
        for positions in paths.values():
            self._write([rows[i] for i in positions],
                        EmbeddedTexts(embedded.vectors[positions], 0))


def _by_path(rows: Sequence[tuple[int, Chunk]]) -> dict[str, list[int]]:
    """Row positions per file (or text source), in order."""
    paths: dict[str, list[int]] = {}
    for position, (_, chunk) in enumerate(rows):
        paths.setdefault(str(chunk.metadata.get("path", "")), []).append(position)
    return paths
