"""What the embedder and BM25 read for a chunk: optionally a one-line header naming where
the chunk comes from (path, and symbol or heading path) before its text, and its route
registrations in words (``route_lines``). The stored and injected text stays the exact
file slice; only the indexed text carries the header."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import PurePosixPath

from ragloom.chunking.measure import TextMeasure
from ragloom.chunking.route_lines import readable_routes
from ragloom.chunking.setting_lines import readable_settings
from ragloom.types import Metadata

#: Room a header may take (in the chunk size's unit); chunk sizes leave it free.
HEADER_TOKENS = 24
HEADER_CHARACTERS = 96

IndexedText = Callable[[str, Metadata], str]


def header_budget(measure: TextMeasure) -> int:
    return HEADER_TOKENS if measure.unit == "tokens" else HEADER_CHARACTERS


def chunk_header(metadata: Metadata) -> str:
    """``path: symbol`` (or heading path) of a file chunk; the heading path or symbols of
    an ingested text without its source id (ids are mostly opaque: "1042", "ticket-7",
    and on Cranfield embedding them cost 0.007 nDCG@10); empty for any other source."""
    source = metadata.get("source")
    path = metadata.get("path") if source == "file" else metadata.get("source_id") if source == "text" \
        else None
    if not path:
        return ""
    symbols = metadata.get("symbols") or metadata.get("symbol")
    place = short_symbols(str(symbols), str(path)) if symbols else metadata.get("heading_path") or ""
    if source == "text":
        return f"{place}\n" if place else ""
    return f"{path}: {place}\n" if place else f"{path}\n"


def _shorter_paths(header: str) -> list[str]:
    """``header`` with its path's leading folders dropped one by one (the file name kept):
    when the header is over its budget, the names after the path matter more than the
    folders (``a/b/c/file.php: X::m`` -> ``b/c/file.php: X::m`` -> ...)."""
    path, colon, rest = header.partition(": ")
    if not colon or "\n" in path:
        return []
    folders = path.split("/")
    return ["/".join(folders[i:]) + colon + rest for i in range(1, len(folders))]


#: Separators of qualified names in the languages chunked (``\\``, ``::``, ``->``, ``#``, ``.``).
_SEPARATOR = re.compile(r"(\\|::|->|#|\.)")


def short_symbols(symbols: str, path: str) -> str:
    """A chunk's symbols as its header names them, so the few header tokens name every
    definition rather than one namespace over and over: each name once, without the
    namespace (``App\\Models\\User::save`` -> ``User::save``) or leading parts its path
    already names (owner and name are kept), and a name owned by the name before it
    written without that owner (``User, save, delete``)."""
    folders = {part.lower() for part in PurePosixPath(path.replace("\\", "/")).with_suffix("").parts}
    shown: list[str] = []
    owner = None
    for name in dict.fromkeys(n.strip() for n in symbols.split(",")):
        parts = _SEPARATOR.split(name.rsplit("\\", 1)[-1])  # [name, separator, name, ...]
        while len(parts) > 3 and parts[0].lower() in folders:
            parts = parts[2:]
        short = "".join(parts)
        own = "".join(parts[:-2]) if len(parts) > 1 else None
        if own is not None and own in (owner, shown[-1] if shown else None):
            shown.append(parts[-1])
        else:
            shown.append(short)
        owner = own
    return ", ".join(n for n in shown if n)


def indexed_text(measure: TextMeasure) -> IndexedText:
    """Chunk text with its header in front, the header cut to ``header_budget``."""
    budget = header_budget(measure)

    def with_header(text: str, metadata: Metadata) -> str:
        header = chunk_header(metadata)
        text = readable_routes(_without_container_lines(text, metadata))
        if metadata.get("language") == "python":
            text = readable_settings(text)
        # A token spans at least one byte, so a header of at most ``budget`` bytes fits
        # without asking the tokenizer.
        if header and len(header.encode("utf-8")) > budget and measure.count(header) > budget:
            shorter = _shorter_paths(header)
            header = next((h for h in shorter if measure.count(h) <= budget), None) or (
                shorter[-1] if shorter else header)
            if measure.count(header) > budget:
                header = header[: measure.fit(header, budget)].rstrip("\n") + "\n"
        return header + text

    return with_header


def _without_container_lines(text: str, metadata: Metadata) -> str:
    """``text`` without the lines its chunker repeated from enclosing containers
    (``header_lines``, e.g. ``impl Buf for Chain<T, U> {`` above a member), when the
    header names the chunk's symbols (so its owner): read once more in every member's
    chunk, such a line pulls all their embeddings together."""
    lines = int(metadata.get("header_lines") or 0)
    if lines <= 0 or not (metadata.get("symbols") or metadata.get("symbol")):
        return text
    cut = 0
    for _ in range(lines):
        cut = text.find("\n", cut) + 1
        if cut == 0:
            return text
    return text[cut:] if text[cut:].strip() else text


def plain_text(text: str, metadata: Metadata) -> str:
    """The chunk text as is (no header)."""
    return text


def text_to_index(embed_header: bool, measure: TextMeasure) -> IndexedText:
    """What the embedder and BM25 read of a chunk, as ``chunking.embed_header`` says."""
    return indexed_text(measure) if embed_header else plain_text
