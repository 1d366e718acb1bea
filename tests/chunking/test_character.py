"""Character chunking: exact windows, overlap, line numbers and ids."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from properties import check_chunks, stdlib_sources

from ragloom.chunking import CharacterChunker, chunk_id
from ragloom.chunking.measure import CharacterMeasure


def test_empty_and_blank_text_give_no_chunks() -> None:
    chunker = CharacterChunker(100, 20)
    assert chunker.chunk("", "a.txt") == []
    assert chunker.chunk("  \n\n\t ", "a.txt") == []


def test_short_text_is_one_chunk() -> None:
    chunks = CharacterChunker(1000, 200).chunk("hello\nworld\n", "docs/a.txt")
    assert len(chunks) == 1
    chunk = chunks[0]
    assert chunk.text == "hello\nworld\n"
    assert chunk.id == chunk_id("docs/a.txt", 0)
    assert chunk.metadata == {
        "chunker": "character", "path": "docs/a.txt", "chunk_index": 0,
        "start_line": 1, "end_line": 2, "start_char": 0, "end_char": 12,
    }


def test_a_line_longer_than_a_window_is_cut_between_words() -> None:
    words = " ".join(f"w{i:03d}" for i in range(500))  # one 2,499-char line of 4-char words
    chunks = CharacterChunker(1000, 200).chunk(words, "x.txt")
    starts = [c.metadata["start_char"] for c in chunks]
    assert starts == [0, 800, 1600]
    assert [len(c.text) for c in chunks] == [1000, 1000, 899]
    assert all(words[start - 1] == " " for start in starts[1:])
    assert all(c.text.endswith(" ") for c in chunks[:-1])


def test_a_word_longer_than_a_window_is_cut_where_the_window_ends() -> None:
    text = "".join(chr(ord("a") + i % 26) for i in range(2500))
    chunks = CharacterChunker(1000, 200).chunk(text, "x.txt")
    assert [c.metadata["start_char"] for c in chunks] == [0, 1000, 2000]


def test_windows_are_whole_lines_and_overlap_in_whole_lines() -> None:
    text = "".join(f"{i:02d}" + "x" * 26 + "\n" for i in range(10))  # ten 29-char lines
    chunks = CharacterChunker(100, 40).chunk(text, "x.txt")
    assert [(c.metadata["start_line"], c.metadata["end_line"]) for c in chunks] == [
        (1, 3), (3, 5), (5, 7), (7, 9), (9, 10)]
    assert all(c.text.endswith("\n") for c in chunks)
    assert [c.metadata["start_char"] for c in chunks] == [0, 58, 116, 174, 232]


def test_a_window_never_repeats_more_than_it_adds() -> None:
    text = "a" * 44 + "\n" + "b" * 44 + "\n" + "end\n"
    chunks = CharacterChunker(92, 50).chunk(text, "x.txt")
    assert [c.text for c in chunks] == ["a" * 44 + "\n" + "b" * 44 + "\n", "end\n"]


def test_line_numbers_of_each_window() -> None:
    text = "".join(f"line {i:03d}\n" for i in range(1, 101))  # 9 chars per line
    chunks = CharacterChunker(90, 18).chunk(text, "x.txt")
    first, second = chunks[0], chunks[1]
    assert (first.metadata["start_line"], first.metadata["end_line"]) == (1, 10)
    assert second.metadata["start_char"] == 72
    assert (second.metadata["start_line"], second.metadata["end_line"]) == (9, 18)


def test_ids_are_deterministic_and_distinct() -> None:
    assert chunk_id("a.py", 0) == chunk_id("a.py", 0)
    assert len({chunk_id("a.py", 0), chunk_id("a.py", 1), chunk_id("b.py", 0)}) == 3
    # The scheme is part of the on-disk format: sha256("path\0index"), 32 hex digits.
    assert chunk_id("a.py", 0) == hashlib.sha256(b"a.py\x000").hexdigest()[:32]


def test_sentence_boundaries_cut_after_a_sentence() -> None:
    sentence = "This is a sentence. "
    text = sentence * 10  # 200 chars
    chunks = CharacterChunker(90, 10, sentence_boundaries=True).chunk(text, "x.txt")
    assert chunks[0].text == sentence * 4
    plain = CharacterChunker(90, 10).chunk(text, "x.txt")
    assert len(plain[0].text) == 90


def test_sentence_boundaries_ignore_cuts_before_the_last_fifth() -> None:
    text = "Short. " + "x" * 200
    chunks = CharacterChunker(100, 10, sentence_boundaries=True).chunk(text, "x.txt")
    assert len(chunks[0].text) == 100


@settings(max_examples=200, deadline=None)
@given(text=st.text(alphabet=st.sampled_from("ab \n.!"), max_size=600),
       size=st.integers(5, 120), overlap_share=st.floats(0, 0.9),
       sentences=st.booleans())
def test_chunks_are_exact_slices_covering_the_text(text: str, size: int, overlap_share: float,
                                                   sentences: bool) -> None:
    overlap = min(int(size * overlap_share), size - 1)
    chunks = CharacterChunker(size, overlap, sentences).chunk(text, "p.txt")
    lines = text.split("\n")
    covered = [False] * len(text)
    for index, chunk in enumerate(chunks):
        start = chunk.metadata["start_char"]
        assert text[start:start + len(chunk.text)] == chunk.text
        assert len(chunk.text) <= size
        assert chunk.metadata["chunk_index"] == index
        assert chunk.metadata["start_line"] == text.count("\n", 0, start) + 1
        end = start + len(chunk.text) - 1
        assert chunk.metadata["end_line"] == text.count("\n", 0, end) + 1
        assert chunk.metadata["end_line"] <= len(lines)
        for position in range(start, start + len(chunk.text)):
            covered[position] = True
    assert all(covered[i] for i, char in enumerate(text) if not char.isspace())
    for chunk in chunks:  # whole lines, unless a line is longer than a chunk
        start, end = chunk.metadata["start_char"], chunk.metadata["end_char"]
        if len(lines[chunk.metadata["start_line"] - 1]) + 1 <= size:
            assert start == 0 or text[start - 1] == "\n", chunk.metadata
        if len(lines[chunk.metadata["end_line"] - 1]) + 1 <= size:
            assert end == len(text) or text[end - 1] == "\n", chunk.metadata


@pytest.mark.slow
def test_whole_standard_library_in_whole_lines() -> None:
    """Every module cut by lines: exact slices, whole lines, coverage, never more repeated
    than added between consecutive windows."""
    chunker = CharacterChunker(1000, 200)
    for path, source in stdlib_sources():
        chunks = chunker.chunk(source, path.name)
        check_chunks(chunks, source, 1000)
        for before, after in zip(chunks, chunks[1:]):
            repeated = max(0, before.metadata["end_char"] - after.metadata["start_char"])
            added = after.metadata["end_char"] - before.metadata["end_char"]
            assert repeated <= added, (path, after.metadata)


class CountingMeasure(CharacterMeasure):
    """Characters, counting how many characters ``fit`` was handed."""

    def __init__(self) -> None:
        self.looked_at = 0

    def fit(self, text: str, budget: int) -> int:
        self.looked_at += len(text)
        return super().fit(text, budget)


@pytest.mark.parametrize("separator", [" ", ";"])
def test_one_long_line_is_chunked_in_linear_work(separator: str) -> None:
    """A 50 MB single-line file took 519 s: each window measured the whole rest of the line.
    The characters measured per character of the line must not grow with its length."""
    ratios = []
    for words in (20_000, 80_000):
        line = separator.join(f"w{index % 997}x" for index in range(words))
        measure = CountingMeasure()
        chunks = CharacterChunker(1000, 200, measure=measure).chunk(line, "big.js")
        assert "".join(c.text for c in chunks).replace(separator, "").startswith("w0xw1x")
        ratios.append(measure.looked_at / len(line))
    assert ratios[1] <= 1.1 * ratios[0] and ratios[1] <= 20, ratios


def test_cutting_a_long_line_gives_the_same_chunks_as_measuring_the_whole_rest() -> None:
    """Looking at a prefix changes no cut (the measure sees whole words in the first half)."""

    class WholeRest(CharacterChunker):
        def _fit(self, text: str, start: int, end: int, budget: int) -> int:
            return self.measure.fit(text[start:end], budget)

    line = " ".join(f"word{index % 89}" + ("." if index % 13 == 0 else "") for index in range(6000))
    text = "head line\n" + line + "\ntail\n"
    for size, overlap, sentences in ((300, 60, False), (1000, 200, True), (77, 0, True)):
        fast = CharacterChunker(size, overlap, sentences).chunk(text, "a.txt")
        slow = WholeRest(size, overlap, sentences).chunk(text, "a.txt")
        assert [(c.text, c.metadata) for c in fast] == [(c.text, c.metadata) for c in slow]

