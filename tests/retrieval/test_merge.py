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
