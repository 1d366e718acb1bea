"""One slot per place: parts of the same function or section that both rank are merged
into one result spanning both, so they do not crowd other results out of the top k.

Merging looks at a fixed window of the ranking (``MERGE_WINDOW`` candidates), whatever
``top_k`` is: a result's span depends on which of its parts rank in that window, never on
how many results were asked for, so ``top_k = 1`` returns the first result of
``top_k = 5``. Candidates past the window never grow a result: one touching a kept part is
dropped, any other takes its own slot. Every candidate is looked at, whatever ``top_k`` is:
the per-file cap after this chooses among all the places, so how far down it reaches for a
result from another file does not depend on ``top_k`` either.

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


def _touch(first: SearchResult, second: SearchResult) -> bool:
    """Whether the two line ranges overlap or meet."""
    a, b = first.metadata, second.metadata
    return int(b["start_line"]) <= int(a["end_line"]) + 1 and int(a["start_line"]) <= int(b["end_line"]) + 1


def part_ids(result: SearchResult) -> list[str]:
    """The chunks whose text is in ``result``: its ``merged_ids``, or its own id."""
    merged = result.metadata.get("merged_ids")
    return str(merged).split(",") if merged else [result.id]


def _joined(kept: SearchResult, other: SearchResult) -> SearchResult:
    """``kept`` grown to cover ``other``'s lines; text = the earlier part plus the later
    part's lines past the earlier one's end (parts are whole lines)."""
    early, late = sorted((kept, other), key=lambda r: int(r.metadata["start_line"]))
    new_lines = int(late.metadata["end_line"]) - int(early.metadata["end_line"])
    text = early.text
    if new_lines > 0:
        tail = late.text.splitlines(keepends=True)[-new_lines:]
        text = early.text if early.text.endswith("\n") else early.text + "\n"
        text += "".join(tail)
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
    of the same symbol or section merged into it (into all of them when it bridges several)
    instead of taking a slot, the text at most ``parts`` times the longest candidate's in
    the window; then the later results that touch no kept part."""
    limit = parts * max((len(r.text) for r in results[:window]), default=0)
    kept: list[SearchResult] = []
    for position, result in enumerate(results):
        place = _place(result)
        touching = [i for i, earlier in enumerate(kept)
                    if place is not None and _place(earlier) == place and _touch(earlier, result)]
        if touching and position >= window:
            continue  # past the window a part never grows a result
        joined = _grown(kept, touching, result, limit) if touching else None
        if joined is None:
            kept.append(result)
            continue
        grown, taken = joined
        kept[taken[0]] = grown
        for index in reversed(taken[1:]):  # the new part bridged two kept parts
            del kept[index]
    return kept
