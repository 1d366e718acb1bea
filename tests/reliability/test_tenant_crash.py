"""kill -9 at every crash point while tenant A indexes a store tenant B shares: B's chunks,
files and answers stay exactly as they were, and A's index reopens consistent and
finishes equal to a clean run (``test_crash`` does the same for one untenanted index)."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from test_crash import CHILD, STORE_ONLY_POINTS, TESTS, build_tree

from helpers import hash_config, write
from ragloom import RAGEngine
from ragloom.faults import CRASH_EXIT_STATUS, CRASH_POINTS, ENVIRONMENT_VARIABLE


def raw(engine: RAGEngine, tenant: str) -> set[tuple[str, str, str]]:
    """(id, text, tenant) of every chunk of ``tenant`` in the shared store, read past the
    tenant view (what is really there)."""
    inner = engine.store.inner  # type: ignore[attr-defined]
    ids = [i for i in inner.ids() if i.startswith(tenant + "::")]
    return {(c.id, c.text, str(c.metadata["tenant"])) for c in inner.get(ids)}


@pytest.mark.slow
@pytest.mark.parametrize("store", ["turboquant"])
def test_a_crash_of_one_tenant_leaves_the_other_whole(tmp_path: Path, store: str) -> None:
    root = tmp_path / "project"
    rng = random.Random(5)
    config = hash_config(chunk_size=200, chunk_overlap=20, vector_store={"provider": store})
    write(root, "globex.md", "# Globex\nBananas grow on the plantation.\n")
    build_tree(root, rng, 0)
    with RAGEngine(config, root, tenant="globex") as globex:
        globex.index_directory()
        before = raw(globex, "globex")
        paths = globex.get_all_indexed_paths()
        answer = [(r.id, r.score) for r in globex.search("bananas plantation", top_k=5)]
    points = [p for p in CRASH_POINTS if STORE_ONLY_POINTS.get(p, store) == store]
    for generation, point in enumerate(points, start=1):
        build_tree(root, rng, generation)
        environment = {**os.environ, ENVIRONMENT_VARIABLE: f"{point}:2"}
        child = subprocess.run([sys.executable, str(CHILD), str(root), "40", str(TESTS), store,
                                "acme"], env=environment, capture_output=True, text=True, timeout=300)
        assert child.returncode == CRASH_EXIT_STATUS, (point, child.returncode, child.stderr[-2000:])
        with RAGEngine(config, root, tenant="acme") as acme:
            assert acme.verify().ok, (point, acme.verify().problems[:5])
            acme.index_directory()
            assert acme.verify().ok, point
            assert raw(acme, "globex") == before, point
            finished = {(c.id, c.text) for c in acme.store.get(acme.store.ids())}
        with RAGEngine(config, tmp_path / f"clean{generation}", tenant="acme") as clean:
            for path in root.rglob("*"):
                if path.is_file() and ".ragloom" not in path.parts:
                    write(clean.base_dir, path.relative_to(root).as_posix(), path.read_text())
            clean.index_directory()
            assert finished == {(c.id, c.text) for c in clean.store.get(clean.store.ids())}, point
        with RAGEngine(config, root, tenant="globex") as globex:
            assert globex.verify().ok, point
            assert raw(globex, "globex") == before, point
            assert globex.get_all_indexed_paths() == paths, point
            assert [(r.id, r.score) for r in globex.search("bananas plantation", top_k=5)] == answer
