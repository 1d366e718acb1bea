"""A search with ``top_k = k`` returns the first ``k`` results of the same search with a
larger ``top_k``: fusion, the priors and merging look at windows that do not depend on
``top_k``. The bound: exact while both searches take the same candidate pool (``2 * top_k``
at most ``retrieval.candidate_k``); past it, a larger ``top_k`` appends further candidates
after the window, which may give the per-file cap other files to take where the smaller
search had to top up from parts over the cap."""

from __future__ import annotations

from pathlib import Path

from helpers import crowded_project

LEDGER = "ledger balance"


def _runs(engine, query: str, sizes: tuple[int, ...]) -> dict[int, list[tuple[str, str]]]:
    return {k: [(r.id, str(r.metadata["path"])) for r in engine.search(query, top_k=k)] for k in sizes}


def test_the_per_file_cap_chooses_among_every_place_whatever_top_k(make_engine, project: Path) -> None:
    """Merging looked at only ``top_k`` places past its window, so the cap topped a small
    top_k up with more parts of the test file while a large one reached the code: now every
    place is looked at, the test file's parts over the cap waiting for the code files until
    those rank under STEP_ASIDE_SHARE of them, whatever top_k."""
    crowded_project(project)
    engine = make_engine(chunk_size=60, chunk_overlap=0)
    engine.index_directory()
    runs = _runs(engine, f"{LEDGER} tests", (1, 2, 5, 8, 36))
    found = [path for _, path in runs[36]]
    assert found[:2] == ["tests/test_ledger.py"] * 2 and len(found) == 36
    assert sorted(p for p in found if p.startswith("app/")) == [f"app/ledger{n}.py" for n in range(6)]
    for k, results in runs.items():
        assert results == runs[36][:k], k


def test_priors_reorder_a_window_that_does_not_grow_with_top_k(make_engine, project: Path) -> None:
    """The priors reordered every candidate of the pool, and the pool grows with a large
    top_k: code past the first 20 candidates (demoted tests) came first only then."""
    crowded_project(project)
    engine = make_engine(chunk_size=60, chunk_overlap=0, retrieval={"candidate_k": 1, "max_per_file": 0})
    engine.index_directory()
    runs = _runs(engine, LEDGER, (1, 5, 10, 18, 36))
    assert [path for _, path in runs[36]] == ["tests/test_ledger.py"] * 30 + [
        f"app/ledger{n}.py" for n in (4, 1, 5, 0, 3, 2)]
    for k, found in runs.items():
        assert found == runs[36][:k], k
