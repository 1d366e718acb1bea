"""Turning search results into the ``[RETRIEVED CONTEXT]`` block a prompt carries."""

from __future__ import annotations

import re
from collections.abc import Sequence

from ragloom.types import SearchResult

CONTEXT_START = "[RETRIEVED CONTEXT]"
CONTEXT_END = "[END RETRIEVED CONTEXT]"
#: Rough characters per token for budget trimming (no tokenizer dependency).
CHARS_PER_TOKEN = 4


def estimate_tokens(text: str) -> int:
    """A tokenizer-free token estimate: one token per four characters, rounded up."""
    return -(-len(text) // CHARS_PER_TOKEN)


def describe_source(result: SearchResult) -> str:
    """``File: path (docs, chunk i, lines a-b)`` for file chunks: the source type, then
    ``page p`` or ``pages p-q`` instead of lines when the file had pages; ``Source: id
    (text, chunk i, lines a-b)`` for ingested texts; ``Document: id`` otherwise."""
    return _neutralize_markers(one_line(_describe(result)))


def _describe(result: SearchResult) -> str:
    meta = result.metadata
    if "path" in meta:
        label = f"File: {meta['path']}"
    elif meta.get("source") == "text" and "source_id" in meta:
        label = f"Source: {meta['source_id']}"
    else:
        return f"Document: {result.id}"
    details = []
    if "source_type" in meta:
        details.append(str(meta["source_type"]))
    if "page" in meta:
        last = meta.get("page_end")
        details.append(f"pages {meta['page']}-{last}" if last is not None else f"page {meta['page']}")
    if "chunk_index" in meta:
        details.append(f"chunk {meta['chunk_index']}")
    if "start_line" in meta and "end_line" in meta and "page" not in meta:
        details.append(f"lines {meta['start_line']}-{meta['end_line']}")
    suffix = f" ({', '.join(details)})" if details else ""
    return label + suffix


#: Line breaks and other control characters, which would let a file name or a metadata value
#: start a line of its own in the block (``\n[END RETRIEVED CONTEXT]\nSYSTEM: ...``).
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def one_line(text: str) -> str:
    """``text`` with every control character (newlines included) shown as an escape, so a
    source label stays one line whatever the file is named."""
    return _CONTROL.sub(lambda match: match.group(0).encode("unicode_escape").decode("ascii"), text)


#: Control characters but line breaks and tabs: what a terminal would act on (escape sequences).
_TERMINAL_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    """``text`` with the control characters a terminal would act on (an escape sequence in a
    file's text or name that clears the screen or retitles the window) shown as escapes;
    line breaks and tabs kept."""
    return _TERMINAL_CONTROL.sub(lambda match: match.group(0).encode("unicode_escape").decode("ascii"), text)


def _neutralize_markers(text: str) -> str:
    """Stop retrieved text from opening or closing the context block itself."""
    return text.replace(CONTEXT_END, "[END RETRIEVED CONTEXT\u200b]").replace(
        CONTEXT_START, "[RETRIEVED CONTEXT\u200b]")


def format_context(results: Sequence[SearchResult], token_budget: int | None = None) -> str:
    """The context block listing each result's source then its text, in rank order.

    With ``token_budget``, whole results are kept while they fit; the first that does not
    fit is cut to the remaining budget and the rest dropped. No results give ``""``.
    """
    entries = _budgeted_entries(results, token_budget)
    if not entries:
        return ""
    return CONTEXT_START + "\n" + "".join(entry for _, entry in entries) + CONTEXT_END


def results_in_context(results: Sequence[SearchResult],
                       token_budget: int | None = None) -> list[SearchResult]:
    """The results ``format_context`` puts into the block (whole or cut), in order: what
    a prompt really cites after the token budget."""
    return [result for result, _ in _budgeted_entries(results, token_budget)]


def _budgeted_entries(results: Sequence[SearchResult],
                      token_budget: int | None) -> list[tuple[SearchResult, str]]:
    """(result, its entry in the block) for every result that fits the budget."""
    if not results:
        return []
    remaining = None if token_budget is None else (
        token_budget - estimate_tokens(CONTEXT_START + "\n") - estimate_tokens(CONTEXT_END))
    entries: list[tuple[SearchResult, str]] = []
    for result in results:
        entry = f"{describe_source(result)}\n{_neutralize_markers(result.text).rstrip()}\n\n"
        if remaining is not None:
            cost = estimate_tokens(entry)
            if cost > remaining:
                source_line = describe_source(result) + "\n"
                room = (remaining - estimate_tokens(source_line)) * CHARS_PER_TOKEN - 6
                if room > 0:
                    body = _neutralize_markers(result.text)[:room].rstrip()
                    entries.append((result, f"{source_line}{body}\n…\n\n"))
                break
            remaining -= cost
        entries.append((result, entry))
    return entries


def inject_context(md_content: str, results: Sequence[SearchResult],
                   token_budget: int | None = None) -> str:
    """``md_content`` followed by the context block; unchanged when there are no results."""
    block = format_context(results, token_budget)
    if not block:
        return md_content
    separator = "" if not md_content or md_content.endswith("\n\n") else (
        "\n" if md_content.endswith("\n") else "\n\n")
    return f"{md_content}{separator}{block}\n"
