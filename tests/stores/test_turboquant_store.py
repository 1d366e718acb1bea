"""The TurboQuant store: shared conformance suite, segments, compaction, rebuild."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import numpy as np
import pytest

from helpers import hash_config, write
from ragloom import RAGEngine
from ragloom.stores.base import EmbeddingSpec
from ragloom.stores.turboquant import SEGMENT_LIST, TurboQuantStore
from ragloom.testing.stores import DIM, StoreConformance, sample_rows

SPEC = EmbeddingSpec("hash/feature-hash-v1", DIM)


class TestTurboQuantStore(StoreConformance):
    persistent = True
    score_tolerance = 0.02

    @pytest.fixture
    def store_factory(self, tmp_path: Path):
        return lambda: TurboQuantStore(tmp_path / "tq", SPEC, bits=4, refine_bits=4)

    def test_get_vectors_and_ids(self, store) -> None:  # type: ignore[override]
        ids, vectors, _, _ = sample_rows()
        got = store.get_vectors(["b0", "a0"])
        assert got.shape == (2, DIM)
        assert np.allclose(got, vectors[[2, 0]], atol=0.05), "close to the originals, not equal"
        assert sorted(store.ids()) == sorted(ids)
        with pytest.raises(KeyError):
            store.get_vectors(["a0", "missing"])


def random_unit(count: int, dim: int, seed: int = 0) -> np.ndarray:
    vectors = np.random.default_rng(seed).normal(size=(count, dim)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def fill(store: TurboQuantStore, start: int, count: int, dim: int) -> None:
    ids = [f"v{i}" for i in range(start, start + count)]
    store.upsert(ids, random_unit(count, dim, start), [f"text {i}" for i in ids],
                 [{"path": f"f{i % 7}.txt"} for i in range(start, start + count)])


def test_appends_write_new_segments_only(tmp_path: Path) -> None:
    spec = EmbeddingSpec("x", 64)
    store = TurboQuantStore(tmp_path / "tq", spec)
    fill(store, 0, 100, 64)
    store.persist()
    first = sorted((tmp_path / "tq").glob("*.npz"))
    stamp = first[0].stat().st_mtime_ns
    fill(store, 100, 50, 64)
    store.delete(["v3"])
    store.persist()
    segments = sorted((tmp_path / "tq").glob("*.npz"))
    assert len(segments) == 2 and segments[0].stat().st_mtime_ns == stamp
    reopened = TurboQuantStore(tmp_path / "tq", spec)
    assert reopened.count() == 149 and reopened.get(["v3"]) == []
    assert reopened.get(["v120"])[0].text == "text v120"


def test_many_deletes_compact_to_one_segment(tmp_path: Path) -> None:
    spec = EmbeddingSpec("x", 32)
    store = TurboQuantStore(tmp_path / "tq", spec)
    fill(store, 0, 200, 32)
    store.persist()
    store.delete([f"v{i}" for i in range(0, 200, 2)])
    store.persist()
    listing = json.loads((tmp_path / "tq" / SEGMENT_LIST).read_text())
    assert len(listing["segments"]) == 1
    assert len(list((tmp_path / "tq").glob("*.npz"))) == 1
    assert TurboQuantStore(tmp_path / "tq", spec).count() == 100


def test_failed_compaction_then_append_leaves_no_ghost_rows(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    spec = EmbeddingSpec("x", 32)
    store = TurboQuantStore(tmp_path / "tq", spec)
    fill(store, 0, 100, 32)
    store.persist()
    store.delete([f"v{i}" for i in range(40)])  # enough dead rows to compact

    def full_disk(*args: object) -> None:
        raise OSError("No space left on device")

    monkeypatch.setattr(store, "_write_segment", full_disk)
    with pytest.raises(OSError):
        store.persist()
    monkeypatch.undo()
    fill(store, 100, 5, 32)
    store.persist()  # appends every live row again after the old segments
    reopened = TurboQuantStore(tmp_path / "tq", spec)
    assert reopened.count() == 65 and sorted(reopened.ids()) == sorted(store.ids())
    results = reopened.query(store.get_vectors(["v50"])[0], 65)
    assert len({result.id for result in results}) == len(results) == 65


def test_leftover_temp_files_are_ignored(tmp_path: Path) -> None:
    spec = EmbeddingSpec("x", 32)
    store = TurboQuantStore(tmp_path / "tq", spec)
    fill(store, 0, 10, 32)
    store.persist()
    (tmp_path / "tq" / ".00000002.npz.999.tmp").write_bytes(b"half written")
    (tmp_path / "tq" / "00000002.npz").write_bytes(b"never listed")
    assert TurboQuantStore(tmp_path / "tq", spec).count() == 10


def test_settings_change_rebuilds(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    store = TurboQuantStore(tmp_path / "tq", EmbeddingSpec("x", 32))
    fill(store, 0, 10, 32)
    store.persist()
    with caplog.at_level(logging.WARNING, logger="ragloom"):
        other = TurboQuantStore(tmp_path / "tq", EmbeddingSpec("y", 48))
    assert other.count() == 0 and "rebuilding" in caplog.text


def clustered_unit(count: int, dim: int, clusters: int, seed: int) -> np.ndarray:
    """Vectors around random centres, closer to real embeddings than uniform noise."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(clusters, dim))
    vectors = centres[rng.integers(0, clusters, count)] + 0.7 * rng.normal(size=(count, dim))
    return (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)


@pytest.mark.parametrize("refine_bits,floor", [(0, 0.7), (4, 0.93)])
def test_search_recall_against_exact(refine_bits: int, floor: float) -> None:
    dim, count = 128, 20_000
    base = clustered_unit(count, dim, 200, 1)
    store = TurboQuantStore(None, EmbeddingSpec("x", dim), bits=4, refine_bits=refine_bits,
                            first_pass=500)
    store.upsert([str(i) for i in range(count)], base, [""] * count, [{}] * count)
    rng = np.random.default_rng(2)
    hits = 0
    for row in rng.choice(count, 30, replace=False):
        query = base[row] + 0.05 * rng.normal(size=dim)
        exact = set(np.argsort(-(base @ query))[:10].astype(str))
        hits += len(exact & {r.id for r in store.query(query, 10)})
    assert hits / 300 >= floor
    assert store.bytes_per_vector() == (4 + refine_bits) * dim / 8  # cosine store: no norms kept


def test_engine_with_turboquant(tmp_path: Path) -> None:
    write(tmp_path, "a.txt", "rockets launch satellites into orbit\n")
    write(tmp_path, "b.txt", "apples and pears are fruit\n")
    config = hash_config(vector_store={"provider": "turboquant",
                                       "turboquant": {"refine_bits": 2, "first_pass": 300}})
    with RAGEngine(config, tmp_path) as engine:
        engine.index_directory()
        assert (engine.store.quantizer.refine_bits, engine.store.first_pass) == (2, 300)
    with RAGEngine(config, tmp_path) as engine:
        assert engine.count() == 2
        assert engine.index_directory().chunks_embedded == 0
        assert engine.search("rockets orbit", top_k=1)[0].metadata["path"] == "a.txt"
