"""Embedding the next indexing window while the current one is written.

Windows are embedded one after another on one background thread, in the order they were
handed over, so the model never waits for the store, BM25 and manifest writes of the
window before. The caller still writes windows in order and hears each finished batch on
its own thread (progress callbacks never run on the embedding thread). After a window
fails or the caller closes the line, the windows queued behind it are not embedded.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Generic, TypeVar

from ragloom.embeddings.cache import EmbeddedTexts

Job = TypeVar("Job")
#: Embeds one job, calling the given function after each batch with the texts it computed.
EmbedJob = Callable[[Job, Callable[[int], None]], EmbeddedTexts]


class _Abandoned(Exception):
    """A window queued behind a failed one, or after the line was closed."""


@dataclass
class Embedding(Generic[Job]):
    """One job handed to the line: the job, its result, and its batches as they finish."""

    job: Job
    future: Future[EmbeddedTexts]
    batches: queue.SimpleQueue[int | None]  # None: no more batches
    ended: bool = False  # its None was read


class EmbedAhead(Generic[Job]):
    """A one-thread line of embedding jobs; use as a context manager."""

    def __init__(self, embed: EmbedJob[Job]) -> None:
        self._embed = embed
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ragloom-embed")
        self._closed = threading.Event()
        self._failed = False  # only the line's thread reads and writes it
        self._unfinished: list[Embedding[Job]] = []  # handed over, batches still to tell

    def __enter__(self) -> EmbedAhead[Job]:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def submit(self, job: Job) -> Embedding[Job]:
        """Queue ``job`` behind the ones handed over before."""
        batches: queue.SimpleQueue[int | None] = queue.SimpleQueue()
        embedding = Embedding(job, self._pool.submit(self._run, job, batches), batches)
        self._unfinished.append(embedding)
        return embedding

    def result(self, embedding: Embedding[Job], on_batch: Callable[[int], None]) -> EmbeddedTexts:
        """Wait for ``embedding``, telling ``on_batch`` about each batch (on this thread);
        raises what the embedding raised."""
        if not embedding.ended:
            for computed in iter(embedding.batches.get, None):
                on_batch(computed)
            embedding.ended = True
        return embedding.future.result()

    def drain(self, on_batch: Callable[[int], None]) -> None:
        """Tell ``on_batch`` (on this thread) about every batch finished so far, in order,
        without waiting: the progress line moves as the model computes, not only when a
        window is stored (``result`` tells the rest of its window)."""
        for embedding in self._unfinished:
            if not _tell_finished(embedding, on_batch):
                break  # the model is on this one: none behind it has finished a batch
        self._unfinished = [embedding for embedding in self._unfinished if not embedding.ended]

    def close(self) -> None:
        """Stop at the next batch and wait for the line's thread; queued jobs do not run."""
        self._closed.set()
        self._pool.shutdown(wait=True)

    def _run(self, job: Job, batches: queue.SimpleQueue[int | None]) -> EmbeddedTexts:
        def batch_done(computed: int) -> None:
            batches.put(computed)
            if self._closed.is_set():
                raise _Abandoned("indexing ended before this window was embedded")

        try:
            if self._failed:
                raise _Abandoned("a window before this one failed")
            if self._closed.is_set():
                raise _Abandoned("indexing ended before this window was embedded")
            return self._embed(job, batch_done)
        except BaseException:
            self._failed = True
            raise
        finally:
            batches.put(None)


def _tell_finished(embedding: Embedding[Job], on_batch: Callable[[int], None]) -> bool:
    """Tell the batches of ``embedding`` finished so far; True when it has ended."""
    while not embedding.ended:
        try:
            computed = embedding.batches.get_nowait()
        except queue.Empty:
            return False
        if computed is None:
            embedding.ended = True
        else:
            on_batch(computed)
    return True
