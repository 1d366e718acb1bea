"""An incremental Okapi BM25 index over segments, persisted without rewriting old data.

Scores equal ``rank_bm25.BM25Okapi.get_scores`` on the same tokens (k1, b, and its
epsilon floor for negative idf: such terms get epsilon x the mean idf of the vocabulary).

Each ``add`` makes an immutable segment (``bm25_segment``); removing a document marks it
dead and records a tombstone. ``bm25_files.save_index`` appends one segment file with
what changed since the last save, merges the newest segments when enough of one size
piled up (so a byte is rewritten a few times at most, and a query visits few segments),
and swaps the segment list atomically: a crash leaves the previous list readable.
``bm25_files.load_index`` maps the files and reads only document lengths and tombstones:
a query reads the postings of its terms.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from ragloom.arrayfile import ArrayFile
from ragloom.digests import key_hash
from ragloom.filters import Node, matches_all
from ragloom.retrieval.bm25_scoring import add_term_scores
from ragloom.retrieval.bm25_segment import Segment
from ragloom.segments import merge_start
from ragloom.top_k import top_k_indices
from ragloom.types import Metadata

MERGE_FACTOR = 8          # this many segments of one size class merge into one
MAX_SEGMENTS = 24
_COMPACT_DEAD_SHARE = 0.4


@dataclass(frozen=True)
class _SlotView:
    """The live segments laid end to end, rebuilt after each change: where each segment's
    rows start among all slots, which slots are alive, which segments have no dead row,
    and each slot's length norm k1 x (1 - b + b x length / average length)."""

    offsets: np.ndarray
    alive: np.ndarray
    whole: list[bool]
    length_norm: np.ndarray


class BM25Index:
    """Term statistics and postings for BM25 over a changing set of chunks."""

    def __init__(self, k1: float = 1.5, b: float = 0.75, epsilon: float = 0.25,
                 tokenizer: str = "") -> None:
        self.k1, self.b, self.epsilon = k1, b, epsilon
        self.tokenizer = tokenizer  # signature of the tokenizer that made the terms
        self._lock = threading.RLock()
        self._segments: list[Segment] = []
        self._alive: list[np.ndarray] = []
        self._tombstones: list[tuple[int, int]] = []  # dead rows of saved segments, unsaved
        self._slot_of: dict[str, tuple[int, int]] | None = None  # id -> (number, row), lazily
        self._count = 0
        self._total_len = 0
        self._next_number = 1
        self._view: _SlotView | None = None
        self._floor: float | None = None
        self.bytes_written = 0

    # -- writing ---------------------------------------------------------------------------

    def add(self, ids: Sequence[str], token_lists: Sequence[Sequence[str]],
            metadatas: Sequence[Metadata]) -> None:
        """Add documents; an id already present (or repeated in ``ids``) is replaced."""
        if not ids:
            return
        with self._lock:
            self.remove([doc_id for doc_id in dict.fromkeys(ids) if doc_id in self._ids_map()])
            segment = Segment.build(self._take_number(), ids, token_lists, metadatas)
            self._segments.append(segment)
            self._alive.append(np.ones(len(segment), dtype=bool))
            self._count += len(segment)
            self._total_len += int(segment.doc_len.sum())
            slot_of = self._ids_map()
            for row, doc_id in enumerate(ids):
                twin = slot_of.get(doc_id)
                if twin is not None:  # the same id earlier in this batch: the last one wins
                    self._kill(*twin)
                slot_of[doc_id] = (segment.number, row)
            self._merge_unsaved()
            self._changed()

    def remove(self, ids: Sequence[str]) -> None:
        with self._lock:
            slot_of = self._ids_map()
            for doc_id in ids:
                slot = slot_of.pop(doc_id, None)
                if slot is not None:
                    self._kill(*slot)
            self._changed()
            total = sum(map(len, self._segments))
            in_memory = not any(segment.saved for segment in self._segments)
            if in_memory and total > 1000 and total - self._count > _COMPACT_DEAD_SHARE * total:
                self.compact()  # an index never saved drops its dead rows here

    def _kill(self, number: int, row: int) -> None:
        """Mark a row dead and take it out of the statistics."""
        index = self._position(number)
        self._alive[index][row] = False
        self._count -= 1
        self._total_len -= int(self._segments[index].doc_len[row])
        if self._segments[index].saved:
            self._tombstones.append((number, row))

    def compact(self) -> None:
        """Merge every segment into one without dead rows (written by the next ``save``)."""
        with self._lock:
            if self._segments:
                self._replace_tail(0, saved_tombstones=[])

    def _merge_unsaved(self) -> None:
        """Keep the segments not yet saved few (an index in memory only is never saved)."""
        start = next((i for i, s in enumerate(self._segments) if not s.saved), len(self._segments))
        tail = merge_start([int(a.sum()) for a in self._alive[start:]], MERGE_FACTOR, MAX_SEGMENTS)
        if tail is not None:
            self._replace_tail(start + tail, saved_tombstones=self._tombstones)

    def _replace_tail(self, start: int, saved_tombstones: list[tuple[int, int]]) -> Segment:
        """Merge segments ``start``.. into one unsaved segment; tombstones of rows before
        ``start`` travel with it."""
        group = self._segments[start:]
        numbers = {segment.number for segment in group}
        carried = [(n, r) for segment in group
                   for n, r in zip(segment.dead_seg.tolist(), segment.dead_row.tolist())
                   if n not in numbers]
        carried += [(n, r) for n, r in saved_tombstones if n not in numbers]
        merged = Segment.merge(self._take_number(), list(zip(group, self._alive[start:])), carried)
        self._tombstones = []  # applied (inside the group) or carried by the merged segment
        del self._segments[start:], self._alive[start:]
        self._segments.append(merged)
        self._alive.append(np.ones(len(merged), dtype=bool))
        if self._slot_of is not None:  # only the merged documents moved
            self._slot_of.update((doc_id, (merged.number, row)) for row, doc_id in enumerate(merged.ids))
        self._changed()
        return merged

    def _changed(self) -> None:
        self._view = None
        self._floor = None

    def _take_number(self) -> int:
        self._next_number += 1
        return self._next_number - 1

    # -- reading ---------------------------------------------------------------------------

    def __len__(self) -> int:
        return self._count

    def files(self) -> list[ArrayFile]:
        """The mapped files of the saved segments (for checking them)."""
        with self._lock:
            return [segment.file for segment in self._segments if segment.file is not None]

    def __contains__(self, doc_id: str) -> bool:
        return doc_id in self._ids_map()

    def ids(self) -> list[str]:
        with self._lock:
            return [doc_id for segment, alive in zip(self._segments, self._alive)
                    for doc_id in segment.ids.take(np.flatnonzero(alive))]

    def id_digest(self) -> int:
        """Sum of the live ids' 64-bit hashes: equal id sets give equal digests."""
        with self._lock:
            return sum(int(np.sum(segment.id_hash[alive], dtype=np.uint64))
                       for segment, alive in zip(self._segments, self._alive)) % 2**64

    def metadatas(self) -> Iterator[Metadata]:
        """The metadata of every live document."""
        for segment, alive in zip(list(self._segments), list(self._alive)):
            for row in np.flatnonzero(alive):
                yield segment.metadata(int(row))

    def metadata(self, doc_id: str) -> Metadata | None:
        slot = self._ids_map().get(doc_id)
        return None if slot is None else self._segments[self._position(slot[0])].metadata(slot[1])

    def scores(self, query: Sequence[str] | dict[str, float]) -> np.ndarray:
        """BM25 score of every slot (dead slots score 0). A list of tokens counts repeats,
        as rank-bm25 does; a dict maps terms to query weights (feedback expansion)."""
        return self._score(query)[0]

    def _score(self, query: Sequence[str] | dict[str, float]) -> tuple[np.ndarray, np.ndarray]:
        """Scores of every slot and which live slots contain at least one query term."""
        with self._lock:
            view = self._slots()
            scores = np.zeros(len(view.alive), dtype=np.float64)
            matched = np.zeros(len(view.alive), dtype=bool)
            corpus_size = self._count
            if corpus_size == 0:
                return scores, matched
            weights: dict[str, float] = {}
            if isinstance(query, dict):
                weights = dict(query)
            else:
                for term in query:
                    weights[term] = weights.get(term, 0.0) + 1.0
            for term, weight in weights.items():
                parts = self._postings(term, view)
                frequency = sum(len(rows) for _, rows, _ in parts)
                if frequency == 0:
                    continue
                idf = np.log(corpus_size - frequency + 0.5) - np.log(frequency + 0.5)
                if idf < 0:
                    idf = self._idf_floor()
                scale = weight * idf * (self.k1 + 1)
                for span, rows, tfs in parts:
                    add_term_scores(scores[span], matched[span], view.length_norm[span], rows, tfs, scale)
            return scores, matched  # postings hold live slots only: dead slots stay 0

    def _postings(self, term: str, view: _SlotView) -> list[tuple[slice, np.ndarray, np.ndarray]]:
        """Per segment holding ``term``: its slots, and the live rows (numbered within the
        segment) with the term's frequency in each."""
        hashed = key_hash(term)
        parts = []
        for segment, offset, whole in zip(self._segments, view.offsets.tolist(), view.whole):
            found = segment.postings(term, hashed)
            if found is None:
                continue
            span = slice(offset, offset + len(segment))
            rows, frequencies = found
            if not whole:
                keep = view.alive[span][rows]
                rows, frequencies = rows[keep], frequencies[keep]
            parts.append((span, rows, frequencies))
        return parts

    def top_k(self, query: Sequence[str] | dict[str, float], k: int,
              conditions: list[Node] | None = None) -> list[tuple[str, float]]:
        """The ``k`` best (id, score) pairs among documents holding a query term, filters
        applied first. Scores can be negative in tiny corpora (Okapi idf), order still holds."""
        with self._lock:
            scores, matched = self._score(query)
            if conditions:
                candidates = np.flatnonzero(matched)
                candidates = candidates[np.fromiter(
                    (matches_all(self._slot_metadata(int(s)), conditions) for s in candidates),
                    dtype=bool, count=len(candidates))]
                order = candidates[top_k_indices(scores[candidates], k)]
            else:
                np.copyto(scores, -np.inf, where=~matched)  # a slot without a query term never ranks
                order = top_k_indices(scores, min(k, int(np.count_nonzero(matched))))
            offsets = self._slots().offsets
            positions = (np.searchsorted(offsets, order, "right") - 1).tolist()
            return [(self._segments[p].ids[slot - int(offsets[p])], float(scores[slot]))
                    for p, slot in zip(positions, order.tolist())]

    def term_frequencies(self, doc_id: str) -> dict[str, int]:
        """The document's terms with their counts (for pseudo-relevance feedback)."""
        number, row = self._ids_map()[doc_id]
        return self._segments[self._position(number)].row_terms(row)

    def document_frequency(self, term: str) -> int:
        return sum(len(rows) for _, rows, _ in self._postings(term, self._slots()))

    def rows_with(self, kind: str, key: str) -> list[tuple[str, Metadata]]:
        """(id, metadata) of the live documents whose lookup ``kind`` may hold ``key``, in
        index order (the caller checks the metadata: a hash can collide)."""
        with self._lock:
            found = []
            hashed = key_hash(key)
            for segment, alive in zip(self._segments, self._alive):
                for row in segment.lookup(kind, hashed):
                    if alive[row]:
                        found.append((segment.ids[row], segment.metadata(row)))
            return found

    def _slots(self) -> _SlotView:
        if self._view is None:
            sizes = [len(segment) for segment in self._segments]
            offsets = np.zeros(len(sizes), dtype=np.int64)
            np.cumsum(sizes[:-1], out=offsets[1:])
            alive = np.concatenate(self._alive) if self._alive else np.zeros(0, dtype=bool)
            doc_len = (np.concatenate([s.doc_len for s in self._segments]).astype(np.float64)
                       if self._segments else np.zeros(0))
            average_len = self._total_len / self._count if self._count else 0.0
            lengths = doc_len / average_len if average_len else np.zeros(len(doc_len))
            self._view = _SlotView(offsets, alive, [bool(a.all()) for a in self._alive],
                                   self.k1 * (1 - self.b + self.b * lengths))
        return self._view

    def _locate(self, slot: int) -> tuple[Segment, int]:
        offsets = self._slots().offsets
        index = int(np.searchsorted(offsets, slot, "right")) - 1
        return self._segments[index], slot - int(offsets[index])

    def _slot_metadata(self, slot: int) -> Metadata:
        segment, row = self._locate(slot)
        return segment.metadata(row)

    def _position(self, number: int) -> int:
        for index, segment in enumerate(self._segments):
            if segment.number == number:
                return index
        raise KeyError(number)

    def _ids_map(self) -> dict[str, tuple[int, int]]:
        """Id -> (segment number, row) of every live document, built on first need (a
        reader that only searches never pays for it)."""
        if self._slot_of is None:
            self._slot_of = {}
            for segment, alive in zip(self._segments, self._alive):
                rows = np.flatnonzero(alive)
                self._slot_of.update(zip(segment.ids.take(rows), ((segment.number, int(r)) for r in rows)))
        return self._slot_of

    def _idf_floor(self) -> float:
        """epsilon x mean idf over the terms present in the corpus (rank-bm25's floor)."""
        if self._floor is None:
            hashes = [s.term_hash for s in self._segments]
            frequencies = [s.alive_document_frequencies(a) for s, a in zip(self._segments, self._alive)]
            self._floor = 0.0
            if self._count and hashes:
                unique, inverse = np.unique(np.concatenate(hashes), return_inverse=True)
                df = np.bincount(inverse, weights=np.concatenate(frequencies), minlength=len(unique))
                df = df[df > 0]
                if len(df):
                    idf = np.log(self._count - df + 0.5) - np.log(df + 0.5)
                    self._floor = self.epsilon * float(idf.mean())
        return self._floor
