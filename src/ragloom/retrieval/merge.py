"""One slot per place: parts of the same function or section that both rank are merged
into one result spanning both, so they do not crowd other results out of the top k. Two
parts touch when their lines meet or only empty lines lie between them (at most
``SIBLING_GAP``): a chunker cutting a long method or section at a blank line leaves it out
of both parts (``ServerDeletionService::handle`` as lines 37-57 and 59-83).

Merging looks at a fixed window of the ranking (``MERGE_WINDOW`` candidates), whatever
``top_k`` is: a result's span depends on which of its parts rank in that window, never on
how many results were asked for, so ``top_k = 1`` returns the first result of
``top_k = 5``. Candidates past the window never grow a result: one touching a kept part is
dropped, any other (a member next to a kept one included) takes its own slot. Every
candidate is looked at, whatever ``top_k`` is: the per-file cap after this chooses among
all the places, so how far down it reaches for a result from another file does not
depend on ``top_k`` either.

Members of one owner (``Cart.add`` and ``Cart.total``, ``Cart::add``, ``Cart#add``: the
symbol up to its last member separator) that both rank in the window merge the same way
when they touch, or, methods and functions, when at most ``SIBLING_GAP`` lines lie between
them: a question about how something works is often answered by two neighbouring methods,
and one result holding both is one slot where two would crowd another file out. The head of a
class (the chunk whose symbol is the owner: the class line, properties, constructor) and
the member right after it merge like two parts: "can X still be done when ..." is answered
by a flag the head declares and documents and the method that reads it. The lines
between two methods must be empty (told by the characters between the chunks: a chunker
keeps a method's comments and decorators with it) and come back empty. Sections do not
merge with their sibling sections.

A merged result's text is at most ``MERGE_PARTS`` times the longest candidate's in the
window: a long section whose many parts all rank would otherwise come back as one result
of hundreds of lines. Chunks are cut at the chunk size (the model's window by default), so
the longest candidate stands for it in whatever unit the index was sized, with no setting
to pass; small parts of one function (a chunker cuts code at statements, well under the
size) still join whole. Three chunk sizes join a part with its neighbours on both sides,
and a result stays a passage one reads and a prompt built from ``top_k`` results keeps a
predictable size. A part that would take a result past the bound grows another touching
result it fits (a part whose lines it holds already always does), or takes its own slot.
``metadata["merged_ids"]`` lists every chunk whose text is in the result, the result's own
id first, those of parts it bridged included.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ragloom.types import SearchResult

#: Candidates whose parts merge into the results before they are cut to ``top_k``.
MERGE_WINDOW = 20
#: A merged result's text is at most this many times the longest candidate's.
MERGE_PARTS = 3


def _place(result: SearchResult) -> tuple[str, str] | None:
    """What a result is part of: (path, symbol or heading path); None when unknown."""
    meta = result.metadata
    owner = meta.get("symbol") or meta.get("heading_path")
    if meta.get("path") is None or not owner or "start_line" not in meta:
        return None
    return str(meta["path"]), str(owner)


#: Separators between an owner and its member in symbols (``Cart.add``, ``Cart::add``,
#: ``Cart#add``); the last one splits off the member.
_MEMBER = re.compile(r"(::|[.#])(?!.*(::|[.#]))")
#: Lines that may lie between two methods or functions of one owner that merge (the blank
#: lines between them: a chunker keeps a definition's comments and decorators with it).
SIBLING_GAP = 2
#: Members that merge across such a gap; others (a config table's keys) only when they
#: touch, as the lines between them may be entries of no chunk's symbol.
_DEFINITIONS = frozenset({"method", "function"})


def _owner(result: SearchResult) -> tuple[str, str] | None:
    """What a code result is a member of: (path, its symbol up to the last member
    separator); None for a symbol naming no owner, or a result without one."""
    meta = result.metadata
    symbol = str(meta.get("symbol") or "")
    found = _MEMBER.search(symbol)
    if found is None or meta.get("path") is None or "start_line" not in meta:
        return None
    return str(meta["path"]), symbol[:found.start()]


def _joins(earlier: SearchResult, result: SearchResult) -> bool:
    """Whether ``result`` merges into ``earlier``: a part of the same place, or the head of
    the class it is a member of (or a member of the class ``earlier`` is the head of),
    touching it or at most ``SIBLING_GAP`` empty lines from it; or a member of the same
    owner touching it (a method or function: at most ``SIBLING_GAP`` empty lines from it)."""
    place = _place(result)
    if place is not None and _place(earlier) == place or _heads(earlier, result) or _heads(result, earlier):
        return _touch(earlier, result) or (_touch(earlier, result, SIBLING_GAP)
                                           and _blank_between(earlier, result))
    owner = _owner(result)
    if owner is None or _owner(earlier) != owner:
        return False
    definitions = {earlier.metadata.get("kind"), result.metadata.get("kind")} <= _DEFINITIONS
    if _touch(earlier, result):
        return True
    return definitions and _touch(earlier, result, SIBLING_GAP) and _blank_between(earlier, result)


def _heads(head: SearchResult, member: SearchResult) -> bool:
    """Whether ``head`` is the chunk of the class (or other owner) ``member`` belongs to:
    its symbol is the member's owner, in the same file (the class line, its properties and
    constructor, cut apart from the methods after them)."""
    owner = _owner(member)
    return owner is not None and (str(head.metadata.get("path")), str(head.metadata.get("symbol"))) == owner


def _blank_between(first: SearchResult, second: SearchResult) -> bool:
    """Whether the lines between two results that do not touch are all empty: one line
    break each between the first's end (after its last line break) and the second's start
    (the result shows them as empty lines, so a line of code there is never shown empty)."""
    early, late = sorted((first.metadata, second.metadata), key=lambda meta: int(meta["start_line"]))
    if "end_char" not in early or "start_char" not in late:
        return False
    between = int(late["start_line"]) - int(early["end_line"]) - 1
    return int(late["start_char"]) - int(early["end_char"]) == between


def _touch(first: SearchResult, second: SearchResult, gap: int = 0) -> bool:
    """Whether the two line ranges overlap or meet (or have at most ``gap`` lines between)."""
    a, b = first.metadata, second.metadata
    reach = 1 + gap
    return (int(b["start_line"]) <= int(a["end_line"]) + reach
            and int(a["start_line"]) <= int(b["end_line"]) + reach)


def part_ids(result: SearchResult) -> list[str]:
    """The chunks whose text is in ``result``: its ``merged_ids``, or its own id."""
    merged = result.metadata.get("merged_ids")
    return str(merged).split(",") if merged else [result.id]


def _joined(kept: SearchResult, other: SearchResult) -> SearchResult:
    """``kept`` grown to cover ``other``'s lines; text = the earlier part plus the later
    part's lines past the earlier one's end (parts are whole lines), the lines between two
    members as blank lines."""
    early, late = sorted((kept, other), key=lambda r: int(r.metadata["start_line"]))
    new_lines = int(late.metadata["end_line"]) - int(early.metadata["end_line"])
    gap = max(0, int(late.metadata["start_line"]) - int(early.metadata["end_line"]) - 1)
    text = early.text
    if new_lines > 0:
        tail = late.text.splitlines(keepends=True)[-(new_lines - gap):]
        text = early.text if early.text.endswith("\n") else early.text + "\n"
        text += "\n" * gap + "".join(tail)
    metadata = dict(kept.metadata)
    metadata["start_line"] = min(int(kept.metadata["start_line"]), int(other.metadata["start_line"]))
    metadata["end_line"] = max(int(kept.metadata["end_line"]), int(other.metadata["end_line"]))
    metadata["merged_ids"] = ",".join(dict.fromkeys(part_ids(kept) + part_ids(other)))
    return SearchResult(kept.id, text, metadata, max(kept.score, other.score),
                        1.0 - max(kept.score, other.score), dict(kept.retrievers), kept.rank_score)


def _grown(kept: list[SearchResult], touching: list[int], result: SearchResult,
           limit: int) -> tuple[SearchResult, list[int]] | None:
    """``result`` joined to the kept results it touches (all of them, bridging them, when
    the text stays within ``limit`` characters, else the first one it fits), and which of
    them it took; None when it fits none."""
    grown = kept[touching[0]]
    for index in touching:
        grown = _joined(grown, result if index == touching[0] else kept[index])
    if len(grown.text) <= limit:
        return grown, touching
    for index in touching:
        alone = _joined(kept[index], result)
        if len(alone.text) <= limit:
            return alone, [index]
    return None


def merge_adjacent_parts(results: Sequence[SearchResult], window: int = MERGE_WINDOW,
                         parts: int = MERGE_PARTS) -> list[SearchResult]:
    """The places of ``results`` (best first), for the caller to cap and cut to ``top_k``:
    every place among the first ``window`` results, a result touching an earlier kept part
    of the same symbol or section, or a member next to a kept member of its owner, merged
    into it (into all of them when it bridges several) instead of taking a slot, the text
    at most ``parts`` times the longest candidate's in the window; then the later results
    that touch no kept part."""
    limit = parts * max((len(r.text) for r in results[:window]), default=0)
    kept: list[SearchResult] = []
    for position, result in enumerate(results):
        touching = [i for i, earlier in enumerate(kept) if _joins(earlier, result)]
        if touching and position >= window:
            if any(_place(kept[i]) == _place(result) for i in touching):
                continue  # past the window a part never grows a result
            touching = []  # nor a member: it takes its own slot
        joined = _grown(kept, touching, result, limit) if touching else None
        if joined is None:
            kept.append(result)
            continue
        grown, taken = joined
        kept[taken[0]] = grown
        for index in reversed(taken[1:]):  # the new part bridged two kept parts
            del kept[index]
    return kept
