"""The behaviour every vector store must have, as a pytest suite a backend's tests reuse.

Subclass ``StoreConformance`` in a test module and define a ``store_factory`` fixture
returning ``open_store()``, a callable that opens (or reopens, for persistent stores) the
same store, and a ``backend`` fixture returning the store's ``StoreBackend`` (its contract
is checked too); set ``persistent`` (and ``score_tolerance`` for lossy stores). ragloom's
own stores and plugins run the same suite. Needs pytest (a test dependency, not a runtime one).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from pydantic import BaseModel

from ragloom.errors import StoreError
from ragloom.retrieval.tokenize import Tokenizer
from ragloom.stores.backend import StoreBackend
from ragloom.stores.base import VectorStore

DIM = 16
StoreFactory = Callable[[], VectorStore]


def unit(*entries: float) -> np.ndarray:
    vector = np.zeros(DIM, dtype=np.float32)
    vector[: len(entries)] = entries
    return vector / np.linalg.norm(vector)


def sample_rows() -> tuple[list[str], np.ndarray, list[str], list[dict]]:
    ids = ["a0", "a1", "b0", "c0"]
    vectors = np.stack([unit(1, 0), unit(1, 0.2), unit(0, 1), unit(-1, 0)])
    texts = ["alpha zero", "alpha one", "beta zero", "gamma zero"]
    metadatas = [
        {"path": "src/a.py", "chunk_index": 0, "language": "python", "kind": "function"},
        {"path": "src/a.py", "chunk_index": 1, "language": "python", "kind": "class"},
        {"path": "docs/b.md", "chunk_index": 0, "language": "markdown", "kind": "section"},
        {"path": "c.txt", "chunk_index": 0, "language": "text", "start_line": 7},
    ]
    return ids, vectors, texts, metadatas


class StoreConformance:
    """Subclass in a backend's test module and provide the ``store_factory`` fixture."""

    persistent = False
    #: How far a returned score may be from the exact cosine (lossy stores set more).
    score_tolerance = 1e-5

    @pytest.fixture
    def backend(self) -> type[StoreBackend] | None:
        """The backend that opens this store; override it (None: a store built by hand)."""
        return None

    @pytest.fixture
    def store(self, store_factory: StoreFactory) -> VectorStore:
        store = store_factory()
        ids, vectors, texts, metadatas = sample_rows()
        store.upsert(ids, vectors, texts, metadatas)
        return store

    def test_empty_store(self, store_factory: StoreFactory) -> None:
        store = store_factory()
        assert store.count() == 0
        assert store.query(unit(1), top_k=3) == []
        assert store.get(["nope"]) == []

    def test_query_order_scores_and_distances(self, store: VectorStore) -> None:
        results = store.query(unit(1, 0.05), top_k=4)
        assert [r.id for r in results] == ["a0", "a1", "b0", "c0"]
        scores = [r.score for r in results]
        assert scores == sorted(scores, reverse=True)
        for result in results:
            assert result.distance == pytest.approx(1 - result.score, abs=1e-5)
        exact = float(unit(1, 0.05) @ unit(1, 0))
        assert results[0].score == pytest.approx(exact, abs=self.score_tolerance)
        assert results[-1].score == pytest.approx(-0.995, abs=max(1e-2, self.score_tolerance))
        assert results[0].text == "alpha zero"
        assert results[0].metadata["path"] == "src/a.py"

    def test_top_k_limits(self, store: VectorStore) -> None:
        assert len(store.query(unit(1), top_k=2)) == 2
        assert len(store.query(unit(1), top_k=50)) == 4

    def test_upsert_replaces(self, store: VectorStore) -> None:
        store.upsert(["a0"], unit(0, 1).reshape(1, -1), ["alpha replaced"],
                     [{"path": "src/a.py", "chunk_index": 0, "language": "python"}])
        assert store.count() == 4
        assert store.get(["a0"])[0].text == "alpha replaced"
        assert "kind" not in store.get(["a0"])[0].metadata
        assert store.query(unit(0, 1), top_k=2)[0].id in {"a0", "b0"}

    def test_get_keeps_requested_order(self, store: VectorStore) -> None:
        assert [c.id for c in store.get(["c0", "missing", "a0"])] == ["c0", "a0"]

    def test_delete_by_ids(self, store: VectorStore) -> None:
        store.delete(["a1", "never-stored"])
        assert store.count() == 3
        assert "a1" not in [r.id for r in store.query(unit(1), top_k=10)]

    def test_filter_equality(self, store: VectorStore) -> None:
        results = store.query(unit(1), top_k=10, filters={"language": "python"})
        assert [r.id for r in results] == ["a0", "a1"]

    def test_filter_operators(self, store: VectorStore) -> None:
        def ids(filters: dict) -> set[str]:
            return {r.id for r in store.query(unit(1), top_k=10, filters=filters)}

        assert ids({"kind": {"$in": ["class", "section"]}}) == {"a1", "b0"}
        assert ids({"language": {"$ne": "python"}}) == {"b0", "c0"}
        assert ids({"language": {"$nin": ["python", "text"]}}) == {"b0"}
        assert ids({"start_line": {"$gte": 7}}) == {"c0"}
        assert ids({"chunk_index": {"$gt": 0}}) == {"a1"}
        assert ids({"language": "python", "kind": "class"}) == {"a1"}
        assert ids({"language": "cobol"}) == set()

    def test_filter_and_or(self, store: VectorStore) -> None:
        def ids(filters: dict) -> set[str]:
            return {r.id for r in store.query(unit(1), top_k=10, filters=filters)}

        assert ids({"$or": [{"language": "markdown"}, {"kind": "class"}]}) == {"a1", "b0"}
        assert ids({"language": "python",
                    "$or": [{"kind": "class"}, {"chunk_index": {"$gte": 5}}]}) == {"a1"}
        assert ids({"$and": [{"language": {"$ne": "text"}},
                             {"$or": [{"chunk_index": {"$gt": 0}}, {"kind": "section"}]}]}) == {"a1", "b0"}
        assert ids({"$or": [{"start_line": {"$lt": 10}}, {"language": "cobol"}]}) == {"c0"}
        assert ids({"$or": [{"language": "cobol"}, {"kind": "macro"}]}) == set()
        assert ids({"$and": [{"language": "python"}]}) == {"a0", "a1"}
        for bad, message in (({"$or": []}, r"\$or needs a non-empty list of filters"),
                             ({"$and": {"language": "python"}}, r"\$and needs a non-empty list"),
                             ({"$or": [{"language": "text"}, "c0"]}, r"each item must be"),
                             ({"$xor": [{"language": "text"}]}, r"unknown filter operator '\$xor'")):
            with pytest.raises(ValueError, match=message):
                store.query(unit(1), top_k=10, filters=bad)

    def test_filters_compare_types_alike(self, store_factory: StoreFactory) -> None:
        """One rule on every store (``ragloom.filters``): a boolean is not a number, integers
        and floats compare numerically, a string never equals a number."""
        store = store_factory()
        values = {"int1": 1, "float1": 1.0, "true": True, "false": False, "int0": 0,
                  "str1": "1", "half": 1.5}
        ids = list(values)
        vectors = np.stack([unit(1, index / 10) for index in range(len(ids))])
        store.upsert(ids, vectors, [f"text {name}" for name in ids],
                     [{"path": f"{name}.txt", "chunk_index": 0, "n": values[name]} for name in ids])

        def ids_for(filters: dict) -> set[str]:
            return {r.id for r in store.query(unit(1), top_k=20, filters=filters)}

        everything = set(ids)
        expected = [
            ({"n": True}, {"true"}), ({"n": False}, {"false"}),
            ({"n": 1}, {"int1", "float1"}), ({"n": 1.0}, {"int1", "float1"}),
            ({"n": 0}, {"int0"}), ({"n": "1"}, {"str1"}),
            ({"n": {"$in": [True]}}, {"true"}), ({"n": {"$in": [1]}}, {"int1", "float1"}),
            ({"n": {"$in": [0, 1.0, "1"]}}, {"int0", "int1", "float1", "str1"}),
            ({"n": {"$in": [1.5, False]}}, {"half", "false"}),
            ({"n": {"$ne": True}}, everything - {"true"}),
            ({"n": {"$ne": 1}}, everything - {"int1", "float1"}),
            ({"n": {"$nin": [False]}}, everything - {"false"}),
            ({"n": {"$nin": [0]}}, everything - {"int0"}),
            ({"n": {"$gte": 1}}, {"int1", "float1", "half"}), ({"n": {"$lt": 1}}, {"int0"}),
            ({"n": 1.5}, {"half"}), ({"n": {"$ne": 1.5}}, everything - {"half"}),
            ({"n": {"$nin": [1.5, "1"]}}, everything - {"half", "str1"}),
            ({"n": {"$lt": 1.5}}, {"int0", "int1", "float1"}),
            ({"n": {"$lte": 1.5}}, {"int0", "int1", "float1", "half"}),
            ({"n": {"$gt": 0.5}}, {"int1", "float1", "half"}),
            ({"n": {"$gte": 0.5}}, {"int1", "float1", "half"}),
            ({"n": {"$gt": -0.5}}, {"int0", "int1", "float1", "half"}), ({"n": {"$lt": -0.5}}, set()),
        ]
        wrong = [(filters, sorted(ids_for(filters))) for filters, want in expected
                 if ids_for(filters) != want]
        assert not wrong, wrong

    def test_glob_filters_or_a_clear_refusal(self, store: VectorStore) -> None:
        """A store matching globs itself must match them as ``ragloom.filters`` does; one
        that cannot must refuse them (the searcher resolves globs for it)."""
        globs = [({"path": "src/*.py"}, {"a0", "a1"}), ({"path": {"$glob": "**/*.md"}}, {"b0"}),
                 ({"path": {"$glob": "*.txt"}, "language": "text"}, {"c0"})]
        for filters, expected in globs:
            if store.glob_filters:
                assert {r.id for r in store.query(unit(1), top_k=10, filters=filters)} == expected
            else:
                with pytest.raises(ValueError, match=r"\$glob"):
                    store.query(unit(1), top_k=10, filters=filters)

    def test_declares_what_it_is(self, store: VectorStore) -> None:
        declared = {"concurrent_readers": store.concurrent_readers,
                    "hands_out_vectors": store.hands_out_vectors, "glob_filters": store.glob_filters,
                    "searches_text": store.searches_text, "queries_elsewhere": store.queries_elsewhere}
        assert {name: type(value) for name, value in declared.items()} == dict.fromkeys(declared, bool)
        assert isinstance(store.name, str) and store.name
        with store.read_snapshot():
            assert store.count() == 4
        assert store.verify_files() == []  # nothing damaged in a fresh store
        digest = store.id_digest()
        assert digest is None or isinstance(digest, int)
        figures = store.server_figures()
        assert figures is None or (isinstance(figures[0], str) and isinstance(figures[1], dict))
        if digest is not None:  # a digest of the ids: it changes with them
            store.delete(["c0"])
            assert store.id_digest() != digest

    def test_backend_declares_its_contract(self, backend: type[StoreBackend] | None,
                                           store: VectorStore) -> None:
        if backend is None:
            pytest.skip("no backend: this store is built by hand")
        assert issubclass(backend, StoreBackend)
        assert backend.persistent is self.persistent  # the one place it is said
        model = backend.settings_model
        assert model is None or (issubclass(model, BaseModel)
                                 and model.model_config.get("extra") == "forbid")
        assert not (backend.local_files and backend.owns_index_state)
        below = backend.__mro__[:backend.__mro__.index(StoreBackend)]
        overrides = any("open_index_state" in vars(cls) for cls in below)
        assert overrides == backend.owns_index_state  # the state it owns, it opens
        if not backend.owns_index_state:
            with pytest.raises(StoreError, match="keeps no index state"):
                backend.open_index_state(store, Tokenizer(), lambda text, meta: text, True)

    def test_filter_does_not_shrink_top_k(self, store: VectorStore) -> None:
        results = store.query(unit(1), top_k=1, filters={"language": "markdown"})
        assert [r.id for r in results] == ["b0"]

    def test_bad_filter_is_an_error(self, store: VectorStore) -> None:
        with pytest.raises(ValueError, match=r"unknown operator '\$regex'"):
            store.query(unit(1), top_k=1, filters={"path": {"$regex": ".*"}})

    def test_reset(self, store: VectorStore) -> None:
        store.reset()
        assert store.count() == 0 and store.query(unit(1), top_k=1) == []

    def test_rejects_mismatched_columns(self, store: VectorStore) -> None:
        with pytest.raises(ValueError):
            store.upsert(["x", "y"], unit(1).reshape(1, -1), ["t"], [{}])
        assert store.count() == 4

    def test_persistence_across_reopen(self, store_factory: StoreFactory) -> None:
        if not self.persistent:
            pytest.skip("this store keeps nothing across reopen by design")
        store = store_factory()
        ids, vectors, texts, metadatas = sample_rows()
        store.upsert(ids, vectors, texts, metadatas)
        store.delete(["c0"])
        store.persist()
        store.close()
        reopened = store_factory()
        assert reopened.count() == 3
        assert [r.id for r in reopened.query(unit(1, 0.05), top_k=2)] == ["a0", "a1"]
        assert reopened.get(["b0"])[0].metadata["path"] == "docs/b.md"

    def test_get_vectors_and_ids(self, store: VectorStore) -> None:
        ids, vectors, _, _ = sample_rows()
        assert sorted(store.ids()) == sorted(ids)
        if not store.hands_out_vectors:
            return
        got = store.get_vectors(["b0", "a0"])
        assert got.shape == (2, DIM)
        assert np.allclose(got, vectors[[2, 0]], atol=1e-5)
        with pytest.raises(KeyError):
            store.get_vectors(["a0", "missing"])
