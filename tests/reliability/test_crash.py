"""kill -9 at random points while indexing: the index reopens consistent, and finishing
the work gives exactly what a clean run gives, without embedding any text twice."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers import hash_config, write
from ragloom import RAGEngine
from ragloom.chunking.base import content_hash
from ragloom.chunking.registry import FileChunker
from ragloom.embeddings.cache import CachedEmbedder, EmbeddingCache
from ragloom.embeddings.hashing import HashEmbeddingProvider

TESTS = Path(__file__).resolve().parents[1]
CHILD = Path(__file__).resolve().parent / "crash_child.py"
KILLS = 24


def build_tree(root: Path, rng: random.Random, generation: int) -> None:
    for index in range(120):
        if rng.random() < 0.3 or not (root / f"src/m{index}.py").exists():
            body = "".join(f"def f_{generation}_{index}_{i}(x):\n    return x * {i} + {generation}\n\n"
                           for i in range(rng.randrange(2, 25)))
            write(root, f"src/m{index}.py", body)
    for index in rng.sample(range(120), 3):
        (root / f"src/m{index}.py").unlink(missing_ok=True)


def snapshot(engine: RAGEngine) -> set[tuple[str, str]]:
    return {(c.id, c.text) for c in engine.store.get(engine.store.ids())}


@pytest.mark.slow
@pytest.mark.parametrize("store", ["turboquant", "chroma"])
def test_kill_at_random_points(tmp_path: Path, store: str) -> None:
    if store == "chroma":
        pytest.importorskip("chromadb")
    root = tmp_path / "project"
    rng = random.Random(11)
    config = hash_config(chunk_size=200, chunk_overlap=20, vector_store={"provider": store})
    kills = 0
    for generation in range(KILLS if store == "turboquant" else 6):
        build_tree(root, rng, generation)
        child = subprocess.Popen([sys.executable, str(CHILD), str(root), "40", str(TESTS), store],
                                 stdout=subprocess.PIPE, text=True)
        assert child.stdout is not None and child.stdout.readline().strip() == "opened"
        time.sleep(rng.uniform(0.0, 0.6))
        if child.poll() is None:
            os.kill(child.pid, signal.SIGKILL)
            kills += 1
        child.wait(30)
        with RAGEngine(config, root) as engine:
            report = engine.verify()
            assert report.ok, (generation, report.problems[:5])
    assert kills >= (20 if store == "turboquant" else 4)

    provider = HashEmbeddingProvider()
    chunker = FileChunker(config)
    texts = {c.text for path in root.rglob("*.py")
             for c in chunker.chunk(path.read_text(), path.relative_to(root).as_posix())}
    cache = EmbeddingCache(root / ".ragloom" / "embeddings.sqlite")
    namespace = CachedEmbedder(provider, cache).namespace("document")
    uncached = len(texts) - len(cache.get_many(namespace, [content_hash(t) for t in texts], 384))
    cache.close()
    with RAGEngine(config, root) as engine:
        report = engine.index_directory()
        assert report.chunks_embedded == uncached
        assert engine.verify().ok
        finished = snapshot(engine)
    clean_root = tmp_path / "clean"
    clean_root.mkdir()
    for path in root.rglob("*.py"):
        write(clean_root, path.relative_to(root).as_posix(), path.read_text())
    with RAGEngine(config, clean_root) as clean:
        clean.index_directory()
        assert finished == snapshot(clean)
    print(f"\n{store}: {kills} kill points survived, final index {len(finished)} chunks identical "
          f"to a clean run; {uncached} chunks left to embed after the kills")
