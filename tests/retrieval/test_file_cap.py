"""At most ``max_per_file`` results from one file, unless too few other results exist or
the others rank much lower."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import write
from ragloom.retrieval.file_cap import cap_per_file
from ragloom.types import SearchResult

MANY = "".join(f"def comet_tail_{i}(comet):\n    return comet.tail * {i}  # comet tail dust\n\n\n"
               for i in range(8))


def result(path: str, index: int, rank: float | None = None, source_type: str = "text") -> SearchResult:
    cosine = 0.5 if rank is None else rank  # as if the ranking were the cosines'
    return SearchResult(f"{path}#{index}", "text", {"path": path, "source_type": source_type}, cosine,
                        1 - cosine, rank_score=rank)


def test_the_cap_steps_results_aside_and_tops_up_from_them() -> None:
    ranked = [result("a.py", 1), result("a.py", 2), result("a.py", 3), result("b.py", 1),
              result("a.py", 4)]
    assert [r.id for r in cap_per_file(ranked, 3, 2)] == ["a.py#1", "a.py#2", "b.py#1"]
    assert [r.id for r in cap_per_file(ranked, 5, 2)] == ["a.py#1", "a.py#2", "b.py#1", "a.py#3",
                                                          "a.py#4"]
    assert [r.id for r in cap_per_file(ranked, 3, 0)] == ["a.py#1", "a.py#2", "a.py#3"]
    for top_k in range(1, 5):  # a prefix of the longer list, whatever top_k
        assert cap_per_file(ranked, top_k, 2) == cap_per_file(ranked, 5, 2)[:top_k]


def test_a_part_over_the_cap_steps_aside_only_for_results_ranking_close_to_it() -> None:
    """Far down the ranking another file's part is a weaker answer than a second part of
    a file that matched: a part over the cap comes back before the first result whose
    cosine is under 0.7 of its own."""
    ranked = [result("a.md", 1, 1.0), result("a.md", 2, 0.9), result("b.md", 1, 0.8),
              result("a.md", 3, 0.6), result("c.md", 1, 0.62), result("d.md", 1, 0.4)]
    # b.md (0.8 >= 0.7 * 0.9) passes a.md#2; c.md (0.62 < 0.63) does not; a.md#3 waits for d.md
    assert [r.id for r in cap_per_file(ranked, 6, 1)] == ["a.md#1", "b.md#1", "a.md#2", "c.md#1",
                                                          "a.md#3", "d.md#1"]
    for top_k in range(1, 6):
        assert cap_per_file(ranked, top_k, 1) == cap_per_file(ranked, 6, 1)[:top_k]


@pytest.mark.parametrize("store", ["memory", "turboquant"])
def test_one_file_does_not_fill_the_results(make_engine, project: Path, store: str) -> None:
    """While other files match about as well, one file's many matching parts take no more
    than the cap."""
    write(project, "comets.py", MANY)
    for i in range(4):
        write(project, f"sky_{i}.py",
              f"def sky_comet_tail_{i}(sky):\n    return sky.comet.tail + {i}  # comet tail dust\n")
    engine = make_engine(chunk_size=120, chunk_overlap=0, vector_store={"provider": store})
    engine.index_directory()
    # the default: one result per file, one more from a file of code for a close part
    capped = engine.search("comet tail dust", top_k=5)
    assert sum(r.path == "comets.py" for r in capped) == 2 and len(capped) == 5
    engine.config.retrieval = engine.config.retrieval.model_copy(update={"max_per_file": 2})
    assert sum(r.path == "comets.py" for r in engine.search("comet tail dust", top_k=5)) == 3
    engine.config.retrieval = engine.config.retrieval.model_copy(update={"max_per_file": 0})
    uncapped = engine.search("comet tail dust", top_k=5)
    assert sum(r.path == "comets.py" for r in uncapped) > 2


def test_a_file_of_definitions_takes_one_close_part_beyond_the_cap() -> None:
    ranked = [result("a.py", 1, 1.0, "code"), result("a.py", 2, 0.7, "code"),
              result("a.py", 3, 0.7, "code"), result("b.py", 1, 0.69, "code"),
              result("b.py", 2, 0.48, "code"), result("c.txt", 1, 0.5),
              result("c.txt", 2, 0.5)]
    # a.py#2 ranks 0.7 of a.py's first: in; a.py#3 would be a third; b.py#2 0.48 / 0.69 < 0.7;
    # c.txt is a document, one result whatever its second part scores.
    assert [r.id for r in cap_per_file(ranked, 4, 1)] == ["a.py#1", "a.py#2", "b.py#1", "c.txt#1"]
    assert [r.id for r in cap_per_file(ranked, 7, 1)] == ["a.py#1", "a.py#2", "b.py#1", "c.txt#1",
                                                          "a.py#3", "b.py#2", "c.txt#2"]
    assert [r.id for r in cap_per_file(ranked, 5, 2)] == ["a.py#1", "a.py#2", "a.py#3", "b.py#1",
                                                          "b.py#2"]
    for kind in ("text", "pdf", "data"):  # documents: the cap as it is
        rows = [result("a", 1, 1.0, kind), result("a", 2, 0.99, kind), result("b", 1, 0.9, kind)]
        assert [r.id for r in cap_per_file(rows, 2, 1)] == ["a#1", "b#1"]


def test_a_projects_docs_take_one_close_section_beyond_the_cap() -> None:
    # a README's sections answer different questions: the second at 0.7 of the first comes
    # in, never a third; guide.md's second at 0.68 of its first (0.46 / 0.68) does not
    ranked = [result("README.md", 1, 1.0, "docs"), result("README.md", 2, 0.7, "docs"),
              result("README.md", 3, 0.69, "docs"), result("guide.md", 1, 0.68, "docs"),
              result("guide.md", 2, 0.46, "docs"), result("x.py", 1, 0.5, "code")]
    assert [r.id for r in cap_per_file(ranked, 4, 1)] == ["README.md#1", "README.md#2", "guide.md#1",
                                                          "x.py#1"]


def test_one_file_alone_still_fills_top_k(make_engine, project: Path) -> None:
    write(project, "comets.py", MANY)
    engine = make_engine(chunk_size=120, chunk_overlap=0)
    engine.index_directory()
    assert len(engine.search("comet tail dust", top_k=5)) == 5
