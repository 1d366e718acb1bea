"""kill -9 at every named crash point of the write path (deterministic fault injection, see
``ragloom.faults``): the index reopens consistent, and finishing the work gives exactly
what a clean run gives, without embedding any text twice."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import hash_config, write
from ragloom import RAGConfig, RAGEngine
from ragloom.chunking.context import text_to_index
from ragloom.chunking.measure import CHARACTERS
from ragloom.chunking.registry import FileChunker
from ragloom.digests import content_hash
from ragloom.embeddings.cache import CachedEmbedder, EmbeddingCache
from ragloom.embeddings.hashing import HashEmbeddingProvider
from ragloom.faults import CRASH_EXIT_STATUS, CRASH_POINTS, ENVIRONMENT_VARIABLE

TESTS = Path(__file__).resolve().parents[1]
CHILD = Path(__file__).resolve().parent / "crash_child.py"
STORE_ONLY_POINTS = {"segment-written": "turboquant"}


def build_tree(root: Path, rng: random.Random, generation: int) -> None:
    """Edit about a third of 120 modules and delete four existing ones."""
    for index in range(120):
        if rng.random() < 0.3 or not (root / f"src/m{index}.py").exists():
            body = "".join(f"def f_{generation}_{index}_{i}(x):\n    return x * {i} + {generation}\n\n"
                           for i in range(rng.randrange(2, 25)))
            write(root, f"src/m{index}.py", body)
    for index in rng.sample(range(120), 4):
        (root / f"src/m{index}.py").unlink()


def snapshot(engine: RAGEngine) -> set[tuple[str, str]]:
    return {(c.id, c.text) for c in engine.store.get(engine.store.ids())}


def uncached_chunks(root: Path, config: RAGConfig) -> int:
    """Chunks of the tree whose text the embedding cache does not hold."""
    chunker = FileChunker(config)
    text_of = text_to_index(config.chunking.embed_header, CHARACTERS)
    texts = {text_of(c.text, {**c.metadata, "source": "file"}) for path in root.rglob("*.py")
             for c in chunker.chunk(path.read_text(), path.relative_to(root).as_posix())}
    cache = EmbeddingCache(root / ".ragloom" / "embeddings.sqlite")
    namespace = CachedEmbedder(HashEmbeddingProvider(), cache).namespace("document")
    cached = cache.get_many(namespace, [content_hash(t) for t in texts], 384)
    cache.close()
    return len(texts) - len(cached)


def clean_snapshot(clean_root: Path, root: Path, config: RAGConfig) -> set[tuple[str, str]]:
    """What a clean index of ``root``'s files holds (built in a new folder: Chroma caches
    clients by path, so one folder is never reused)."""
    for path in root.rglob("*.py"):
        write(clean_root, path.relative_to(root).as_posix(), path.read_text())
    with RAGEngine(config, clean_root) as clean:
        clean.index_directory()
        return snapshot(clean)


@pytest.mark.slow
@pytest.mark.parametrize("store", ["turboquant", "chroma"])
def test_kill_at_every_crash_point(tmp_path: Path, store: str) -> None:
    if store == "chroma":
        pytest.importorskip("chromadb")
    root = tmp_path / "project"
    rng = random.Random(11)
    config = hash_config(chunk_size=200, chunk_overlap=20, vector_store={"provider": store})
    points = [p for p in CRASH_POINTS if STORE_ONLY_POINTS.get(p, store) == store]
    visited = []
    for generation, (point, hit) in enumerate((p, n) for p in points for n in (1, 3)):
        build_tree(root, rng, generation)
        environment = {**os.environ, ENVIRONMENT_VARIABLE: f"{point}:{hit}"}
        child = subprocess.run([sys.executable, str(CHILD), str(root), "40", str(TESTS), store],
                               env=environment, capture_output=True, text=True, timeout=300)
        assert child.returncode == CRASH_EXIT_STATUS, (point, hit, child.returncode, child.stderr[-2000:])
        visited.append(f"{point}:{hit}")
        uncached = uncached_chunks(root, config)
        with RAGEngine(config, root) as engine:
            assert engine.verify().ok, (point, hit, engine.verify().problems[:5])
            report = engine.index_directory()
            assert report.chunks_embedded == uncached, (point, hit)  # nothing embedded twice
            assert engine.verify().ok, (point, hit)
            finished = snapshot(engine)
        assert finished == clean_snapshot(tmp_path / f"clean{generation}", root, config), (point, hit)
    assert len(visited) == 2 * len(points)
    print(f"\n{store}: killed at {len(visited)} crash points ({', '.join(visited)}); after each, "
          f"the index verified, finishing embedded only uncached text and equalled a clean run")


INGEST_CHILD = Path(__file__).resolve().parent / "ingest_child.py"
INGEST_POINTS = ("batch-cached", "embedded", "journaled", "store-written", "bm25-segment-written",
                 "segment-written",
                 "store-persisted", "manifest-written")


def ticket(version: int) -> str:
    return "".join(f"## Part {i}\n\nStep {i} of ticket version {version if i % 3 == 0 else 0}.\n\n"
                   for i in range(12))


@pytest.mark.slow
def test_kill_while_ingesting_a_text(tmp_path: Path) -> None:
    """A text re-ingested with changes, killed at each point its write reaches: after
    reopening the index verifies and the source holds the whole old version (killed before
    the journal), the whole new one, or nothing (a recovered write drops the source: the app
    ingests it again), never a mix."""
    root = tmp_path / "project"
    config = hash_config(chunk_size=200, chunk_overlap=20, vector_store={"provider": "turboquant"})
    outcomes = []
    old_chunks = _chunks_of(config, tmp_path, ticket(1))
    for generation, point in enumerate(INGEST_POINTS):
        new_text = ticket(2 + generation)
        with RAGEngine(config, root) as engine:
            engine.ingest_text("ticket", ticket(1), language="markdown")
        text_file = tmp_path / f"ticket{generation}.md"
        text_file.write_text(new_text)
        environment = {**os.environ, ENVIRONMENT_VARIABLE: f"{point}:1"}
        child = subprocess.run([sys.executable, str(INGEST_CHILD), str(root), str(TESTS), "turboquant",
                                "ticket", str(text_file)], env=environment, capture_output=True,
                               text=True, timeout=300)
        assert child.returncode == CRASH_EXIT_STATUS, (point, child.returncode, child.stderr[-2000:])
        new_chunks = _chunks_of(config, tmp_path, new_text)
        with RAGEngine(config, root) as engine:
            assert engine.verify().ok, (point, engine.verify().problems[:5])
            held = {c.text for c in engine.store.get(engine.store.ids())}
            assert held in (old_chunks, new_chunks, set()), point
            outcomes.append(f"{point}: " + ("old version" if held == old_chunks else
                                            "new version" if held else "dropped"))
            report = engine.ingest_text("ticket", new_text, language="markdown")
            assert report.files_unchanged == (1 if held == new_chunks else 0), point
            assert engine.verify().ok
            assert {c.text for c in engine.store.get(engine.store.ids())} == new_chunks
    print("\n" + "; ".join(outcomes))


def _chunks_of(config: RAGConfig, tmp_path: Path, text: str) -> set[str]:
    folder = tmp_path / f"reference-{content_hash(text)[:8]}"
    with RAGEngine(config, folder) as clean:
        clean.ingest_text("ticket", text, language="markdown")
        return {c.text for c in clean.store.get(clean.store.ids())}
