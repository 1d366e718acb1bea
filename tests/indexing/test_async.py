"""The async API: the event loop keeps running while an index is built on a worker thread,
and cancelling aindex_directory stops it between consistent states."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from helpers import hash_config, write
from ragloom import RAGEngine
from ragloom.embeddings.hashing import HashEmbeddingProvider
from ragloom.types import IndexReport


class GatedEmbedder(HashEmbeddingProvider):
    """Hash vectors, but the ``blocked_call``-th embedding call waits until ``gate`` opens
    (and says it is waiting through ``waiting``)."""

    def __init__(self, blocked_call: int = 1) -> None:
        super().__init__()
        self.gate = threading.Event()
        self.waiting = threading.Event()
        self.calls = 0
        self.blocked_call = blocked_call

    def _embed_batch(self, texts: list[str], task: str) -> np.ndarray:  # type: ignore[override]
        self.calls += 1
        if task == "document" and self.calls == self.blocked_call:
            self.waiting.set()
            assert self.gate.wait(timeout=60), "the gate never opened: the event loop was blocked"
        return super()._embed_batch(texts, task)  # type: ignore[arg-type]


def make_tree(root: Path, files: int) -> None:
    for index in range(files):
        write(root, f"notes/n{index}.md", f"# Note {index}\nwing number {index} and its lift\n")


def test_the_loop_keeps_ticking_while_indexing(tmp_path: Path) -> None:
    make_tree(tmp_path, 12)
    embedder = GatedEmbedder()
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while not embedder.waiting.is_set():
            await asyncio.sleep(0.001)
        for _ in range(100):  # the indexing thread is waiting on us: only a free loop gets here
            ticks += 1
            await asyncio.sleep(0)
        embedder.gate.set()

    async def main() -> None:
        with RAGEngine(hash_config(relevance_gate=0.0), tmp_path, embedding_provider=embedder) as engine:
            report, _ = await asyncio.gather(engine.aindex_directory(), ticker())
            assert report.files_indexed == 12
            found = await engine.asearch("wing number 7", top_k=1)
            assert found[0].path == "notes/n7.md"
            ingested = await engine.aingest_text("t", "a text about gliders\n")
            assert ingested.files_indexed == 1

    asyncio.run(main())
    assert ticks == 100


@pytest.mark.parametrize("progressive", [False, True])
def test_cancelling_stops_between_consistent_states(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    progressive: bool) -> None:
    import ragloom.indexing.indexer as indexer

    monkeypatch.setattr(indexer, "EMBED_WINDOW_CHUNKS", 4)  # windows of 4 files
    make_tree(tmp_path, 12)
    embedder = GatedEmbedder(blocked_call=2)  # the second window's embedding waits
    config = hash_config(vector_store={"provider": "turboquant"}, relevance_gate=0.0,
                         progressive_indexing=progressive)

    async def main() -> None:
        with RAGEngine(config, tmp_path, embedding_provider=embedder) as engine:
            stops: list[threading.Event | None] = []  # the stop signal each run is given
            run = engine._indexer.index_directory

            def index_directory(*args: Any, stop: threading.Event | None = None) -> IndexReport:
                stops.append(stop)
                return run(*args, stop=stop)

            monkeypatch.setattr(engine._indexer, "index_directory", index_directory)
            task = asyncio.ensure_future(engine.aindex_directory())
            await asyncio.to_thread(embedder.waiting.wait, 60)
            task.cancel()
            stop = stops[0]
            assert stop is not None
            for _ in range(10_000):  # let the cancelled task ask the run to stop
                if stop.is_set():
                    break
                await asyncio.sleep(0)
            assert stop.is_set()
            embedder.gate.set()  # the embedding returns; the run stops before journaling
            with pytest.raises(asyncio.CancelledError):
                await task
            assert engine.verify().ok
            found = len(engine.get_all_indexed_paths())
            if progressive:  # BM25 ran ahead (how far, the threads decide); 4 vectors stored
                assert found >= 8  # the second window was written to BM25 before it was embedded
                assert (engine.count(), engine.status(False).chunks_unembedded) == (4, found - 4)
            else:
                assert found == 4  # the first window only
            rest = await engine.aindex_directory()
            assert (rest.files_indexed, rest.files_unchanged) == (12 - found, found)
            assert rest.chunks_embedded == 4  # the cancelled window's vectors came from the cache
            assert engine.status(False).chunks_unembedded == 0
            assert engine.verify().ok and len(engine.get_all_indexed_paths()) == 12

    asyncio.run(main())


def test_every_io_method_has_an_async_form_that_gives_the_same_answer(tmp_path: Path) -> None:
    make_tree(tmp_path, 3)
    write(tmp_path, "extra.md", "# Extra\nailerons roll the aircraft\n")
    config = hash_config(vector_store={"provider": "turboquant"}, relevance_gate=0.0)

    async def main() -> None:
        async with RAGEngine(config, tmp_path) as engine:
            report = await engine.aindex_directory("notes")
            assert report.files_indexed == 3
            assert (await engine.aindex_file("extra.md")).files_indexed == 1
            await engine.aingest_text("ticket-1", "the flaps lower the stall speed")
            added = await engine.aadd_documents(["faq-1"], ["how do I reset my password?"])
            assert (added.files_indexed, added.chunks_embedded) == (1, 1)
            found = await engine.asearch("ailerons roll", top_k=1)
            detailed = await engine.asearch_detailed("ailerons roll", top_k=1, mode="dense")
            assert found[0].path == detailed.results[0].path == "extra.md"
            assert (await engine.astatus(count_pending=False)).files == 6  # 4 files + 2 sources
            assert (await engine.averify()).ok
            assert await engine.acount() == engine.count() and not await engine.ais_empty()
            assert await engine.aget_all_indexed_paths() == engine.get_all_indexed_paths()
            assert await engine.acorpus_tokens() == engine.corpus_tokens()
            assert await engine.aexcluded_reason(".env") == engine.excluded_reason(".env") is not None
            assert await engine.adelete_source("ticket-1") == 1
            assert await engine.adelete_documents(["faq-1"]) == 1
            assert await engine.adelete_documents_by_path("extra.md") == 1
            assert (await engine.areindex("notes")).files_indexed == 3
            assert (await engine.async_()).files_unchanged == 3
            assert [r.path for r in await engine.apreload_results(None)] == [
                f"notes/n{index}.md" for index in range(3)]
        assert engine._closed

    asyncio.run(main())


def test_every_public_method_but_construction_and_thread_control_has_an_async_form() -> None:
    public = {name for name in dir(RAGEngine) if not name.startswith("_")
              and callable(getattr(RAGEngine, name))}
    async_forms = {name for name in public if name.startswith("a") and name[1:] in public}
    covered = async_forms | {name[1:] for name in async_forms} | {"async_", "sync"}  # async_ is sync's
    assert public - covered == {"from_toml", "start_auto_sync", "stop_auto_sync"}
