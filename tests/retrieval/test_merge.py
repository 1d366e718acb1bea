"""One slot per place: ranked parts of one function are merged into one result."""

from __future__ import annotations

from pathlib import Path

from helpers import write
from ragloom.retrieval.merge import MERGE_PARTS, merge_adjacent_parts, part_ids
from ragloom.types import SearchResult

LONG_FUNCTION = "def convert(records):\n" + "".join(
    f"    zebra_{i} = records[{i}] * {i}  # zebra stripes\n" for i in range(40)) + "    return records\n"


def index(make_engine, project: Path, **overrides):
    write(project, "convert.py", LONG_FUNCTION)
    for i in range(6):
        write(project, f"m{i}.py", f"def other_{i}(value):\n    return value * {i} + {i}\n")
    engine = make_engine(chunk_size=800, chunk_overlap=100, **overrides)
    engine.index_directory()
    return engine


def test_consecutive_parts_become_one_result_spanning_both(make_engine, project: Path) -> None:
    engine = index(make_engine, project)
    parts = [c for c in engine.store.get(engine.store.ids()) if c.metadata.get("symbol") == "convert"]
    assert 2 <= len(parts) <= MERGE_PARTS
    results = engine.search("zebra stripes records", top_k=4)
    converts = [r for r in results if r.metadata.get("symbol") == "convert"]
    assert len(converts) == 1
    merged = converts[0]
    ids = merged.metadata["merged_ids"].split(",")
    assert len(ids) >= 2 and ids[0] == merged.id
    by_id = {c.id: c for c in parts}
    spans = sorted((by_id[i].metadata["start_line"], by_id[i].metadata["end_line"]) for i in ids)
    first, last = merged.metadata["start_line"], merged.metadata["end_line"]
    assert (first, last) == (spans[0][0], max(end for _, end in spans))
    lines = LONG_FUNCTION.split("\n")
    body = "\n".join(lines[first - 1:last]) + "\n"
    assert merged.text.endswith(body) and merged.text.count("zebra_0 =") <= 1
    assert len(results) == 4  # freed slots are refilled with other results


def test_merging_can_be_switched_off(make_engine, project: Path) -> None:
    engine = index(make_engine, project, retrieval={"merge_parts": False, "max_per_file": 0})
    results = engine.search("zebra stripes records", top_k=4)
    assert sum(r.metadata.get("symbol") == "convert" for r in results) >= 2
    assert all("merged_ids" not in r.metadata for r in results)


UPLOAD = ("class UploadService:\n    def store(self, upload):\n" + "".join(
    f"        step_{i} = self.check(upload, {i})  # validate upload part {i}\n" for i in range(30))
    + "        saved = self.disk.put(upload.name, upload.body)  # store the upload on disk\n"
    + "        return saved\n")


def test_the_first_result_is_the_same_at_any_top_k(make_engine, project: Path) -> None:
    """Parts merge before the results are cut to top_k: ``top_k = 1`` returns the merged
    definition ``top_k = 5`` starts with, not the one part that ranked first."""
    write(project, "UploadService.py", UPLOAD)
    for i in range(8):
        write(project, f"other_{i}.py", f"def helper_{i}(upload):\n    return upload.part_{i}  # disk\n")
    engine = make_engine(chunk_size=400, chunk_overlap=0)
    engine.index_directory()
    queries = ["store the upload on disk", "validate upload part", "upload body saved on disk"]
    for query in queries:
        for mode in ("dense", "hybrid"):
            wide = engine.search(query, top_k=5, mode=mode)
            for top_k in (1, 2, 3):
                narrow = engine.search(query, top_k=top_k, mode=mode)
                assert [(r.id, r.text, r.metadata.get("merged_ids")) for r in narrow] == [
                    (r.id, r.text, r.metadata.get("merged_ids")) for r in wide[:top_k]], (query, mode, top_k)
    first = engine.search("store the upload on disk", top_k=1)[0]
    assert first.metadata.get("merged_ids")  # one merged definition, not a tail


SURVEY = "# Field guide\n\n## Glacier survey\n\n" + "".join(
    f"Glacier survey note {i} line {j} measures the ice sheet thickness.\n"
    for i in range(10) for j in range(12))


def test_a_long_section_comes_back_in_results_of_at_most_three_parts(make_engine, project: Path) -> None:
    """Ten ranked parts of one section, about 780 characters each: results of at most
    ``MERGE_PARTS`` times that (three parts), every part's id in exactly one result whose
    text holds that part's lines."""
    write(project, "guide.md", SURVEY)
    for i in range(6):
        write(project, f"other_{i}.md", f"# Other {i}\n\nA cooking recipe {i} with tomatoes.\n")
    engine = make_engine(chunk_size=800, chunk_overlap=0, retrieval={"max_per_file": 0})
    engine.index_directory()
    parts = {c.id: c for c in engine.store.get(engine.store.ids()) if c.metadata["path"] == "guide.md"}
    assert len(parts) == 10
    results = engine.search("glacier survey ice sheet thickness", top_k=10)
    guide = [r for r in results if r.metadata["path"] == "guide.md"]
    ids = [part_ids(r) for r in guide]
    assert sorted(i for group in ids for i in group) == sorted(parts)
    assert all(len(group) <= MERGE_PARTS for group in ids) and len(guide) == 4
    lines = SURVEY.split("\n")
    for result, group in zip(guide, ids, strict=True):
        first, last = result.metadata["start_line"], result.metadata["end_line"]
        assert (first, last) == (min(parts[i].metadata["start_line"] for i in group),
                                 max(parts[i].metadata["end_line"] for i in group))
        assert result.text.endswith("\n".join(lines[first - 1:last]) + "\n")
    for top_k in range(1, 6):  # merged results are the same at any top_k
        narrow = engine.search("glacier survey ice sheet thickness", top_k=top_k)
        assert [(r.id, r.text, r.metadata.get("merged_ids")) for r in narrow] == [
            (r.id, r.text, r.metadata.get("merged_ids")) for r in results[:top_k]], top_k


def _part(name: str, first: int, last: int) -> SearchResult:
    text = "".join(f"{name} line {n}\n" for n in range(first, last + 1))
    return SearchResult(name, text, {"path": "a.md", "heading_path": "A", "start_line": first,
                                     "end_line": last}, 0.5, 0.5)


def test_a_bridging_part_keeps_the_ids_of_both_sides() -> None:
    """p2 joins {p1} and the already merged {p3, p4}: all four chunks are in the text."""
    p1, p2, p3, p4 = _part("p1", 1, 10), _part("p2", 11, 20), _part("p3", 21, 30), _part("p4", 31, 40)
    merged = merge_adjacent_parts([p1, p3, p4, p2], parts=4)
    assert [(r.id, r.metadata["merged_ids"], r.metadata["start_line"], r.metadata["end_line"])
            for r in merged] == [("p1", "p1,p2,p3,p4", 1, 40)]
    assert merged[0].text == p1.text + p2.text + p3.text + p4.text


def test_a_part_past_the_bound_grows_the_side_it_fits_or_stands_alone() -> None:
    """Parts of about 110 characters: a result holds at most 3 x 110 of text."""
    p = [_part(f"p{i}", 10 * i + 1, 10 * i + 10) for i in range(6)]
    merged = merge_adjacent_parts([p[0], p[1], p[3], p[4], p[2], p[5]])  # p2 would bridge 5 parts
    assert [r.metadata.get("merged_ids") for r in merged] == ["p0,p1,p2", "p3,p4,p5"]
    inside = _part("in", 12, 18)  # all its lines are in the full result already
    alone = merge_adjacent_parts([p[0], p[1], p[2], p[3], inside])
    assert [(r.id, r.metadata.get("merged_ids")) for r in alone] == [("p0", "p0,p1,p2,in"), ("p3", None)]
    assert all(len(r.text) <= MERGE_PARTS * len(p[1].text) for r in [*merged, *alone])
