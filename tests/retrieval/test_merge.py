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


#: Empty lines of the file the members below come from; every other line is 9 characters.
EMPTY_LINES = frozenset({11, 12})


def _member(name: str, symbol: str, first: int, last: int, path: str = "cart.py",
            kind: str = "method", empty: frozenset[int] = EMPTY_LINES) -> SearchResult:
    text = "".join(f"{name} line {n}\n" for n in range(first, last + 1))
    start = sum(1 if n in empty else 10 for n in range(1, first))  # where line ``first`` starts
    end = start + sum(1 if n in empty else 10 for n in range(first, last + 1))  # after its line break
    return SearchResult(name, text, {"path": path, "symbol": symbol, "kind": kind, "start_line": first,
                                     "end_line": last, "start_char": start, "end_char": end}, 0.5, 0.5)


def test_members_never_merge_across_a_line_that_is_not_empty() -> None:
    """Line 11 holds code no chunk covers (a stray statement): the merged text would show it
    empty, so the methods stay apart."""
    merged = merge_adjacent_parts([_member("total", "Cart.total", 12, 20, empty=frozenset()),
                                   _member("add", "Cart.add", 1, 10, empty=frozenset())])
    assert [(r.id, r.metadata.get("merged_ids")) for r in merged] == [("total", None), ("add", None)]


def test_neighbouring_members_of_one_owner_merge_across_the_blank_line() -> None:
    """Cart.total ranks first, Cart.add (one blank line above it) third: one result holding
    both, the blank line between them blank, its slot going to the next result."""
    total, other, add = (_member("total", "Cart.total", 12, 20), _member("other", "helper", 1, 5, "x.py"),
                         _member("add", "Cart.add", 1, 10))
    merged = merge_adjacent_parts([total, other, add, _member("last", "tail", 1, 3, "y.py")])
    assert [(r.id, r.metadata.get("merged_ids"), r.metadata["start_line"], r.metadata["end_line"])
            for r in merged] == [("total", "total,add", 1, 20), ("other", None, 1, 5), ("last", None, 1, 3)]
    assert merged[0].text == add.text + "\n" + total.text
    php = merge_adjacent_parts([_member("a", "App\\Cart::add", 1, 10, "Cart.php"),
                                _member("t", "App\\Cart::total", 13, 20, "Cart.php")])
    assert [(r.metadata.get("merged_ids"), r.text.count("\n")) for r in php] == [("a,t", 20)]
    ruby = merge_adjacent_parts([_member("a", "Cart#add", 1, 10, "cart.rb"),
                                 _member("t", "Cart#total", 11, 20, "cart.rb")])
    assert [r.metadata.get("merged_ids") for r in ruby] == ["a,t"]


def test_parts_of_one_method_merge_across_the_blank_line_they_were_cut_at() -> None:
    """A chunker cuts a long method at a blank line and leaves it out of both parts: the
    two parts, ranking first and third, are one result with the blank line blank again;
    a line of code between them, or more than ``SIBLING_GAP`` lines, keeps them apart."""
    blank = frozenset({11})
    first = _member("p1", "Cart.add", 1, 10, empty=blank)
    second = _member("p2", "Cart.add", 12, 20, empty=blank)
    merged = merge_adjacent_parts([second, _member("o", "helper", 1, 5, "x.py"), first])
    assert [(r.id, r.metadata.get("merged_ids"), r.metadata["start_line"], r.metadata["end_line"])
            for r in merged] == [("p2", "p2,p1", 1, 20), ("o", None, 1, 5)]
    assert merged[0].text == first.text + "\n" + second.text
    stray = merge_adjacent_parts([_member("p1", "Cart.add", 1, 10, empty=frozenset()),
                                  _member("p2", "Cart.add", 12, 20, empty=frozenset())])
    far = merge_adjacent_parts([_member("p1", "Cart.add", 1, 10), _member("p2", "Cart.add", 14, 20)])
    assert [r.metadata.get("merged_ids") for r in stray + far] == [None] * 4


def test_a_class_head_and_the_member_after_it_are_one_result() -> None:
    """The chunk of a class's first lines (properties, constructor) and its next method,
    one blank line below it, both ranking: one result from the class line through the
    method, in Python's and PHP's symbols; a head of another class or file, or across a
    line of code, stays apart."""
    blank = frozenset({11})
    head = _member("head", "Cart", 1, 10, kind="class", empty=blank)
    add = _member("add", "Cart.add", 12, 20, empty=blank)
    merged = merge_adjacent_parts([add, _member("o", "helper", 1, 5, "x.py"), head])
    assert [(r.id, r.metadata.get("merged_ids"), r.metadata["start_line"], r.metadata["end_line"])
            for r in merged] == [("add", "add,head", 1, 20), ("o", None, 1, 5)]
    assert merged[0].text == head.text + "\n" + add.text
    php = merge_adjacent_parts([_member("h", "App\\Cart", 1, 10, "Cart.php", "class", blank),
                                _member("a", "App\\Cart::add", 12, 20, "Cart.php", empty=blank)])
    assert [r.metadata.get("merged_ids") for r in php] == ["h,a"]
    apart = [("Order", "Cart.add", "cart.py", blank), ("Cart", "Cart.add", "other.py", blank),
             ("Cart", "Cart.add", "cart.py", frozenset())]
    for symbol, member, path, empty in apart:
        pair = merge_adjacent_parts([_member("h", symbol, 1, 10, path, "class", empty),
                                     _member("a", member, 12, 20, empty=empty)])
        assert [r.metadata.get("merged_ids") for r in pair] == [None, None], (symbol, path)


def test_members_of_other_owners_far_apart_or_of_no_owner_stay_apart() -> None:
    cases = {"other owner": ("Cart.add", "Order.total", 11),
             "three lines between": ("Cart.add", "Cart.total", 14),
             "module functions": ("add", "total", 11),
             "another class and a member": ("Order", "Cart.total", 11)}
    for case, (first, second, start) in cases.items():
        merged = merge_adjacent_parts([_member("a", first, 1, 10), _member("b", second, start, 20)])
        assert [r.metadata.get("merged_ids") for r in merged] == [None, None], case
    apart = merge_adjacent_parts([_member("a", "Cart.add", 1, 10),
                                  _member("b", "Cart.total", 12, 20, "other.py")])
    assert len(apart) == 2
    keys = [_member("d", "app.debug", 1, 4, "app.php", "config"),  # line 5: an entry of no key's
            _member("t", "app.timezone", 6, 9, "app.php", "config"),
            _member("u", "app.url", 10, 12, "app.php", "config")]
    assert [r.metadata.get("merged_ids") for r in merge_adjacent_parts(keys)] == [None, "t,u"]


def test_past_the_window_a_member_takes_its_own_slot_and_a_part_is_dropped() -> None:
    fill = [_member(f"f{i}", f"f{i}", 1, 2, f"f{i}.py") for i in range(2)]
    merged = merge_adjacent_parts([_member("add", "Cart.add", 1, 10), *fill,
                                   _member("total", "Cart.total", 12, 20),
                                   _member("tail", "Cart.add", 11, 11)], window=3)
    assert [(r.id, r.metadata.get("merged_ids")) for r in merged] == [
        ("add", None), ("f0", None), ("f1", None), ("total", None)]


CART = ("class Cart:\n    \"\"\"A shopping cart.\"\"\"\n\n    def add(self, item):\n" + "".join(
    f"        line_{i} = item.price * {i}  # basket price\n" for i in range(10))
    + "        return line_0\n\n    def total(self):\n" + "".join(
    f"        sum_{i} = self.price_of({i})  # basket price total\n" for i in range(10))
    + "        return sum_0\n")


def test_two_methods_that_both_rank_come_back_as_one_passage(make_engine, project: Path) -> None:
    write(project, "cart.py", CART)
    for i in range(6):
        write(project, f"m{i}.py", f"def other_{i}(value):\n    return value * {i} + {i}\n")
    engine = make_engine(chunk_size=500, chunk_overlap=0)
    engine.index_directory()
    symbols = {c.metadata.get("symbol") for c in engine.store.get(engine.store.ids())
               if c.metadata["path"] == "cart.py"}
    assert {"Cart.add", "Cart.total"} <= symbols
    results = engine.search("basket price total", top_k=4)
    carts = [r for r in results if r.metadata["path"] == "cart.py"]
    assert len(carts) == 1 and len(carts[0].metadata["merged_ids"].split(",")) >= 2
    first, last = carts[0].metadata["start_line"], carts[0].metadata["end_line"]
    lines = CART.split("\n")
    assert "def add" in carts[0].text and "def total" in carts[0].text
    assert carts[0].text.endswith("\n".join(lines[first - 1:last]) + "\n")
    for top_k in (1, 2, 3):
        narrow = engine.search("basket price total", top_k=top_k)
        assert [(r.id, r.text) for r in narrow] == [(r.id, r.text) for r in results[:top_k]]
