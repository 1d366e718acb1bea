"""At most a few results per file: one long file whose parts all match a query would
otherwise fill every slot. A result over the cap steps aside only for results of other
files matching the query at least ``STEP_ASIDE_SHARE`` as well (cosine), and comes back, in
rank order, before the first one matching less: far down the ranking another file's part
is a weaker answer than a second part of a file that matched (on the code sets, the
function beside the one that ranked first: stdlib-packages 0.4433 -> 0.4607, stdlib-modules
0.4236 -> 0.4633 against stepping aside for every other result; Cranfield 0.4019 -> 0.4017,
the application sets 0.672 -> 0.673; docs/benchmarks.md). The cosine, not the rank score:
rank scores are normalized over the candidates, so the last of a small pool scores 0
however well it matches. The order does not depend on ``top_k``.

A document (``DOCUMENTS``: plain text, PDF pages, data rows) is one answer, its sections
parts of it; a file of definitions (code, config, migrations, models, tests) holds many
answers side by side, and the best of them for a question is often not the one that ranks
first ("what decides that a sleep entry is a nap": the two-line field run before
``Sleep.save`` first, ``save`` itself second; "which env variable picks the queue driver":
``queue.failed`` first, ``queue.default`` second). So a file of definitions takes one more
result than the cap when that part's rank score is at least ``SECOND_PART_SHARE`` of the
file's first result's (measured in docs/benchmarks.md: the application sets gain, the code
sets too, Cranfield's abstracts are documents and do not move). So does a project's own
documentation (``docs``: its READMEs and guides in Markdown or reStructuredText): one
README holds the install steps, the settings and the troubleshooting list side by side,
each a heading of its own, and the section ranking first for "what is the login of the
demo container" was the README's "Building" one, above the section with the login.
"""

from __future__ import annotations

from collections.abc import Sequence

from ragloom.types import SearchResult

#: Source types whose files are one answer each: never a part beyond the cap.
DOCUMENTS = frozenset({"text", "pdf", "data"})
#: A file of definitions (or a project's docs) takes one part beyond the cap when it ranks
#: at least this share of the file's first result.
SECOND_PART_SHARE = 0.7
#: A result over its file's cap steps aside only for results whose cosine is at least this
#: share of its own.
STEP_ASIDE_SHARE = 0.7


def _file_of(result: SearchResult) -> str | None:
    """The file (or added text) a result comes from; None when unknown (never capped)."""
    meta = result.metadata
    owner = meta.get("path", meta.get("source_id"))
    return None if owner is None else str(owner)


def _value(result: SearchResult) -> float:
    return float(result.rank_score if result.rank_score is not None else result.score)


def _one_more(result: SearchResult, first: SearchResult) -> bool:
    """Whether ``result``, over its file's cap, comes in anyway: a part of a file of
    definitions ranking close to the file's first result (see the module docstring)."""
    if result.metadata.get("source_type") in DOCUMENTS:
        return False
    best = _value(first)
    return best > 0 and _value(result) >= SECOND_PART_SHARE * best


def cap_per_file(results: Sequence[SearchResult], top_k: int, per_file: int) -> list[SearchResult]:
    """The first ``top_k`` of ``results`` (best first) with at most ``per_file`` from one
    file (one more for a close part of a file of definitions), a result over the cap coming
    back before the first other result matching under ``STEP_ASIDE_SHARE`` as well, or when
    the others run out; ``per_file`` 0 keeps every result in rank order."""
    if per_file <= 0:
        return list(results[:top_k])
    counts: dict[str, int] = {}
    firsts: dict[str, SearchResult] = {}
    chosen: list[SearchResult] = []
    over: list[SearchResult] = []
    for result in results:
        if len(chosen) >= top_k:
            break
        owner = _file_of(result)
        if owner is not None:
            count = counts.get(owner, 0)
            if count > per_file or (count == per_file and not _one_more(result, firsts[owner])):
                over.append(result)
                continue
            counts[owner] = count + 1
            firsts.setdefault(owner, result)
        while over and result.score < STEP_ASIDE_SHARE * over[0].score:
            chosen.append(over.pop(0))
        chosen.append(result)
    return (chosen + over)[:top_k]
