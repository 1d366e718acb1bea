"""Every prior in one sort: the test prior and the import prior compose (an import-prior
sort after the test prior used to undo the test demotion)."""

from __future__ import annotations

from pathlib import Path

from helpers import crowded_project
from ragloom.retrieval.import_prior import prior_for_imports
from ragloom.retrieval.priors import reweigh
from ragloom.retrieval.test_prior import prior_for_tests
from ragloom.types import RetrieverHit, SearchResult


def _result(doc_id: str, score: float, source_type: str = "code", kind: str = "function",
            name: bool = False) -> SearchResult:
    result = SearchResult(doc_id, "", {"source_type": source_type, "kind": kind}, 0.5, 0.5,
                          rank_score=score)
    if name:
        result.retrievers["name"] = RetrieverHit(1, 1.0)
    return result


def _candidates() -> list[SearchResult]:
    return [_result("t1", 0.9, "test"), _result("i1", 0.85, kind="imports"),
            _result("c1", 0.8), _result("c2", 0.4), _result("ti", 0.95, "test", "imports"),
            _result("c3", 0.3), _result("t2", 0.7, "test", name=True)]


def test_test_and_import_priors_compose_in_one_sort() -> None:
    order = reweigh(_candidates(), [prior_for_tests(0.5), prior_for_imports(0.0)])
    # t2 found by name keeps 0.7; t1 0.45 under c1, over c2; i1 and the test's own import
    # block (0.5 * 0 = 0) after every other candidate, in rank order
    assert [r.id for r in order] == ["c1", "t2", "t1", "c2", "c3", "ti", "i1"]
    assert [r.rank_score for r in order] == [0.8, 0.7, 0.9, 0.4, 0.3, 0.95, 0.85]


def test_a_soft_import_weight_multiplies_with_the_test_weight() -> None:
    order = reweigh(_candidates(), [prior_for_tests(0.5), prior_for_imports(0.5)])
    # i1 0.425, t1 0.45, ti 0.95 * 0.25 = 0.2375
    assert [r.id for r in order] == ["c1", "t2", "t1", "i1", "c2", "c3", "ti"]


def test_no_prior_or_weights_of_one_keep_the_ranking() -> None:
    ids = [r.id for r in _candidates()]
    assert [r.id for r in reweigh(_candidates(), [])] == ids
    assert [r.id for r in reweigh(_candidates(), [prior_for_tests(1.0), prior_for_imports(1.0)])] == ids


def test_negative_scores_still_go_down_and_ties_keep_their_order() -> None:
    results = [_result("t", -0.1, "test"), _result("c", -0.12), _result("a", 0.2, "test"),
               _result("b", 0.1)]
    # t: -0.1 / 0.5 = -0.2 under c; a: 0.2 * 0.5 = 0.1 ties with b and stays first
    assert [r.id for r in reweigh(results, [prior_for_tests(0.5)])] == ["a", "b", "c", "t"]


def test_demoted_tests_leave_the_window_to_code(make_engine, project: Path) -> None:
    """Tests crowding every candidate the window holds step aside for the code ranked after
    them; the per-file cap no longer refills the top 5 from the test file."""
    crowded_project(project)
    plain = make_engine(chunk_size=60, chunk_overlap=0,
                        retrieval={"max_per_file": 0, "test_weight": 1.0})
    plain.index_directory()
    ranked = [r.metadata["path"] for r in plain.search("ledger balance", top_k=36)]
    assert ranked[:30] == ["tests/test_ledger.py"] * 30  # every test over every function
    assert ranked[30:] == [f"app/ledger{n}.py" for n in (4, 1, 5, 0, 3, 2)]
    engine = make_engine(chunk_size=60, chunk_overlap=0)
    engine.index_directory()
    found = [r.metadata["path"] for r in engine.search("ledger balance", top_k=5)]
    assert found == [f"app/ledger{n}.py" for n in (4, 1, 5, 0, 3)]
    about_tests = engine.search("ledger balance tests", top_k=5)  # not demoted: first, capped
    assert [r.metadata["path"] for r in about_tests] == ["tests/test_ledger.py"] * 2 + [
        f"app/ledger{n}.py" for n in (4, 1, 5)]


def test_scores_equal_to_the_tie_decimals_keep_the_ranking_order() -> None:
    """Two builds of one index may compute a score with a last-bit difference; once any
    prior demotes a candidate the sort must not let that bit reorder the others."""
    for first, second in ((0.3447, 0.3447 + 1e-12), (0.3447 + 1e-12, 0.3447)):
        candidates = [_result("a", first), _result("b", second), _result("t", 0.9, "test")]
        assert [r.id for r in reweigh(candidates, [prior_for_tests(0.1)])] == ["a", "b", "t"]
        demoted = [_result("x", first, kind="imports"), _result("y", second, kind="imports")]
        assert [r.id for r in reweigh(demoted, [prior_for_imports(0.0)])] == ["x", "y"]
