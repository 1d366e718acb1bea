"""Contextual compression: the exact lines a result keeps, its gap markers and line numbers,
and that a compressed search ranks exactly like an uncompressed one."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import write
from ragloom.config import ConfigError, parse_config
from ragloom.retrieval.compression import CompressionSettings, compress_results
from ragloom.retrieval.tokenize import tokenize
from ragloom.types import SearchResult

INVOICE = """class Invoice:
    \"\"\"An invoice.\"\"\"

    def total(self):
        return sum(self.lines)

    def tax_rate(self):
        rate = self.country.vat
        return rate

    def rounding(self):
        return 2

    def currency(self):
        return self.shop.currency

    def due(self):
        return self.date + 30"""


def chunk(text: str, start: int, end: int | None = None, **meta: object) -> SearchResult:
    end = start + text.count("\n") if end is None else end
    return SearchResult("c1", text, {"path": "shop.py", "start_line": start, "end_line": end, **meta},
                        0.8, 0.2)


def compressed(query: str, result: SearchResult, window: int = 0, threshold: float = 0.3,
               max_share: float = 0.8) -> SearchResult:
    """``result`` alone, compressed (whole_share 2, whole_top 0, dense_share 2: not spared)."""
    settings = CompressionSettings(window, threshold, max_share, whole_share=2.0, whole_top=0,
                                   dense_share=2.0)
    return compress_results(query, [result], tokenize, settings)[0]


def test_keeps_the_matching_lines_the_first_line_and_marks_each_gap() -> None:
    result = compressed("vat tax rate", chunk(INVOICE, 10))
    assert result.text == ("class Invoice:\n"
                           "... (lines 11-15 omitted)\n"
                           "    def tax_rate(self):\n"
                           "        rate = self.country.vat\n"
                           "        return rate\n"
                           "... (lines 19-27 omitted)")
    assert result.kept_lines == [(10, 10), (16, 18)]
    assert result.full_text == INVOICE
    assert (result.metadata["start_line"], result.metadata["end_line"]) == (10, 27)


def test_window_keeps_neighbours_and_a_one_line_gap_is_kept_not_marked() -> None:
    result = compressed("vat tax rate", chunk(INVOICE, 10), window=1)
    assert result.kept_lines == [(10, 10), (15, 19)]
    assert result.text.splitlines()[1] == "... (lines 11-14 omitted)"
    wider = compressed("vat tax rate", chunk(INVOICE, 10), window=2)
    assert wider.kept_lines == [(10, 10), (13, 20)]  # 11-12: a two-line gap stays a marker


def test_the_lines_owning_a_match_are_kept() -> None:
    text = ("def handler(request):\n"
            "    user = request.user\n"
            "    log(user)\n"
            "    if user.is_staff:\n"
            "        for item in request.items:\n"
            "            audit(item)\n"
            "            notify(item)\n"
            "            refund_payment(item)\n"
            "    log(done)\n"
            "    return done()")
    result = compressed("refund payment", chunk(text, 1))
    assert result.kept_lines == [(1, 1), (4, 5), (8, 8)]
    assert result.text.splitlines() == ["def handler(request):", "... (lines 2-3 omitted)",
                                        "    if user.is_staff:", "        for item in request.items:",
                                        "... (lines 6-7 omitted)", "            refund_payment(item)",
                                        "... (lines 9-10 omitted)"]


def test_the_markdown_heading_above_a_match_is_kept() -> None:
    text = "# Setup\nintro\n\n## Database\none\ntwo\nthree\nuse POSTGRES_HOST here\nfour\nfive"
    result = compressed("postgres host", chunk(text, 1, path="setup.md"))
    assert result.kept_lines == [(1, 1), (4, 4), (8, 8)]


def test_header_lines_in_front_of_the_slice_are_kept_and_not_counted_as_file_lines() -> None:
    """A chunker may repeat the class line above a method's slice: the text has one line
    more than ``start_line``-``end_line``."""
    slice_ = INVOICE.split("\n", 6)[6]  # file lines 16-27 when the class starts at line 10
    result = compressed("vat tax rate", chunk("class Invoice:\n" + slice_, 16, 27))
    assert result.kept_lines == [(16, 18)]
    assert result.text.splitlines()[:4] == ["class Invoice:", "    def tax_rate(self):",
                                            "        rate = self.country.vat", "        return rate"]
    assert result.text.splitlines()[4] == "... (lines 19-27 omitted)"


def test_first_line_is_kept_when_the_match_is_far_below_it() -> None:
    text = "def build(config):\n" + "".join(f"    step_{i}()\n" for i in range(2, 20)) + "    send_invoice()"
    result = compressed("send invoice", chunk(text, 1))
    assert result.kept_lines == [(1, 1), (20, 20)]
    assert result.text.splitlines()[0] == "def build(config):"


BILLING = """    /**
     * The rate a time entry is billed at.
     */
    public function rate(Entry $entry): int
    {
        $a = 1;
        $b = 2;
        $c = 3;
        $d = 4;
        $e = 5;
        return $entry->member->hourly_rate;
    }"""


def test_a_docblock_first_keeps_the_definition_line_below_it_not_the_docblock() -> None:
    result = compressed("hourly rate of the member", chunk(BILLING, 40, path="Billing.php"))
    assert result.kept_lines == [(43, 44), (50, 51)]  # "{" owns the match, "}" a one-line gap
    assert result.text.splitlines() == ["... (lines 40-42 omitted)",
                                        "    public function rate(Entry $entry): int",
                                        "    {",
                                        "... (lines 45-49 omitted)",
                                        "        return $entry->member->hourly_rate;",
                                        "    }"]


def test_a_lone_opening_brace_owning_a_match_brings_the_signature_above_it() -> None:
    text = ("class Billing\n{\n    public function a()\n    {\n        return 1;\n    }\n\n"
            "    public function rate()\n    {\n        $x = 1;\n        $y = 2;\n"
            "        return $this->hourly_rate;\n    }\n}")
    result = compressed("hourly", chunk(text, 1, path="Billing.php"))
    assert result.kept_lines == [(1, 2), (8, 9), (12, 12)]
    assert result.text.splitlines()[3:5] == ["    public function rate()", "    {"]


@pytest.mark.parametrize(("text", "path", "kept"), [
    # decorators right above the definition are kept with it
    ("@final\n@dataclass\nclass Invoice:\n" + "".join(f"    f{i}: int\n" for i in range(6)) + "    vat: int",
     "shop.py", [(1, 3), (10, 10)]),
    # a chunk of comments only keeps its first line
    ("# Storage\n" + "".join(f"# line {i}\n" for i in range(6)) + "# vat settings", "shop.py",
     [(1, 1), (8, 8)]),
    # in a prose file "#" is a heading, kept as the first line
    ("# Storage\n" + "".join(f"line {i}\n" for i in range(6)) + "vat settings", "notes.md", [(1, 1), (8, 8)]),
])
def test_what_counts_as_the_definition_line(text: str, path: str, kept: list[tuple[int, int]]) -> None:
    assert compressed("vat", chunk(text, 1, path=path)).kept_lines == kept


@pytest.mark.parametrize(("query", "result"), [
    ("weather forecast", chunk(INVOICE, 10)),  # no line holds a query term
    ("vat tax rate", chunk(INVOICE, 10, 12)),  # the text is not lines 10-12
    ("vat tax rate", chunk(INVOICE, 10, page=3)),  # a page of a PDF
    ("vat tax rate", SearchResult("c1", INVOICE, {"path": "shop.py"}, 0.8, 0.2)),  # no line numbers
])
def test_a_result_that_cannot_be_judged_stays_whole(query: str, result: SearchResult) -> None:
    kept = compressed(query, result)
    assert kept is result and kept.full_text is None and kept.kept_lines is None


def invoices(*scores: float) -> list[SearchResult]:
    """One result per score, each the whole INVOICE at file lines 10-27, in this order."""
    return [SearchResult(f"c{i}", INVOICE, {"path": f"{i}.py", "start_line": 10, "end_line": 27},
                         score, 1 - score) for i, score in enumerate(scores)]


def test_results_close_to_the_best_cosine_stay_whole() -> None:
    best, close, far = invoices(0.8, 0.75, 0.7)
    kept = compress_results("vat tax rate", [best, close, far], tokenize,
                            CompressionSettings(0, 0.3, whole_share=0.93, whole_top=0))
    assert kept[0] is best and kept[1] is close  # 0.75 >= 0.93 * 0.8
    assert kept[2].kept_lines == [(10, 10), (16, 18)] and [r.id for r in kept] == ["c0", "c1", "c2"]


def test_the_first_whole_top_results_stay_whole_whatever_their_cosine() -> None:
    results = invoices(0.3, 0.9, 0.2, 0.1)  # cosines need not fall with the rank (hybrid)
    kept = compress_results("vat tax rate", results, tokenize,
                            CompressionSettings(0, 0.3, whole_share=2.0, whole_top=2))
    assert kept[0] is results[0] and kept[1] is results[1]
    assert [r.kept_lines for r in kept[2:]] == [[(10, 10), (16, 18)], [(10, 10), (16, 18)]]


def test_a_result_without_a_matching_line_keeps_only_its_first_line() -> None:
    """Another result holds the query's words, this one none: its first line says what it is."""
    matching, other = chunk(INVOICE, 10), chunk("def send(mail):\n    queue.put(mail)\n    log(mail)\n"
                                                "    flush()\n    return True", 40)
    kept = compress_results("vat tax rate", [matching, other], tokenize,
                            CompressionSettings(0, 0.3, whole_share=2.0, whole_top=0))
    assert kept[0].kept_lines == [(10, 10), (16, 18)]
    assert kept[1].kept_lines == [(40, 40)]
    assert kept[1].text == "def send(mail):\n... (lines 41-44 omitted)"
    assert kept[1].full_text == other.text


def test_the_defaults_are_the_measured_ones() -> None:
    """bench/compression.py's best worst case; config and settings agree."""
    settings, config = CompressionSettings(), parse_config({}).retrieval
    assert (settings.whole_top, settings.whole_share, settings.window, settings.threshold,
            settings.dense_share, settings.dense_threshold) == (2, 0.9, 1, 0.7, 0.3, 0.3)
    assert (config.compress_whole_top, config.compress_whole_share, config.compress_window,
            config.compress_threshold, config.compress_dense_share,
            config.compress_dense_threshold) == (2, 0.9, 1, 0.7, 0.3, 0.3)


@pytest.mark.parametrize(("dense_share", "whole"), [(0.2, False), (0.16, True)])
def test_a_result_dense_with_the_query_stays_whole(dense_share: float, whole: bool) -> None:
    """INVOICE has 18 lines, 3 of them hold "tax", "rate" or "vat" (0.17): whole from 0.17 down."""
    result = chunk(INVOICE, 10)
    [kept] = compress_results("vat tax rate", [result], tokenize, CompressionSettings(
        0, 0.3, whole_share=2.0, whole_top=0, dense_share=dense_share, dense_threshold=0.1))
    assert (kept is result) == whole
    if not whole:
        assert kept.kept_lines == [(10, 10), (16, 18)]


def test_a_result_keeping_most_of_its_lines_stays_whole() -> None:
    result = compressed("return self", chunk(INVOICE, 10), window=1, max_share=0.8)
    assert result.full_text is None and result.text == INVOICE


def test_a_trailing_line_break_is_kept() -> None:
    result = compressed("vat tax rate", chunk(INVOICE + "\n", 10, 27))
    assert result.text.endswith("(lines 19-27 omitted)\n") and result.kept_lines == [(10, 10), (16, 18)]


# -- through the engine -------------------------------------------------------------------------

LEDGER = "def ledger(entries):\n" + "".join(
    f"    entry_{i} = entries[{i}]\n" for i in range(1, 30)) + "    return reconcile_vat(entries)\n"


@pytest.fixture
def engine(make_engine, project: Path):
    write(project, "ledger.py", LEDGER)
    write(project, "notes.md", "# Notes\n" + "".join(f"line {i} about nothing\n" for i in range(30))
          + "vat is reconciled monthly\n")
    engine = make_engine(retrieval={"compress_whole_share": 2.0, "compress_whole_top": 0})  # none spared
    engine.index_directory()
    return engine


@pytest.mark.parametrize("mode", ["dense", "sparse", "hybrid"])
def test_compression_changes_only_the_text(engine, mode: str) -> None:
    plain = engine.search("reconcile vat", top_k=5, mode=mode)
    small = engine.search("reconcile vat", top_k=5, mode=mode, compress=True)
    assert [r.id for r in small] == [r.id for r in plain]
    assert [(r.score, r.rank_score, r.metadata) for r in small] == [
        (r.score, r.rank_score, r.metadata) for r in plain]
    assert [r.full_text for r in small] == [r.text for r in plain]
    ledger = next(r for r in small if r.metadata["path"] == "ledger.py")
    assert ledger.kept_lines == [(1, 1), (30, 31)]  # the default window: 1
    assert ledger.text.startswith("def ledger(entries):\n... (lines 2-29 omitted)\n")


def test_the_async_twins_take_compress(engine) -> None:
    import asyncio

    direct = engine.search("reconcile vat", top_k=2, compress=True)
    found = asyncio.run(engine.asearch("reconcile vat", top_k=2, compress=True))
    detailed = asyncio.run(engine.asearch_detailed("reconcile vat", top_k=2, compress=True))
    assert [(r.id, r.text, r.kept_lines) for r in found] == [(r.id, r.text, r.kept_lines) for r in direct]
    assert [r.kept_lines for r in detailed.results] == [r.kept_lines for r in direct]
    assert "compress" in detailed.timings_ms and any(r.kept_lines for r in direct)


def test_the_config_key_turns_it_on_and_the_argument_overrides_it(make_engine, project: Path) -> None:
    write(project, "ledger.py", LEDGER)
    engine = make_engine(retrieval={"compress": True, "compress_window": 0, "compress_whole_share": 2.0,
                                    "compress_whole_top": 0})
    engine.index_directory()
    [on] = engine.search("reconcile vat", top_k=1)
    assert on.kept_lines == [(1, 1), (31, 31)]
    [off] = engine.search("reconcile vat", top_k=1, compress=False)
    assert off.kept_lines is None and off.full_text is None
    assert off.text.rstrip("\n") == LEDGER.rstrip("\n")


def test_compress_must_be_a_flag(engine) -> None:
    with pytest.raises(TypeError, match="compress must be True, False or None, got 'yes'"):
        engine.search("vat", compress="yes")


@pytest.mark.parametrize(("key", "value"), [("compress", "often"), ("compress_window", -1),
                                            ("compress_threshold", 0.0), ("compress_threshold", 1.5),
                                            ("compress_whole_share", -0.1), ("compress_whole_top", -1),
                                            ("compress_dense_share", -1), ("compress_dense_threshold", 0)])
def test_bad_compression_settings_name_the_key(key: str, value: object) -> None:
    with pytest.raises(ConfigError, match=rf"retrieval.{key}"):
        parse_config({"retrieval": {key: value}})
