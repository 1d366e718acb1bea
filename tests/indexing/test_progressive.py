"""Progressive indexing: BM25 first, vectors filled in behind (``indexing.backfill``).

Searches during a run (in the writer's process and in a reader opened beside it) answer
from BM25 for chunks not embedded yet and hybrid once their vectors are stored; ``status``
says how much is dense-searchable; a stopped run's leftovers are embedded by the next run
and nothing is embedded twice."""

from __future__ import annotations

import io
import threading
from pathlib import Path

import numpy as np
import pytest

from helpers import hash_config, write
from ragloom import RAGEngine
from ragloom.apps.status_view import print_status
from ragloom.embeddings.base import EmbeddingTask
from ragloom.embeddings.hashing import HashEmbeddingProvider
from ragloom.indexing.disk_status import read_status
from ragloom.indexing.indexer import IndexingStopped
from ragloom.types import Chunk

TOPICS = ["glider wing lift", "propeller pitch control", "landing gear retraction",
          "altimeter calibration", "fuel pump priming", "rudder trim tab"]


class HeldDocuments(HashEmbeddingProvider):
    """Hash vectors; document embedding waits (``started`` set) until ``release`` is set."""

    def __init__(self) -> None:
        super().__init__()
        self.started = threading.Event()
        self.release = threading.Event()
        self.documents = 0

    def _embed_batch(self, texts: list[str], task: EmbeddingTask) -> np.ndarray:
        if task == "document":
            self.started.set()
            assert self.release.wait(60), "the test never released the embedding"
            self.documents += len(texts)
        return super()._embed_batch(texts, task)


def make_tree(root: Path) -> None:
    for index, topic in enumerate(TOPICS):
        write(root, f"docs/t{index}.md", f"# Topic {index}\n\nNotes on {topic} for pilots.\n")


def _index_in_background(engine: RAGEngine) -> tuple[threading.Thread, list[object]]:
    outcome: list[object] = []
    thread = threading.Thread(target=lambda: outcome.append(engine.index_directory()))
    thread.start()
    return thread, outcome


@pytest.mark.parametrize("store", ["memory", "turboquant", "chroma"])
def test_a_search_during_a_run_answers_from_bm25_then_hybrid(tmp_path: Path, store: str) -> None:
    if store == "chroma":
        pytest.importorskip("chromadb")
    make_tree(tmp_path)
    provider = HeldDocuments()
    config = hash_config(vector_store={"provider": store})
    with RAGEngine(config, tmp_path, embedding_provider=provider) as engine:
        thread, outcome = _index_in_background(engine)
        assert provider.started.wait(60)  # one window: every file is in BM25, none embedded
        try:
            during = engine.search("landing gear retraction", top_k=3)
            status = engine.status(count_pending=False)
            stored = engine.count()
        finally:
            provider.release.set()
            thread.join(60)
        assert during[0].path == "docs/t2.md" and stored == 0
        assert during[0].score == 0.0 and set(during[0].retrievers) == {"sparse"}  # no vector yet
        assert (status.files, status.chunks, status.chunks_unembedded) == (6, 6, 6)
        after = engine.search("landing gear retraction", top_k=3)
        assert after[0].path == "docs/t2.md" and {"dense", "sparse"} <= set(after[0].retrievers)
        assert after[0].score > 0.0  # its cosine, now that its vector is stored
        assert engine.status(count_pending=False).chunks_unembedded == 0 and engine.verify().ok
        assert outcome and provider.documents == 6


def test_a_reader_beside_the_writer_searches_the_chunks_not_embedded_yet(tmp_path: Path) -> None:
    make_tree(tmp_path)
    provider = HeldDocuments()
    config = hash_config(vector_store={"provider": "turboquant"})
    with RAGEngine(config, tmp_path, embedding_provider=provider) as engine:
        thread, _ = _index_in_background(engine)
        assert provider.started.wait(60)
        try:
            with RAGEngine(config, tmp_path, read_only=True) as reader:
                found = reader.search("which fuel pump priming steps", top_k=2)
                assert reader.verify().ok  # BM25 = stored + waiting chunks
            # the writer's next window: its rows are in, its BM25 segment not yet durable
            engine._indexer.writer.unembedded.replace({"docs/next.md": [Chunk("next-0", "rudder cables")]})
            with RAGEngine(config, tmp_path, read_only=True) as reader:
                assert len(reader.sparse) == 6  # its snapshot as loaded, not rebuilt from store + rows
            engine._indexer.writer.unembedded.replace({"docs/next.md": []})
            on_disk = read_status(config, tmp_path, count_pending=False)  # ``ragloom status``
        finally:
            provider.release.set()
            thread.join(60)
    assert found[0].path == "docs/t4.md" and found[0].score == 0.0
    assert on_disk is not None and (on_disk.chunks, on_disk.chunks_unembedded) == (6, 6)
    shown = io.StringIO()
    print_status(on_disk, None, False, shown)
    assert "dense-searchable: 0/6 chunks" in shown.getvalue()
    with RAGEngine(config, tmp_path, read_only=True) as reader:
        assert "dense" in reader.search("which fuel pump priming steps", top_k=1)[0].retrievers
    finished = read_status(config, tmp_path, count_pending=False)
    assert finished is not None and finished.chunks_unembedded == 0
    shown = io.StringIO()
    print_status(finished, None, False, shown)
    assert "dense-searchable" not in shown.getvalue()


def test_the_relevance_gate_lets_words_decide_for_chunks_without_vectors(tmp_path: Path) -> None:
    make_tree(tmp_path)
    provider = HeldDocuments()
    with RAGEngine(hash_config(relevance_gate=0.9), tmp_path, embedding_provider=provider) as engine:
        thread, _ = _index_in_background(engine)
        assert provider.started.wait(60)
        try:
            asked = engine.search("altimeter calibration", top_k=1)
            small_talk = engine.search_detailed("tell me a joke about altimeter", top_k=1)
        finally:
            provider.release.set()
            thread.join(60)
    assert asked[0].path == "docs/t3.md"  # both words held by a chunk with no cosine yet
    assert small_talk.results == [] and small_talk.gated  # one shared word is not evidence


class CountingStopper(HashEmbeddingProvider):
    """Hash vectors; counts every document text embedded and, once, asks the run to stop
    after the batch that crosses ``stop_after`` texts."""

    def __init__(self, stop: threading.Event, stop_after: int) -> None:
        super().__init__()
        self.stop = stop
        self.stop_after = stop_after
        self.texts: list[str] = []

    def _embed_batch(self, texts: list[str], task: EmbeddingTask) -> np.ndarray:
        if task == "document":
            self.texts += texts
            if len(self.texts) >= self.stop_after:
                self.stop.set()
        return super()._embed_batch(texts, task)


def test_a_stopped_run_resumes_without_embedding_anything_twice(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    import ragloom.indexing.indexer as indexer

    monkeypatch.setattr(indexer, "FIRST_WINDOW_CHUNKS", 4)
    monkeypatch.setattr(indexer, "EMBED_WINDOW_CHUNKS", 4)  # windows of 4 chunks
    for index in range(20):
        write(tmp_path, f"notes/n{index:02}.md", f"# Note {index}\nrib number {index} of the wing\n")
    stop = threading.Event()
    provider = CountingStopper(stop, stop_after=5)
    config = hash_config(vector_store={"provider": "turboquant"}, embedding={"batch_size": 4})
    with RAGEngine(config, tmp_path, embedding_provider=provider) as engine:
        with pytest.raises(IndexingStopped):
            engine.index_directory(stop=stop)
        waiting = engine.status(count_pending=False).chunks_unembedded
        assert 0 < waiting < 20 and engine.verify().ok
        assert engine.count() + waiting == len(engine._indexer.sparse)  # BM25 = stored + waiting
        provider.stop_after = 10_000
        report = engine.index_directory()
        assert engine.status(count_pending=False).chunks_unembedded == 0 and engine.verify().ok
        assert engine.count() == 20 and report.files_indexed + report.files_unchanged == 20
    assert sorted(provider.texts) == sorted(set(provider.texts)) and len(provider.texts) == 20


def test_turned_off_each_window_is_searchable_once_embedded(tmp_path: Path) -> None:
    make_tree(tmp_path)
    provider = HeldDocuments()
    config = hash_config(progressive_indexing=False)
    with RAGEngine(config, tmp_path, embedding_provider=provider) as engine:
        thread, _ = _index_in_background(engine)
        assert provider.started.wait(60)
        try:
            during = engine.search("landing gear retraction", top_k=3)
            waiting = engine.status(count_pending=False).chunks_unembedded
        finally:
            provider.release.set()
            thread.join(60)
        assert during == [] and waiting == 0
        assert engine.search("landing gear retraction", top_k=1)[0].path == "docs/t2.md"


def test_a_file_changed_while_waiting_replaces_its_waiting_chunks(tmp_path: Path) -> None:
    make_tree(tmp_path)
    stop = threading.Event()
    provider = CountingStopper(stop, stop_after=1)
    config = hash_config(vector_store={"provider": "turboquant"})
    with RAGEngine(config, tmp_path, embedding_provider=provider) as engine:
        with pytest.raises(IndexingStopped):
            engine.index_directory(stop=stop)  # every file in BM25, no vector stored
        assert engine.count() == 0 and engine.status(count_pending=False).chunks_unembedded == 6
        write(tmp_path, "docs/t0.md", "# Topic 0\n\nNotes on aileron rigging for pilots.\n")
        engine.index_directory()
        assert engine.verify().ok and engine.count() == 6
        texts = {c.text for c in engine.store.get(engine.store.ids())}
    assert any("aileron rigging" in text for text in texts)
    assert not any("glider wing lift" in text for text in texts)


def test_postgres_keeps_its_own_state_and_indexes_each_window_embedded(postgres_server, postgres_schema,
                                                                       tmp_path: Path) -> None:
    """A store that keeps the manifest itself (Postgres) has no unembedded table: the run
    falls back to embedding each window before it is written, whatever the setting says."""
    make_tree(tmp_path)
    provider = HeldDocuments()
    config = hash_config(vector_store={"provider": "postgres", "url": postgres_server.url,
                                       "postgres": {"schema": postgres_schema}})
    assert config.progressive_indexing
    with RAGEngine(config, tmp_path, embedding_provider=provider) as engine:
        assert engine._indexer.writer.unembedded is None
        thread, outcome = _index_in_background(engine)
        assert provider.started.wait(60)
        try:
            during = engine.search("landing gear retraction", top_k=3)
        finally:
            provider.release.set()
            thread.join(60)
        assert during == [] and outcome
        assert engine.search("landing gear retraction", top_k=1)[0].path == "docs/t2.md"
        status = engine.status(count_pending=False)
        assert (status.chunks, status.chunks_unembedded) == (6, 0) and engine.verify().ok
