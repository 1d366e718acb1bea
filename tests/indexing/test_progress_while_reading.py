"""The progress line while files are still being read: the model starts on the first
window before the last file is read, and the chunks it finished are counted at once, not
when their window is stored (which waits for the window's last batch)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest

from helpers import hash_config, write
from ragloom import RAGEngine
from ragloom.embeddings.base import EmbeddingTask
from ragloom.embeddings.hashing import HashEmbeddingProvider
from ragloom.indexing.progress import IndexProgress, ProgressTracker


class SecondCallHeld(HashEmbeddingProvider):
    """Hash vectors, two texts per model call; the second document call waits (``second``
    set) until ``release`` is set."""

    max_texts_per_call: ClassVar[int] = 2

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0
        self.second = threading.Event()
        self.release = threading.Event()

    def _embed_batch(self, texts: list[str], task: EmbeddingTask) -> np.ndarray:
        if task == "document":
            self.calls += 1
            if self.calls == 2:
                self.second.set()
                assert self.release.wait(60), "the test never released the model"
        return super()._embed_batch(texts, task)


@pytest.mark.parametrize("progressive", [True, False])
def test_chunks_the_model_finished_count_while_files_are_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, progressive: bool) -> None:
    import ragloom.indexing.indexer as indexer

    monkeypatch.setattr(indexer, "FIRST_WINDOW_CHUNKS", 4)
    monkeypatch.setattr(indexer, "EMBED_WINDOW_CHUNKS", 4)  # windows of 4 one-chunk files
    for index in range(20):
        write(tmp_path, f"notes/n{index:02}.md", f"# Note {index}\nrib number {index} of the wing\n")
    provider = SecondCallHeld()
    seen: list[IndexProgress] = []
    model_working: list[bool] = []
    shown: list[int] = []  # chunks embedded as file 6 is read, the model held in its 2nd call

    def progress(snapshot: IndexProgress) -> None:
        seen.append(snapshot)
        if snapshot.files_done == 5 and not model_working:  # files 1-4 were handed over
            model_working.append(provider.second.wait(60))  # its second call: the first is done
        if snapshot.files_done == 6 and not shown:
            shown.append(snapshot.chunks_embedded)
            provider.release.set()

    config = hash_config(progressive_indexing=progressive)
    with RAGEngine(config, tmp_path, embedding_provider=provider) as engine:
        report = engine.index_directory(progress=progress)
    assert model_working == [True]  # the model started before file 5 of 20 was read
    assert shown == [2]  # its first call, counted though its window is not done
    embedded = [s.chunks_embedded for s in seen]
    assert embedded == sorted(embedded) and embedded[-1] == 20 == report.chunks_embedded
    assert seen[-1].finished


def test_a_window_stored_leaves_the_batches_of_the_next_one_counted() -> None:
    tracker = ProgressTracker(None, 10, 10, 0)
    tracker.batch_embedded(3)  # the first window's model batches
    tracker.batch_embedded(1)
    tracker.batch_embedded(2)  # the next window's first batch, told before the first is stored
    tracker.window_done(5, 4)  # 5 chunks stored, 4 of them computed (1 from the cache)
    assert tracker.snapshot().chunks_embedded == 7
    tracker.window_done(2, 2)
    assert tracker.snapshot().chunks_embedded == 7
