"""Stylesheets are cut between top-level rules: a window never starts inside a rule's
declarations, a comment stays with the rule below it, braces in comments and URLs do not
count, and a rule longer than a window is cut between its lines."""

from __future__ import annotations

from ragloom.chunking.registry import FileChunker, language_for_path
from ragloom.chunking.stylesheet import StylesheetChunker, rules
from ragloom.config import RAGConfig
from ragloom.indexing.source_types import SourceTypes

THEME_SCSS = """@use "sass:color";
$accent: #0c4b33; // brand green { not a block }

/* The toggle in the header: {sun} and {moon} icons */
.theme-toggle {
    cursor: pointer;
    background: url(https://example.org/icons/toggle.svg);

    &:hover {
        color: color.adjust($accent, $lightness: 10%);
    }
}

@media (prefers-color-scheme: dark) {
    html:not([data-theme="light"]) {
        --body-bg: #0c0c0c;
        --text: #f5f5f5;
    }
}
.badge { padding: 0 4px; }
"""


def test_units_end_where_a_rule_closes_or_a_statement_ends() -> None:
    assert rules(THEME_SCSS.split("\n"), line_comments=True) == [(1, 1), (2, 2), (3, 12), (13, 19), (20, 20)]
    # plain CSS has no // comments: "//" in a selector-free line is text, not a comment
    assert rules(["a { color: red; }", "/* { */", "b {", "  top: 0;", "}"], line_comments=False) == [
        (1, 1), (2, 5)]


def test_chunks_keep_rules_whole_with_their_comments() -> None:
    chunks = StylesheetChunker(line_comments=True, chunk_size=240).chunk(THEME_SCSS, "scss/_theme.scss")
    spans = [(c.metadata["start_line"], c.metadata["end_line"]) for c in chunks]
    assert spans == [(1, 2), (4, 12), (14, 20)]
    assert chunks[1].text.startswith("/* The toggle in the header")
    assert {c.metadata["chunker"] for c in chunks} == {"stylesheet"}


def test_a_rule_longer_than_a_window_is_cut_between_lines() -> None:
    body = "\n".join(f"    --color-{n}: #{n:06x};" for n in range(80))
    text = f"html[data-theme=\"dark\"] {{\n{body}\n}}\n.after {{ top: 0; }}\n"
    chunks = StylesheetChunker(line_comments=False, chunk_size=300).chunk(text, "dark.css")
    assert len(chunks) > 4 and all(len(c.text) <= 300 for c in chunks)
    assert chunks[-1].text.rstrip().endswith(".after { top: 0; }")
    assert [c.metadata["start_line"] for c in chunks] == sorted(c.metadata["start_line"] for c in chunks)


def test_css_scss_and_less_files_get_it_and_stay_text() -> None:
    assert [language_for_path(p) for p in ("a.css", "b.scss", "c.less")] == ["css", "scss", "less"]
    chunks = FileChunker(RAGConfig(chunk_size=1000)).chunk(THEME_SCSS, "scss/_theme.scss")
    assert {(c.metadata["language"], c.metadata["chunker"]) for c in chunks} == {("scss", "stylesheet")}
    assert SourceTypes().of("scss/_theme.scss", "scss") == "text"


def test_comments_and_urls_on_one_line_are_read_once() -> None:
    """``//`` is searched once per line and moved forward: a line of many block comments
    and URLs costs its length, and what lies outside the comments is kept."""
    line = "a { b: url(https://x/y); } /* c { */ " * 3 + "// d {"
    assert rules([line, "e { top: 0; }"], line_comments=True) == [(1, 1), (2, 2)]
    # plain CSS has no // comments: "// d {" opens a block that the next line does not close
    assert rules([line, "e { top: 0; }"], line_comments=False) == [(1, 2)]
    from ragloom.chunking.stylesheet import _code_of
    assert _code_of(line, False, True) == ("a { b: url(https://x/y); }  " * 3, False)
    assert _code_of("/*a*//*b*/x/* y", False, True) == ("x", True)
