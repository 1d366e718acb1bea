"""The markdown section chunker: headings, paths, fences, front matter, long sections."""

from __future__ import annotations

import sysconfig
from pathlib import Path

import pytest
from properties import MARKDOWN_HEADING_LINE, check_chunks

from ragloom.chunking.markdown import MarkdownChunker

DOC = """---
title: Guide
---

Intro paragraph before any heading.

# Install

Run the installer.

## From source

```bash
# this is a comment, not a heading
make install
```

### Build flags

Use -O2.

#### Deep heading stays inside its section

Detail.

Usage
=====

Call it.

API
---

The API.
"""


def sections(chunks):
    return [(c.metadata["kind"], c.metadata["heading"], c.metadata["heading_path"],
             c.metadata["start_line"], c.metadata["end_line"]) for c in chunks]


def test_one_chunk_per_section_with_heading_paths() -> None:
    chunks = MarkdownChunker(1000, 100).chunk(DOC, "guide.md")
    assert sections(chunks) == [
        ("preamble", "", "", 1, 5),
        ("section", "Install", "Install", 7, 9),
        ("section", "From source", "Install > From source", 11, 16),
        ("section", "Build flags", "Install > From source > Build flags", 18, 24),
        ("section", "Usage", "Usage", 26, 29),
        ("section", "API", "Usage > API", 31, 34),
    ]
    assert chunks[0].text.startswith("---\ntitle: Guide\n---\n")
    assert "# this is a comment, not a heading" in chunks[2].text
    assert "#### Deep heading" in chunks[3].text
    check_chunks(chunks, DOC, 1000)


def test_front_matter_joins_first_section_when_no_preamble_text() -> None:
    text = "---\ntitle: x\n---\n# Title\nBody.\n"
    chunks = MarkdownChunker().chunk(text, "a.md")
    assert len(chunks) == 1
    assert chunks[0].text == text and chunks[0].metadata["heading"] == "Title"


def test_heading_level_is_configurable() -> None:
    chunks = MarkdownChunker(1000, 100, max_level=1).chunk(DOC, "guide.md")
    assert [c.metadata["heading"] for c in chunks] == ["", "Install", "Usage"]
    check_chunks(chunks, DOC, 1000)


def test_long_section_splits_on_paragraphs_with_overlap_and_heading() -> None:
    paragraphs = [f"Paragraph {i} " + "word " * 30 for i in range(12)]
    text = "# Long\n\n" + "\n\n".join(paragraphs) + "\n"
    chunks = MarkdownChunker(400, 200).chunk(text, "long.md")
    assert len(chunks) > 3
    for chunk in chunks:
        assert chunk.metadata["heading"] == "Long"
    for chunk in chunks[1:]:
        assert chunk.text.startswith("# Long\n")
        body = chunk.text[len("# Long\n"):]
        assert body.startswith("Paragraph"), "pieces start on a paragraph boundary"
    firsts = [c.text.split("Paragraph ")[1].split(" ")[0] for c in chunks[1:]]
    previous_lasts = [c.text.rsplit("Paragraph ", 1)[1].split(" ")[0] for c in chunks[:-1]]
    assert any(int(a) <= int(b) for a, b in zip(firsts, previous_lasts)), "paragraph overlap"
    check_chunks(chunks, text, 400)


def test_code_fence_is_never_cut() -> None:
    fence = "```python\n" + "".join(f"x_{i} = {i}\n\n" for i in range(10)) + "```\n"
    text = "# Code\n\n" + "Intro " * 30 + "\n\n" + fence + "\nAfter " * 20 + "\n"
    chunks = MarkdownChunker(300, 50).chunk(text, "c.md")
    assert len(fence) < 300
    holders = [c for c in chunks if "```python" in c.text]
    assert len(holders) == 1 and fence.strip() in holders[0].text
    check_chunks(chunks, text, 300)


def test_oversized_fence_splits_by_lines_repeating_the_fence_opener() -> None:
    fence = "~~~js\n" + "".join(f"let v{i} = {i};\n" for i in range(80)) + "~~~\n"
    text = "## Big\n" + fence
    chunks = MarkdownChunker(200, 20).chunk(text, "big.md")
    assert len(chunks) > 3
    for chunk in chunks[1:]:
        assert chunk.text.startswith("## Big\n~~~js\n")
    check_chunks(chunks, text, 200)


def test_unbalanced_fence_runs_to_end_without_losing_text() -> None:
    text = "# A\n```\ncode\n# not heading\n\nmore\n"
    chunks = MarkdownChunker().chunk(text, "u.md")
    assert [c.metadata["heading"] for c in chunks] == ["A"]
    check_chunks(chunks, text, 1000)


def test_no_headings_and_empty() -> None:
    assert MarkdownChunker().chunk("", "e.md") == []
    chunks = MarkdownChunker().chunk("just text\n", "t.md")
    assert chunks[0].metadata["kind"] == "preamble" and chunks[0].text == "just text\n"


def test_thematic_break_after_blank_line_is_not_a_heading() -> None:
    text = "# T\n\npara\n\n---\n\nmore\n"
    assert [c.metadata["heading"] for c in MarkdownChunker().chunk(text, "t.md")] == ["T"]


def installed_markdown_files() -> list[Path]:
    roots = {Path(sysconfig.get_paths()["purelib"]), Path(sysconfig.get_paths()["stdlib"])}
    files = sorted({p for root in roots for p in root.rglob("*.md") if p.is_file()})
    return files


@pytest.mark.slow
@pytest.mark.parametrize("chunk_size,overlap", [(1000, 200), (300, 60)])
def test_every_installed_markdown_file(chunk_size: int, overlap: int) -> None:
    files = installed_markdown_files()
    assert files, "site-packages ships markdown files"
    chunker = MarkdownChunker(chunk_size, overlap)
    for path in files:
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        check_chunks(chunker.chunk(text, path.name), text, chunk_size, MARKDOWN_HEADING_LINE)


def test_a_section_that_is_only_its_heading_opens_the_next_section() -> None:
    text = "# Releases\n\n## v2.6.18\n\n### Fixes\n\n- one\n- two\n\n## v2.6.17\n\nNotes.\n"
    chunks = MarkdownChunker(1000, 100).chunk(text, "CHANGES.md")
    assert sections(chunks) == [
        ("section", "Fixes", "Releases > v2.6.18 > Fixes", 1, 8),
        ("section", "v2.6.17", "Releases > v2.6.17", 10, 12),
    ]
    assert chunks[0].text.startswith("# Releases\n\n## v2.6.18\n\n### Fixes\n")


def test_a_long_list_is_cut_between_items() -> None:
    items = "".join(f"- item {i:02d} says something useful\n" for i in range(20))  # 32 chars each
    text = f"# List\n\n{items}"
    chunks = MarkdownChunker(200, 40).chunk(text, "l.md")
    assert [(c.metadata["start_line"], c.metadata["end_line"]) for c in chunks] == [
        (1, 8), (8, 13), (13, 18), (18, 22)]
    assert all(c.text.startswith("# List\n- item") for c in chunks[1:])
    check_chunks(chunks, text, 200, MARKDOWN_HEADING_LINE)


def test_headings_that_leave_no_room_for_the_next_line_never_make_it_start_mid_line() -> None:
    # Found in a package's README: two headings and a 270-character paragraph at 300 chars.
    paragraph = " ".join(["Sentence number one is here."] * 9) + " Tail end words."
    text = f"## Index\n\n### Construction\n\n{paragraph}\n\n### Query\n\nShort.\n"
    chunks = MarkdownChunker(300, 60).chunk(text, "README.md")
    check_chunks(chunks, text, 300, MARKDOWN_HEADING_LINE)
    second = chunks[1]
    assert second.metadata["start_line"] == 5
    assert second.text == "### Construction\n" + paragraph + "\n"
