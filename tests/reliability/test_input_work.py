"""No input hurts: readers and section chunkers do work linear in their input's size and
nesting depth. Work is counted as Python lines run (``sys.settrace``), never timed: the
same input shape at n and 4n must cost at most ~4x. The one check of C-level work (a
regex) compares against the same machine's work on a benign input of the same size."""

from __future__ import annotations

import json
import random
import sys
import time
from collections.abc import Callable

import pytest

from ragloom.chunking.markdown import MarkdownChunker
from ragloom.chunking.rst import RstChunker
from ragloom.readers.base import SkipFile, SpanLookup, TextSpan
from ragloom.readers.html import HtmlReader
from ragloom.readers.notebook import NotebookReader


def lines_run(work: Callable[[], object]) -> int:
    """How many Python lines ``work()`` runs (generator and comprehension lines included)."""
    count = 0

    def tracer(frame: object, event: str, arg: object) -> object:
        nonlocal count
        count += event == "line"
        return tracer

    previous = sys.gettrace()
    sys.settrace(tracer)  # type: ignore[arg-type]
    try:
        work()
    finally:
        sys.settrace(previous)
    return count


def assert_linear(make: Callable[[int], Callable[[], object]], n: int) -> None:
    """The work at 4n is at most 4.4 times the work at n (quadratic work gives ~16)."""
    small, large = lines_run(make(n)), lines_run(make(4 * n))
    assert large <= 4.4 * small, (small, large, round(large / small, 1))


def _html(text: str) -> Callable[[], object]:
    return lambda: HtmlReader().read("page.html", text.encode())


HTML_SHAPES = {
    # 100k nested tags (1.1 MB) stalled indexing ~10 minutes: each end tag scanned the stack
    "nested": lambda n: "<div>" * n + "deep" + "</div>" * n,
    "unclosed with stray end tags": lambda n: "<div>" * n + "deep" + "</span>" * n,
    "nested paragraphs never closed": lambda n: "<div><p>text " * n,
    # each start tag looked for an enclosing article/main through the whole stack
    "nested inside article": lambda n: "<article>" + "<section><header>h</header>" * n,
    "nested lists": lambda n: "<ul><li>item" * n + "</li></ul>" * n,
    "nested tables": lambda n: "<table><tr><td>cell" * n + "</td></tr></table>" * n,
}


@pytest.mark.parametrize("shape", sorted(HTML_SHAPES))
def test_html_work_is_linear_in_nesting_depth(shape: str) -> None:
    assert_linear(lambda n: _html(HTML_SHAPES[shape](n)), 500)


def test_deeply_nested_html_keeps_its_text() -> None:
    read = HtmlReader().read("page.html", ("<div>" * 20_000 + "deep text" + "</div>" * 20_000).encode())
    assert read.text == "deep text\n"


@pytest.mark.parametrize("opening", ["<a", "</", "<?", "<!", "<!--"])
def test_openings_that_never_close_cost_what_plain_text_does(opening: str) -> None:
    """The standard library's parser rescanned the rest of the page for each ``<`` that
    could not close (``"<a" * 80_000``, 160 KB: 73 s): C-level regex work, so compared with
    the same machine reading a page of plain text as long, not with a clock bound."""
    count = 40_000 // len(opening)
    hostile = _best_seconds(_html("<p>intro</p>" + opening * count))
    plain = _best_seconds(_html("<p>intro</p>" + "x" * len(opening) * count))
    assert hostile <= 20 * plain + 0.1, (hostile, plain)


def _markdown(text: str) -> Callable[[], object]:
    return lambda: MarkdownChunker(1000, 200).chunk(text, "doc.md")


MARKDOWN_SHAPES = {
    # every long section scanned every block of the document
    "many long sections": lambda n: "".join(f"# Part {i}\n\n" + "word " * 230 + "\n\n" + "more " * 10
                                           + "\n" for i in range(n // 20)),
    "many headings": lambda n: "".join(f"{'#' * (i % 6 + 1)} title {i} ##\n" for i in range(n)),
    "unclosed fences": lambda n: "```\ncode\n" * n,
    "setext headings": lambda n: "".join(f"Title {i}\n=====\n\ntext\n\n" for i in range(n)),
}


@pytest.mark.parametrize("shape", sorted(MARKDOWN_SHAPES))
def test_markdown_work_is_linear(shape: str) -> None:
    assert_linear(lambda n: _markdown(MARKDOWN_SHAPES[shape](n)), 400)


def test_rst_work_is_linear() -> None:
    def make(n: int) -> Callable[[], object]:
        text = "".join(f"Part {i}\n{'=-~'[i % 3] * 12}\n\n" + "word " * 230 + "\n\n" for i in range(n))
        return lambda: RstChunker(1000, 200).chunk(text, "doc.rst")

    assert_linear(make, 20)


def _best_seconds(work: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - started)
    return best


def test_a_heading_with_a_long_run_of_spaces_costs_what_one_of_letters_does() -> None:
    """The heading regex backtracked quadratically on spaces (20k spaces: 7.5 s). Compared
    with the same machine chunking a heading as long without spaces, not with a clock bound."""
    spaces = _best_seconds(_markdown("# x" + " " * 20_000 + "y\n"))
    letters = _best_seconds(_markdown("# x" + "a" * 20_000 + "y\n"))
    assert spaces <= 5 * letters + 0.05, (spaces, letters)


@pytest.mark.parametrize(("line", "title"), [
    ("# Install", "Install"), ("## From source ##", "From source"), ("### Spaces #  \t", "Spaces"),
    ("# C# ", "C#"), ("# #", "#"), ("#", ""), ("#   ", ""), ("# a # b", "a # b"),
    ("## trailing#", "trailing#"), ("   ### indented", "indented"),
])
def test_atx_heading_titles(line: str, title: str) -> None:
    chunks = MarkdownChunker(1000, 200).chunk(f"{line}\n\nbody text\n", "doc.md")
    assert chunks[0].metadata["heading"] == title


@pytest.mark.parametrize("line", ["#5 bolts", "####### seven", "    # code block"])
def test_lines_that_are_not_atx_headings(line: str) -> None:
    chunks = MarkdownChunker(1000, 200).chunk(f"{line}\n\nbody text\n", "doc.md")
    assert chunks[0].metadata["heading"] == ""


def test_a_notebook_nested_too_deep_is_skipped_with_a_reason() -> None:
    nested = '{"cells": [' + "[" * 100_000 + "]" * 100_000 + "]}"
    with pytest.raises(SkipFile, match="nested too deep"):
        NotebookReader().read("deep.ipynb", nested.encode())


def test_notebook_work_is_linear_in_cell_count() -> None:
    def make(n: int) -> Callable[[], object]:
        cells = ",".join('{"cell_type": "code", "source": ["x = 1\\n", "y = 2\\n"]}' for _ in range(n))
        data = ('{"cells": [' + cells + "]}").encode()
        return lambda: NotebookReader().read("book.ipynb", data)

    assert_linear(make, 300)


def test_span_lookup_work_is_linear_in_the_spans() -> None:
    """Every chunk's page or cell was found by scanning every span: a notebook of 8,000
    cells spent 5 s there (32,000 cells: 80 s)."""
    def make(n: int) -> Callable[[], object]:
        lookup = SpanLookup(tuple(TextSpan(3 * i + 1, 3 * i + 2, {"cell": i}) for i in range(n)))
        return lambda: [lookup.metadata_for(3 * i + 1, 3 * i + 4) for i in range(n)]

    assert_linear(make, 300)


def _brute_force(spans: list[TextSpan], start: int, end: int) -> dict[str, object]:
    first: dict[str, object] = {}
    last: dict[str, object] = {}
    for span in spans:
        if span.end_line >= start and span.start_line <= end:
            for key, value in span.metadata.items():
                first.setdefault(key, value)
                last[key] = value
    return {**first, **{f"{k}_end": v for k, v in last.items() if v != first[k]}}


@pytest.mark.parametrize("seed", range(20))
def test_span_lookup_answers_as_a_scan_of_every_span(seed: int) -> None:
    rng = random.Random(seed)
    line, spans = 1, []
    for index in range(rng.randint(0, 30)):
        line += rng.randint(0, 3)
        length = rng.randint(0, 4)
        spans.append(TextSpan(line, line + length, {"page": index, "kind": index % 3}))
        line += length + 1
    if seed % 4 == 0:
        rng.shuffle(spans)  # out of order: looked up by a scan
    if seed % 4 == 1 and spans:
        spans.append(TextSpan(1, line, {"whole": True}))  # overlapping the others
    lookup = SpanLookup(tuple(spans))
    for _ in range(50):
        start = rng.randint(0, line + 2)
        end = start + rng.randint(0, 8)
        assert lookup.metadata_for(start, end) == _brute_force(spans, start, end)


def test_a_notebook_is_chunked_cell_by_cell_in_linear_work() -> None:
    from helpers import hash_config
    from ragloom.chunking.registry import FileChunker

    chunker = FileChunker(hash_config())

    def make(n: int) -> Callable[[], object]:
        cells = [{"cell_type": "code", "source": [f"x{i} = {i}\n"]} if i % 2 else
                 {"cell_type": "markdown", "source": [f"# Cell {i}\n"]} for i in range(n)]
        read = NotebookReader().read("book.ipynb", json.dumps({"cells": cells}).encode())
        segments = [span for span in read.spans if span.language]
        return lambda: chunker.chunk(read.text, "book.ipynb", None, segments)

    assert_linear(make, 200)


def test_a_pdf_page_of_blank_lines_is_trimmed_in_linear_time() -> None:
    """Leading blank lines were dropped one ``pop(0)`` at a time (C-level, quadratic):
    compared with the same machine trimming a page of text lines as many."""
    from ragloom.readers.pdf import _clean

    blank = _best_seconds(lambda: _clean("\n" * 60_000 + "text\n"))
    text = _best_seconds(lambda: _clean("x\n" * 60_000))
    assert _clean("\n \n" * 3 + "a \nb\n\n") == "a\nb\n"
    assert blank <= 10 * text + 0.05, (blank, text)
