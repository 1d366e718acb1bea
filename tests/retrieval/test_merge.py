"""One slot per place: ranked parts of one function are merged into one result."""

from __future__ import annotations

from pathlib import Path

from helpers import write

LONG_FUNCTION = "def convert(records):\n" + "".join(
    f"    zebra_{i} = records[{i}] * {i}  # zebra stripes\n" for i in range(40)) + "    return records\n"


def index(make_engine, project: Path, **overrides):
    write(project, "convert.py", LONG_FUNCTION)
    for i in range(6):
        write(project, f"m{i}.py", f"def other_{i}(value):\n    return value * {i} + {i}\n")
    engine = make_engine(chunk_size=600, chunk_overlap=100, **overrides)
    engine.index_directory()
    return engine


def test_consecutive_parts_become_one_result_spanning_both(make_engine, project: Path) -> None:
    engine = index(make_engine, project)
    parts = [c for c in engine.store.get(engine.store.ids()) if c.metadata.get("symbol") == "convert"]
    assert len(parts) >= 3
    results = engine.search("zebra stripes records", top_k=4)
    converts = [r for r in results if r.metadata.get("symbol") == "convert"]
    assert len(converts) == 1
    merged = converts[0]
    ids = merged.metadata["merged_ids"].split(",")
    assert len(ids) == len(parts)
    lines = LONG_FUNCTION.split("\n")
    first, last = merged.metadata["start_line"], merged.metadata["end_line"]
    assert (first, last) == (1, len(lines) - 1)
    assert merged.text == "\n".join(lines[first - 1:last]) + "\n"
    assert len(results) == 4  # freed slots are refilled with other results


def test_merging_can_be_switched_off(make_engine, project: Path) -> None:
    engine = index(make_engine, project, retrieval={"merge_parts": False})
    results = engine.search("zebra stripes records", top_k=4)
    assert sum(r.metadata.get("symbol") == "convert" for r in results) >= 2
    assert all("merged_ids" not in r.metadata for r in results)
