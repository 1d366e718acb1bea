"""Contextual compression: inside each search result, only the lines that bear on the query,
so more results fit a prompt's token budget.

Extractive and offline: a line bears on the query when it holds the query's BM25 terms
(the searcher's tokenizer), each weighted by how rare it is among the lines of this
search's results; a line scoring at least ``threshold`` of the best line's score matches.
Kept: every matching line and ``window`` lines either side, the definition line (the
first line that neither comments nor decorates: a signature, not its docblock), the lines
that own a kept line (the nearest less-indented line above it, up to the outermost; in
prose, the markdown heading above it), and gaps of one line. Each run of dropped lines
becomes one ``... (lines a-b omitted)`` line. A result none of whose lines matches keeps
only its definition line (and header): the words of the query are elsewhere. A result
stays whole when it is among the first ``whole_top`` (the search's best guesses hold most
of the answers), when its cosine is at least ``whole_share`` of the best result's or
``dense_share`` of its lines score at least ``dense_threshold`` of the best line's (it is
about the query as a whole), when it would keep more than ``max_share`` of its lines, and
when no line of any result matches (words cannot judge this search). The defaults are the
best worst case on the dev sets with a margin over 95% of the gold lines kept
(bench/compression.py).
Scoring lines with the embedding model instead was measured and not chosen
(docs/retrieval.md): no setting kept 95% of the gold lines everywhere, and it costs an
embedding call per group of lines.

Only the text changes: ids, scores and order are the search's. The result keeps its
``start_line``/``end_line`` (the chunk's), its whole text in ``full_text`` and the line
ranges kept in ``kept_lines`` (file line numbers, inclusive). A result whose text does
not end with exactly its ``start_line``-``end_line``, or from a paged document, is left
whole.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from ragloom.config.tables import RetrievalConfig
from ragloom.types import SearchResult

#: The line that stands for a run of dropped lines.
GAP_MARKER = "... (lines {first}-{last} omitted)"
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s")
#: A line that only comments (a docblock, a line comment) or decorates (``@final``,
#: ``@app.route("/")``) the definition below it.
_COMMENT = re.compile(r"^\s*(//|/\*|\*|<!--|-->|\{\{--|--\}\}|\"\"\"|\'\'\'|#)")
_DECORATOR = re.compile(r"^\s*@[\w.]+(\(.*\))?\s*$")
#: Prose (by ``language`` or file suffix), where ``#`` starts a heading, not a comment.
_PROSE_LANGUAGES = ("markdown", "text", "rst")
_PROSE_SUFFIXES = (".md", ".markdown", ".mdx", ".rst", ".txt")


@dataclass(frozen=True)
class CompressionSettings:
    """How much of a result survives (defaults chosen in bench/compression.py)."""

    #: Lines kept either side of a matching line.
    window: int = 1
    #: A line matches when its score reaches this share of the best line's in the search.
    threshold: float = 0.7
    #: A result that would keep more than this share of its lines is returned whole.
    max_share: float = 0.8
    #: A result whose cosine is at least this share of the best result's stays whole: it
    #: is about the query as a whole (above 1: none is spared).
    whole_share: float = 0.9
    #: The first this many results (in the search's order) stay whole.
    whole_top: int = 2
    #: A result at least ``dense_share`` of whose lines score at least ``dense_threshold``
    #: of the best line's stays whole: it is about the query throughout (above 1: none).
    dense_share: float = 0.3
    #: The share of the best line's score a line needs to count for ``dense_share``.
    dense_threshold: float = 0.3

    @classmethod
    def of(cls, retrieval: RetrievalConfig) -> CompressionSettings:
        """The settings ``[rag.retrieval]``'s ``compress_*`` keys choose."""
        return cls(retrieval.compress_window, retrieval.compress_threshold,
                   whole_share=retrieval.compress_whole_share, whole_top=retrieval.compress_whole_top,
                   dense_share=retrieval.compress_dense_share,
                   dense_threshold=retrieval.compress_dense_threshold)


def compress_results(query: str, results: Sequence[SearchResult],
                     tokenize: Callable[[str], list[str]],
                     settings: CompressionSettings = CompressionSettings()) -> list[SearchResult]:
    """``results`` in the same order with the same ids, each holding only the lines that
    bear on ``query`` (see the module docstring)."""
    return keep_matching(results, line_scores(query, results, tokenize), settings)


def line_scores(query: str, results: Sequence[SearchResult],
                tokenize: Callable[[str], list[str]]) -> list[list[float]]:
    """Per result, per line of its text: the rarity-weighted query terms the line holds
    (no lines for a result that cannot be compressed)."""
    terms = set(tokenize(query))
    line_terms = [[terms.intersection(tokenize(line)) for line in _lines(result.text)]
                  if _line_span(result) is not None else [] for result in results]
    weights = _rarity(terms, line_terms)
    return [[sum(weights[t] for t in found) for found in lines] for lines in line_terms]


def keep_matching(results: Sequence[SearchResult], scores: list[list[float]],
                  settings: CompressionSettings) -> list[SearchResult]:
    """Each result cut to its lines whose score (one per line of its text) reaches
    ``threshold`` of the best score among all results, with their context; to its first
    line when none does."""
    best = max((score for lines in scores for score in lines), default=0.0)
    if best <= 0:
        return list(results)
    floor, dense = settings.threshold * best, settings.dense_threshold * best
    top = max(result.score for result in results)  # a cosine; at most 0: none is spared
    spared = settings.whole_share * top if top > 0 else math.inf
    compressed = []
    for rank, (result, own) in enumerate(zip(results, scores)):
        span = _line_span(result)
        bearing = sum(score > 0 and score >= dense for score in own)
        if span is None or rank < settings.whole_top or result.score >= spared \
                or bearing >= settings.dense_share * len(own):
            compressed.append(result)
            continue
        matching = [i for i, score in enumerate(own) if score > 0 and score >= floor]
        compressed.append(_compressed(result, *span, matching, settings))
    return compressed


def _line_span(result: SearchResult) -> tuple[int, int] | None:
    """(file line of the text's first file line, how many header lines come before it) when
    the text ends with exactly the file's lines ``start_line``-``end_line`` (a chunker may
    repeat the enclosing class's lines in front: its header), else None."""
    start, end = result.metadata.get("start_line"), result.metadata.get("end_line")
    if not isinstance(start, int) or not isinstance(end, int) or isinstance(start, bool) \
            or "page" in result.metadata:
        return None
    header = len(_lines(result.text)) - (end - start + 1)
    return (start, header) if header >= 0 and end >= start else None


def _lines(text: str) -> list[str]:
    """The lines of ``text`` (a final line break ends the last line, it adds none)."""
    return text[:-1].split("\n") if text.endswith("\n") else text.split("\n")


def _rarity(terms: set[str], line_terms: list[list[set[str]]]) -> dict[str, float]:
    """Each query term's weight: BM25's idf over the lines of this search's results."""
    lines = [found for result in line_terms for found in result]
    weights = {}
    for term in terms:
        holding = sum(term in found for found in lines)
        weights[term] = math.log(1 + (len(lines) - holding + 0.5) / (holding + 0.5))
    return weights


def _compressed(result: SearchResult, start: int, header: int, matching: list[int],
                settings: CompressionSettings) -> SearchResult:
    """``result`` with only the kept lines (indices of ``_lines(text)``; file line of index
    i >= ``header`` is ``start + i - header``); whole when most of it would be kept."""
    lines = _lines(result.text)
    kept = set(range(header))
    for i in matching:
        kept.update(range(max(0, i - settings.window), min(len(lines), i + settings.window + 1)))
    prose = _is_prose(result)
    kept.update(_definition(lines, header, prose))
    for i in sorted(kept):
        kept.update(_owners(lines, i, prose))
    for i in range(len(lines)):  # a one-line gap costs as much as its marker
        if i not in kept and (i == 0 or i - 1 in kept) and (i == len(lines) - 1 or i + 1 in kept):
            kept.add(i)
    if len(kept) > settings.max_share * len(lines):
        return result
    shift = start - header  # file line = index + shift
    ranges = _ranges(sorted(i for i in kept if i >= header))
    text = _with_gaps(lines, _ranges(sorted(kept)), shift)
    return replace(result, text=text + ("\n" if result.text.endswith("\n") else ""),
                   full_text=result.text, kept_lines=[(a + shift, b + shift) for a, b in ranges])


def _is_prose(result: SearchResult) -> bool:
    """Whether ``result`` is prose: markdown or plain text by its language or file name, or
    an ingested text (neither)."""
    language, path = result.metadata.get("language"), result.metadata.get("path")
    if language is None and path is None:
        return True
    return language in _PROSE_LANGUAGES or str(path or "").lower().endswith(_PROSE_SUFFIXES)


def _definition(lines: list[str], header: int, prose: bool) -> list[int]:
    """The definition's first line: the first non-blank file line, or, when that only
    comments or decorates (a docblock's ``/**``), the first line below it that does neither,
    with the decorators right above it; the first non-blank line when none follows or in a
    prose file (``prose``: markdown's ``#`` is a heading, its ``*`` a list item)."""
    first = next((i for i in range(header, len(lines)) if lines[i].strip()), header)
    if prose or not _aside(lines[first]):
        return [first]
    code = next((i for i in range(first, len(lines)) if lines[i].strip() and not _aside(lines[i])), None)
    if code is None:
        return [first]
    above = code
    while above > first and _DECORATOR.match(lines[above - 1]):
        above -= 1
    return list(range(above, code + 1))


def _aside(line: str) -> bool:
    """Whether ``line`` only comments or decorates what follows."""
    return bool(_COMMENT.match(line) or _DECORATOR.match(line))


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _owners(lines: list[str], index: int, prose: bool) -> list[int]:
    """The lines that own line ``index``: each nearest less-indented non-blank line above
    it (a class, a function, a block opener; a lone ``{`` brings the line above it, the
    signature) and, in prose, the nearest markdown heading above it."""
    found = []
    depth = _indent(lines[index]) if lines[index].strip() else 0
    for i in range(index - 1, -1, -1):
        if depth == 0:
            break
        if lines[i].strip() and _indent(lines[i]) < depth:
            found.append(i)
            depth = _indent(lines[i])
            if lines[i].strip() == "{":
                found.append(next((j for j in range(i - 1, -1, -1) if lines[j].strip()), i))
    heading = next((i for i in range(index - 1, -1, -1) if _HEADING.match(lines[i])), None) if prose else None
    if heading is not None:
        found.append(heading)
    return found


def _ranges(indices: list[int]) -> list[tuple[int, int]]:
    """Sorted line indices as inclusive runs."""
    ranges: list[tuple[int, int]] = []
    for i in indices:
        if ranges and ranges[-1][1] == i - 1:
            ranges[-1] = (ranges[-1][0], i)
        else:
            ranges.append((i, i))
    return ranges


def _with_gaps(lines: list[str], ranges: list[tuple[int, int]], shift: int) -> str:
    """The kept lines, each run of dropped lines replaced by one marker line naming its
    file lines (index + ``shift``)."""
    out: list[str] = []
    previous = -1
    for first, last in ranges:
        if first > previous + 1:
            out.append(GAP_MARKER.format(first=previous + 1 + shift, last=first - 1 + shift))
        out.extend(lines[first:last + 1])
        previous = last
    if previous < len(lines) - 1:
        out.append(GAP_MARKER.format(first=previous + 1 + shift, last=len(lines) - 1 + shift))
    return "\n".join(out)
