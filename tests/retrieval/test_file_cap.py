"""At most ``max_per_file`` results from one file, unless too few other results exist."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import write
from ragloom.retrieval.file_cap import cap_per_file
from ragloom.types import SearchResult

MANY = "".join(f"def comet_tail_{i}(comet):\n    return comet.tail * {i}  # comet tail dust\n\n\n"
               for i in range(8))


def result(path: str, index: int) -> SearchResult:
    return SearchResult(f"{path}#{index}", "text", {"path": path}, 0.5, 0.5)


def test_the_cap_steps_results_aside_and_tops_up_from_them() -> None:
    ranked = [result("a.py", 1), result("a.py", 2), result("a.py", 3), result("b.py", 1),
              result("a.py", 4)]
    assert [r.id for r in cap_per_file(ranked, 3, 2)] == ["a.py#1", "a.py#2", "b.py#1"]
    assert [r.id for r in cap_per_file(ranked, 5, 2)] == ["a.py#1", "a.py#2", "b.py#1", "a.py#3",
                                                          "a.py#4"]
    assert [r.id for r in cap_per_file(ranked, 3, 0)] == ["a.py#1", "a.py#2", "a.py#3"]
    for top_k in range(1, 5):  # a prefix of the longer list, whatever top_k
        assert cap_per_file(ranked, top_k, 2) == cap_per_file(ranked, 5, 2)[:top_k]


@pytest.mark.parametrize("store", ["memory", "turboquant"])
def test_one_file_does_not_fill_the_results(make_engine, project: Path, store: str) -> None:
    write(project, "comets.py", MANY)
    for i in range(4):
        write(project, f"sky_{i}.py", f"def star_{i}(sky):\n    return sky.comet_{i}  # a comet\n")
    engine = make_engine(chunk_size=120, chunk_overlap=0, vector_store={"provider": store})
    engine.index_directory()
    capped = engine.search("comet tail dust", top_k=5)  # the default: one result per file
    assert sum(r.path == "comets.py" for r in capped) == 1 and len(capped) == 5
    engine.config.retrieval = engine.config.retrieval.model_copy(update={"max_per_file": 2})
    assert sum(r.path == "comets.py" for r in engine.search("comet tail dust", top_k=5)) == 2
    engine.config.retrieval = engine.config.retrieval.model_copy(update={"max_per_file": 0})
    uncapped = engine.search("comet tail dust", top_k=5)
    assert sum(r.path == "comets.py" for r in uncapped) > 2


def test_one_file_alone_still_fills_top_k(make_engine, project: Path) -> None:
    write(project, "comets.py", MANY)
    engine = make_engine(chunk_size=120, chunk_overlap=0)
    engine.index_directory()
    assert len(engine.search("comet tail dust", top_k=5)) == 5
