"""What the embedder and BM25 read for a chunk: optionally a one-line header naming where
the chunk comes from (path, and symbol or heading path) before its text. The stored and
injected text stays the exact file slice; only the indexed text carries the header."""

from __future__ import annotations

from collections.abc import Callable

from ragloom.chunking.measure import TextMeasure
from ragloom.types import Metadata

#: Room a header may take (in the chunk size's unit); chunk sizes leave it free.
HEADER_TOKENS = 24
HEADER_CHARACTERS = 96

IndexedText = Callable[[str, Metadata], str]


def header_budget(measure: TextMeasure) -> int:
    return HEADER_TOKENS if measure.unit == "tokens" else HEADER_CHARACTERS


def chunk_header(metadata: Metadata) -> str:
    """``path: symbol`` (or heading path) of a file chunk, ``source_id: ...`` of an ingested
    text; empty for a chunk of any other source."""
    source = metadata.get("source")
    path = metadata.get("path") if source == "file" else metadata.get("source_id") if source == "text" \
        else None
    if not path:
        return ""
    place = metadata.get("symbols") or metadata.get("symbol") or metadata.get("heading_path") or ""
    return f"{path}: {place}\n" if place else f"{path}\n"


def indexed_text(measure: TextMeasure) -> IndexedText:
    """Chunk text with its header in front, the header cut to ``header_budget``."""
    budget = header_budget(measure)

    def with_header(text: str, metadata: Metadata) -> str:
        header = chunk_header(metadata)
        # A token spans at least one byte, so a header of at most ``budget`` bytes fits
        # without asking the tokenizer.
        if header and len(header.encode("utf-8")) > budget and measure.count(header) > budget:
            header = header[: measure.fit(header, budget)].rstrip("\n") + "\n"
        return header + text

    return with_header


def plain_text(text: str, metadata: Metadata) -> str:
    """The chunk text as is (no header)."""
    return text


def text_to_index(embed_header: bool, measure: TextMeasure) -> IndexedText:
    """What the embedder and BM25 read of a chunk, as ``chunking.embed_header`` says."""
    return indexed_text(measure) if embed_header else plain_text
