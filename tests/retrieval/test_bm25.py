"""BM25 against the reference rank-bm25, incremental updates, persistence and filters."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest
from rank_bm25 import BM25Okapi

from ragloom.filters import compile_filters
from ragloom.retrieval.bm25 import BM25Index
from ragloom.retrieval.tokenize import tokenize

CRANFIELD = Path(__file__).resolve().parents[3] / "shared" / "data" / "cranfield"


def cranfield_tokens(limit: int = 600) -> tuple[list[list[str]], list[list[str]]]:
    docs, queries = [], []
    with (CRANFIELD / "corpus.jsonl").open() as handle:
        for line in handle:
            record = json.loads(line)
            docs.append(tokenize(f"{record['title']}\n{record['text']}"))
            if len(docs) == limit:
                break
    with (CRANFIELD / "queries.jsonl").open() as handle:
        queries = [tokenize(json.loads(line)["text"]) for line in handle][:60]
    return docs, queries


def build(docs: list[list[str]]) -> BM25Index:
    index = BM25Index()
    index.add([str(i) for i in range(len(docs))], docs, [{"n": i} for i in range(len(docs))])
    return index


def test_scores_equal_rank_bm25_on_real_text() -> None:
    docs, queries = cranfield_tokens()
    reference = BM25Okapi(docs)
    index = build(docs)
    for query in queries:
        assert np.allclose(index.scores(query), reference.get_scores(query), atol=1e-6, rtol=0)


def test_negative_idf_floor_matches_reference() -> None:
    docs = [["common", "a"], ["common", "b"], ["common", "c"], ["rare", "common"]]
    reference = BM25Okapi(docs)
    assert np.allclose(build(docs).scores(["common", "rare"]), reference.get_scores(["common", "rare"]))


def test_incremental_updates_equal_a_fresh_build() -> None:
    random.seed(3)
    docs, queries = cranfield_tokens(300)
    index = build(docs[:200])
    index.remove([str(i) for i in range(0, 200, 3)])
    replaced = {str(i): docs[(i * 7) % 300] for i in range(1, 200, 5)}
    index.add(list(replaced), list(replaced.values()), [{}] * len(replaced))
    index.add([str(i) for i in range(200, 300)], docs[200:], [{}] * 100)
    expected = {str(i): docs[i] for i in range(300) if not (i < 200 and i % 3 == 0)}
    expected.update(replaced)
    fresh = BM25Index()
    fresh.add(list(expected), list(expected.values()), [{}] * len(expected))
    for query in queries[:20]:
        got = dict(index.top_k(query, 50))
        want = dict(fresh.top_k(query, 50))
        assert got.keys() == want.keys()
        assert all(got[k] == pytest.approx(want[k], abs=1e-9) for k in got)


def assert_same_ranking(got: list[tuple[str, float]], want: list[tuple[str, float]]) -> None:
    """The same ids in the same order, and the same scores within float tolerance."""
    assert [doc_id for doc_id, _ in got] == [doc_id for doc_id, _ in want]
    assert [score for _, score in got] == pytest.approx([score for _, score in want])


def test_compaction_keeps_scores() -> None:
    docs, queries = cranfield_tokens(400)
    index = build(docs)
    index.remove([str(i) for i in range(0, 400, 2)])
    before = index.top_k(queries[0], 20)
    index.compact()
    assert_same_ranking(index.top_k(queries[0], 20), before)
    assert len(index) == 200


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    docs, queries = cranfield_tokens(200)
    index = build(docs)
    index.remove(["5", "6"])
    index.save(tmp_path / "bm25.npz")
    loaded = BM25Index.load(tmp_path / "bm25.npz")
    assert len(loaded) == 198 and "5" not in loaded
    assert loaded.metadata("7") == {"n": 7}
    for query in queries[:10]:
        assert_same_ranking(loaded.top_k(query, 10), index.top_k(query, 10))
    assert not list(tmp_path.glob(".*tmp")), "no temp file left behind"


def test_top_k_applies_filters_before_ranking() -> None:
    docs, queries = cranfield_tokens(200)
    index = build(docs)
    conditions = compile_filters({"n": {"$lt": 50}})
    hits = index.top_k(queries[0], 10, conditions)
    assert hits and all(int(doc_id) < 50 for doc_id, _ in hits)
    assert len(index.top_k(queries[0], 10)) == 10


def test_unknown_terms_and_empty_index() -> None:
    assert BM25Index().top_k(["anything"], 5) == []
    assert build([["a", "b"], []]).top_k(["zzz"], 5) == []


def test_tiny_corpus_with_negative_idf_still_ranks_matches() -> None:
    index = build([["orbit", "satellite", "satellite"], ["orbit"], ["fruit"]])
    hits = index.top_k(["orbit", "satellite"], 5)
    assert [doc for doc, _ in hits] == ["0", "1"]
    assert build([["only", "doc"]]).top_k(["doc"], 5)[0][0] == "0"


def test_repeated_id_in_one_batch_keeps_the_last() -> None:
    index = BM25Index()
    index.add(["a", "b", "a"], [["x", "y"], ["y"], ["z"]], [{}, {}, {"v": 2}])
    reference = BM25Okapi([["y"], ["z"]])
    assert len(index) == 2 and index.metadata("a") == {"v": 2}
    assert index.document_frequency("x") == 0
    live = index.scores(["y", "z"])[[1, 2]]
    assert np.allclose(live, reference.get_scores(["y", "z"]))
