"""Dying (as after kill -9) at every crash point of the write path with the Postgres store: the index in the
database reopens consistent (a window is one transaction: the server rolled back the dead
writer's), its writer lock went with the dead session, and finishing the work gives exactly
what a clean run gives without embedding any text twice."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from test_crash import CHILD, TESTS, build_tree, snapshot

from helpers import hash_config, write
from ragloom import RAGConfig, RAGEngine
from ragloom.chunking.context import text_to_index
from ragloom.chunking.measure import CHARACTERS
from ragloom.chunking.registry import FileChunker
from ragloom.digests import content_hash
from ragloom.embeddings.cache import CachedEmbedder
from ragloom.embeddings.hashing import HashEmbeddingProvider
from ragloom.faults import CRASH_EXIT_STATUS, CRASH_POINTS, ENVIRONMENT_VARIABLE

#: Points of files the Postgres store does not write (TurboQuant segments, local BM25 segments).
POINTS = [p for p in CRASH_POINTS if p not in ("segment-written", "bm25-segment-written")]


def store_settings(server: Any, schema: str, sparse: str = "sql") -> dict[str, Any]:
    # the server notices a killed writer's session at once, but allow it a moment to end it
    return {"provider": "postgres", "url": server.url,
            "postgres": {"schema": schema, "wait_for_writer_seconds": 60, "sparse": sparse}}


def uncached_chunks(root: Path, config: RAGConfig, server: Any, schema: str) -> int:
    """Chunks of the tree whose text the shared embedding cache does not hold."""
    chunker = FileChunker(config)
    text_of = text_to_index(config.chunking.embed_header, CHARACTERS)
    texts = {text_of(c.text, {**c.metadata, "source": "file"}) for path in root.rglob("*.py")
             for c in chunker.chunk(path.read_text(), path.relative_to(root).as_posix())}
    namespace = CachedEmbedder(HashEmbeddingProvider(), None).namespace("document")
    cached = {row[0] for row in server.execute(
        f"SELECT hash FROM \"{schema}\".ragloom_ragloom_embeddings WHERE namespace = '{namespace}'")}
    return len({content_hash(t) for t in texts} - cached)


def text_rows(server: Any, schema: str, sparse: str) -> set[tuple[str, str]]:
    """(id, tokens) of pg_textsearch's table: one row per chunk when it is used."""
    if sparse != "pg_textsearch":
        return set()
    return set(server.execute(f'SELECT id, tokens FROM "{schema}".ragloom_ragloom_tokens'))


@pytest.mark.slow
@pytest.mark.parametrize("sparse", ["sql", "pg_textsearch"])
def test_kill_at_every_crash_point_with_postgres(tmp_path: Path, postgres_server: Any,
                                                 postgres_schema: str, sparse: str) -> None:
    if sparse == "pg_textsearch" and not postgres_server.text_search:
        pytest.skip("the test server has no pg_textsearch in shared_preload_libraries")
    root = tmp_path / "project"
    rng = random.Random(11)
    store = store_settings(postgres_server, postgres_schema, sparse)
    config = hash_config(chunk_size=200, chunk_overlap=20, vector_store=store)
    visited = []
    for generation, point in enumerate(POINTS):
        build_tree(root, rng, generation)
        environment = {**os.environ, ENVIRONMENT_VARIABLE: f"{point}:1"}
        child = subprocess.run([sys.executable, str(CHILD), str(root), "40", str(TESTS),
                                json.dumps(store)], env=environment, capture_output=True,
                               text=True, timeout=300)
        assert child.returncode == CRASH_EXIT_STATUS, (point, child.returncode, child.stderr[-2000:])
        visited.append(point)
        uncached = uncached_chunks(root, config, postgres_server, postgres_schema)
        with RAGEngine(config, root) as engine:
            assert engine.verify().ok, (point, engine.verify().problems[:5])
            report = engine.index_directory()
            assert report.chunks_embedded == uncached, point  # nothing embedded twice
            assert engine.verify().ok, point
            finished = snapshot(engine)
            words = text_rows(postgres_server, postgres_schema, sparse)
            assert len(words) == (len(finished) if sparse == "pg_textsearch" else 0), point
        with postgres_server.schema() as clean_schema:
            clean_root = tmp_path / f"clean{generation}"
            for path in root.rglob("*.py"):
                write(clean_root, path.relative_to(root).as_posix(), path.read_text())
            clean_config = hash_config(chunk_size=200, chunk_overlap=20,
                                       vector_store=store_settings(postgres_server, clean_schema,
                                                                   sparse))
            with RAGEngine(clean_config, clean_root) as clean:
                clean.index_directory()
                assert finished == snapshot(clean), point
                assert words == text_rows(postgres_server, clean_schema, sparse), point
    assert not (root / ".ragloom").exists()
    assert visited == POINTS
