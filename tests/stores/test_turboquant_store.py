"""The TurboQuant store: shared conformance suite, segments, compaction, refusing another
identity or a damaged file with what to do."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from helpers import hash_config, write
from ragloom import RAGEngine
from ragloom.errors import CorruptIndexError, IndexMismatchError
from ragloom.stores.base import EmbeddingSpec
from ragloom.stores.registry import vector_stores
from ragloom.stores.turboquant import TurboQuantStore
from ragloom.stores.turboquant_segments import SEGMENT_LIST
from ragloom.testing.stores import DIM, StoreConformance, sample_rows

SPEC = EmbeddingSpec("hash/feature-hash-v1", DIM)


class TestTurboQuantStore(StoreConformance):
    persistent = True
    score_tolerance = 0.02

    @pytest.fixture
    def backend(self):
        return vector_stores.get("turboquant")

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
    first = sorted((tmp_path / "tq").glob("*.seg"))
    stamp = first[0].stat().st_mtime_ns
    fill(store, 100, 50, 64)
    store.delete(["v3"])
    store.persist()
    segments = sorted((tmp_path / "tq").glob("*.seg"))
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
    assert len(list((tmp_path / "tq").glob("*.seg"))) == 1
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
    (tmp_path / "tq" / ".00000002.seg.999.tmp").write_bytes(b"half written")
    (tmp_path / "tq" / "00000002.seg").write_bytes(b"never listed")
    assert TurboQuantStore(tmp_path / "tq", spec).count() == 10


def test_another_model_or_quantizer_is_refused_naming_both_never_dropped(tmp_path: Path) -> None:
    """Other processes may share the folder: a store built for another identity is an error
    that says how to rebuild on purpose; only that rebuild deletes, and only its own files."""
    store = TurboQuantStore(tmp_path / "tq", EmbeddingSpec("x", 32))
    fill(store, 0, 10, 32)
    store.persist()
    write(tmp_path / "tq", "notes.txt", "mine\n")
    before = sorted(p.name for p in (tmp_path / "tq").iterdir())
    for spec, bits in ((EmbeddingSpec("y", 48), 4), (EmbeddingSpec("x", 32), 2)):
        with pytest.raises(IndexMismatchError, match=r"built with x \(32-d\), quantizer .*"
                           r"not (y \(48-d\)|x \(32-d\)).*ragloom index --rebuild") as refused:
            TurboQuantStore(tmp_path / "tq", spec, bits=bits)
        assert sorted(p.name for p in (tmp_path / "tq").iterdir()) == before
    assert TurboQuantStore(tmp_path / "tq", EmbeddingSpec("x", 32)).count() == 10
    assert refused.value.discard is not None
    refused.value.discard()
    assert sorted(p.name for p in (tmp_path / "tq").iterdir()) == [".ragloom-store", "notes.txt"]
    assert TurboQuantStore(tmp_path / "tq", EmbeddingSpec("x", 32), bits=2).count() == 0


@pytest.mark.parametrize("damage", ["flipped-segment", "truncated-segment", "garbage-list",
                                    "truncated-list", "missing-segment"])
def test_a_damaged_file_is_named_with_what_to_do(tmp_path: Path, damage: str) -> None:
    spec = EmbeddingSpec("x", 32)
    store = TurboQuantStore(tmp_path / "tq", spec)
    fill(store, 0, 10, 32)
    store.persist()
    fill(store, 10, 20, 32)
    store.persist()
    folder = tmp_path / "tq"
    segment, listing = folder / "00000002.seg", folder / SEGMENT_LIST
    if damage == "flipped-segment":  # in its header (array bytes carry no checksum)
        data = bytearray(segment.read_bytes())
        for offset in range(18, 26):
            data[offset] ^= 0xFF
        segment.write_bytes(bytes(data))
    elif damage == "truncated-segment":
        segment.write_bytes(segment.read_bytes()[: segment.stat().st_size // 2])
    elif damage == "garbage-list":
        listing.write_bytes(b"{settings: oops")
    elif damage == "truncated-list":
        listing.write_bytes(listing.read_bytes()[:20])
    else:
        segment.unlink()
    named = listing if "list" in damage else segment
    expected = rf"{re.escape(str(named))} is damaged .*ragloom index --rebuild"
    with pytest.raises(CorruptIndexError, match=expected) as refused:
        TurboQuantStore(folder, spec)
    assert refused.value.discard is not None
    refused.value.discard()  # what a rebuild does: only the store's own files go
    assert sorted(p.name for p in folder.iterdir()) == [".ragloom-store"]
    assert TurboQuantStore(folder, spec).count() == 0


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


def test_a_reader_finds_replaced_and_deleted_ids_by_hash(tmp_path: Path) -> None:
    """A read-only store finds rows by the ids' hashes: a replaced id gives its new row, a
    deleted one nothing (get) or a KeyError naming it (get_vectors)."""
    spec = EmbeddingSpec("x", 32)
    store = TurboQuantStore(tmp_path / "tq", spec)
    fill(store, 0, 50, 32)
    store.persist()
    store.upsert(["v7"], random_unit(1, 32, 99), ["seven again"], [{"path": "new.txt"}])
    store.delete(["v8"])
    store.persist()
    reader = TurboQuantStore(tmp_path / "tq", spec, read_only=True)
    assert [(c.id, c.text, c.metadata) for c in reader.get(["v8", "v7", "v9"])] == [
        ("v7", "seven again", {"path": "new.txt"}), ("v9", "text v9", {"path": "f2.txt"})]
    assert np.allclose(reader.get_vectors(["v7"]), store.get_vectors(["v7"]))
    with pytest.raises(KeyError, match="v8"):
        reader.get_vectors(["v7", "v8"])
