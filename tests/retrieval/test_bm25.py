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
from ragloom.retrieval.bm25_files import load_index, save_index
from ragloom.retrieval.tokenize import tokenize
from ragloom.segments import record_written

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
    save_index(index, tmp_path / "bm25")
    loaded = load_index(tmp_path / "bm25")
    assert len(loaded) == 198 and "5" not in loaded
    assert loaded.metadata("7") == {"n": 7}
    for query in queries[:10]:
        assert_same_ranking(loaded.top_k(query, 10), index.top_k(query, 10))
    assert not list((tmp_path / "bm25").glob(".*tmp")), "no temp file left behind"


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


def reference_scores(live: dict[str, list[str]], query: list[str]) -> dict[str, float]:
    reference = BM25Okapi(list(live.values()))
    return dict(zip(live, reference.get_scores(query)))


def assert_matches_reference(index: BM25Index, live: dict[str, list[str]],
                             queries: list[list[str]]) -> None:
    """Every live document's score equals rank-bm25's on exactly the live documents."""
    assert len(index) == len(live) and sorted(index.ids()) == sorted(live)
    for query in queries:
        want = reference_scores(live, query)
        got = dict(index.top_k(query, len(live)))
        assert got == pytest.approx({doc: score for doc, score in want.items() if doc in got}, abs=1e-9)
        assert set(got) == {doc for doc, tokens in live.items() if set(query) & set(tokens)}


def test_saving_appends_a_segment_and_rewrites_nothing(tmp_path: Path) -> None:
    docs, queries = cranfield_tokens(300)
    folder = tmp_path / "bm25"
    index = BM25Index()
    index.add([str(i) for i in range(150)], docs[:150], [{}] * 150)
    save_index(index, folder)
    first = {path.name: path.stat().st_ino for path in folder.glob("*.seg")}
    written = index.bytes_written
    index.add([str(i) for i in range(150, 160)], docs[150:160], [{}] * 10)
    index.remove(["3"])
    save_index(index, folder)
    assert {path.name: path.stat().st_ino for path in folder.glob("*.seg")}.items() >= first.items()
    assert index.bytes_written - written < written / 5  # ten documents, not the whole index again
    live = {str(i): docs[i] for i in range(160) if i != 3}
    assert_matches_reference(load_index(folder), live, queries[:15])


def test_many_saves_merge_segments_and_keep_exact_scores(tmp_path: Path) -> None:
    """Windows of every size, deletes and replacements between saves: after reopening,
    scores equal rank-bm25 over the live documents; merges keep the segments few and
    write each document a bounded number of times."""
    docs, queries = cranfield_tokens(600)
    rng = random.Random(5)
    folder = tmp_path / "bm25"
    index = BM25Index()
    live: dict[str, list[str]] = {}
    added = 0
    for window in range(60):
        size = rng.choice([1, 3, 8, 20])
        ids = [f"d{added + i}" for i in range(size)]
        tokens = [docs[(added + i) % len(docs)] for i in range(size)]
        added += size
        index.add(ids, tokens, [{"w": window}] * size)
        live.update(zip(ids, tokens))
        if window % 4 == 3:
            doomed = rng.sample(sorted(live), 3)
            index.remove(doomed)
            for doc_id in doomed:
                del live[doc_id]
        if window % 5 == 4:
            again = rng.choice(sorted(live))
            index.add([again], [docs[window]], [{"w": -1}])
            live[again] = docs[window]
        save_index(index, folder)
        if window % 10 == 9:
            index = load_index(folder)
    assert len(list(folder.glob("*.seg"))) <= 24
    reopened = load_index(folder)
    assert_matches_reference(reopened, live, queries[:25])
    assert reopened.metadata(again) == {"w": -1}


def test_removals_alone_are_saved(tmp_path: Path) -> None:
    docs, queries = cranfield_tokens(100)
    index = build(docs)
    save_index(index, tmp_path / "bm25")
    index.remove(["1", "2"])
    save_index(index, tmp_path / "bm25")
    reopened = load_index(tmp_path / "bm25")
    assert len(reopened) == 98 and "1" not in reopened and reopened.top_k(docs[1], 200)
    assert "1" not in dict(reopened.top_k(docs[1], 200))


def test_repeated_id_in_one_batch_survives_a_save(tmp_path: Path) -> None:
    index = BM25Index()
    index.add(["a", "b", "a"], [["x", "y"], ["y"], ["z"]], [{}, {}, {"v": 2}])
    save_index(index, tmp_path / "bm25")
    reopened = load_index(tmp_path / "bm25")
    assert len(reopened) == 2 and reopened.metadata("a") == {"v": 2}
    assert reopened.document_frequency("x") == 0 and reopened.top_k(["x"], 5) == []


@pytest.mark.parametrize("recorded", [True, False], ids=["written-by-ragloom", "user-file"])
def test_an_unlisted_segment_is_ignored_and_removed_only_if_ragloom_wrote_it(
        tmp_path: Path, recorded: bool) -> None:
    """A crash between writing a segment (recorded in the folder's ledger first) and listing
    it leaves a file the next save removes; a user's file of the same shape is ignored by
    loading and never deleted."""
    docs, _ = cranfield_tokens(50)
    index = build(docs)
    save_index(index, tmp_path / "bm25")
    if recorded:
        record_written(tmp_path / "bm25", "00000099.seg")
    (tmp_path / "bm25" / "00000099.seg").write_bytes(b"half written, never listed")
    reopened = load_index(tmp_path / "bm25")
    assert len(reopened) == 50
    reopened.add(["new"], [["novel"]], [{}])
    save_index(reopened, tmp_path / "bm25")
    assert (tmp_path / "bm25" / "00000099.seg").exists() is not recorded


def test_colliding_term_hashes_keep_terms_apart(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Terms are found by a 64-bit hash, then checked by their text: a collision (forced
    here: a few buckets for the whole vocabulary) changes no score."""
    import ragloom.retrieval.bm25 as bm25_module
    import ragloom.retrieval.bm25_segment as segment_module

    def few_buckets(text: str) -> int:
        return len(text) % 5

    monkeypatch.setattr(segment_module, "key_hash", few_buckets)
    monkeypatch.setattr(bm25_module, "key_hash", few_buckets)
    docs, queries = cranfield_tokens(200)
    index = BM25Index()
    index.add([str(i) for i in range(100)], docs[:100], [{}] * 100)
    save_index(index, tmp_path / "bm25")
    index.add([str(i) for i in range(100, 200)], docs[100:200], [{}] * 100)
    index.compact()
    save_index(index, tmp_path / "bm25")
    live = {str(i): docs[i] for i in range(200)}
    for query in queries[:20]:
        if all(np.log(200 - index.document_frequency(t) + 0.5) >= np.log(index.document_frequency(t) + 0.5)
               for t in query):  # the idf floor counts distinct hashes: leave it out
            want = reference_scores(live, query)
            assert dict(load_index(tmp_path / "bm25").top_k(query, 200)) == pytest.approx(
                {doc: score for doc, score in want.items() if score}, abs=1e-9)


def test_a_term_scores_the_same_densely_and_at_its_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    """Common terms are scored over the whole segment, rare ones at their rows: both ways
    give the same scores and the same matched rows."""
    from ragloom.retrieval import bm25_scoring

    rng = np.random.default_rng(5)
    length_norm = rng.uniform(0.5, 2.0, 1_000)
    rows = np.sort(rng.choice(1_000, 300, replace=False)).astype(np.int32)
    tfs = rng.integers(1, 5, 300).astype(np.uint16)
    outcomes = []
    for share in (1_000_000, 1):  # every term dense, then every term at its rows
        monkeypatch.setattr(bm25_scoring, "DENSE_SHARE", share)
        scores, matched = np.full(1_000, 0.5), np.zeros(1_000, dtype=bool)
        bm25_scoring.add_term_scores(scores, matched, length_norm, rows, tfs, 2.5)
        outcomes.append((scores, matched))
    (dense, dense_matched), (sparse, sparse_matched) = outcomes
    assert np.allclose(dense, sparse, rtol=0, atol=1e-12)
    assert np.flatnonzero(dense_matched).tolist() == rows.tolist() == np.flatnonzero(sparse_matched).tolist()
    expected = 0.5 + 2.5 * tfs / (tfs + length_norm[rows])
    assert np.allclose(sparse[rows], expected, rtol=0, atol=1e-12)
