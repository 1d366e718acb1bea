"""An incremental Okapi BM25 index scored with NumPy from an inverted index.

Scores equal ``rank_bm25.BM25Okapi.get_scores`` on the same tokens (k1, b, and its
epsilon floor for negative idf: such terms get epsilon x the mean idf of the vocabulary).

Documents arrive in batches kept as compressed rows (term ids and frequencies per
document); the inverted index over all batches is rebuilt with one NumPy sort on the first
query after a change. Removing a document leaves a dead slot that scoring skips and
``compact``/``save`` drop. The index keeps each chunk's metadata so filters apply before
ranking. Saved as one ``.npz`` file (no pickle), written atomically.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import chain
from pathlib import Path

import numpy as np

from ragloom.atomic import atomic_write
from ragloom.filters import Condition, matches_all
from ragloom.types import Metadata

FORMAT_VERSION = 2
_COMPACT_DEAD_SHARE = 0.4


@dataclass(frozen=True)
class _Batch:
    """Documents added together: their slots and term rows in CSR form."""

    slots: np.ndarray    # (documents,)
    indptr: np.ndarray   # (documents + 1,)
    terms: np.ndarray    # term id of each (document, term) pair
    tfs: np.ndarray      # its frequency


@dataclass(frozen=True)
class _Inverted:
    """Postings of every term over all batches: slots and frequencies grouped by term."""

    indptr: np.ndarray
    slots: np.ndarray
    tfs: np.ndarray


class BM25Index:
    """Term statistics and postings for BM25 over a changing set of chunks."""

    def __init__(self, k1: float = 1.5, b: float = 0.75, epsilon: float = 0.25,
                 tokenizer: str = "") -> None:
        self.k1, self.b, self.epsilon = k1, b, epsilon
        self.tokenizer = tokenizer  # signature of the tokenizer that made the terms
        self._lock = threading.RLock()
        self._term_of: dict[str, int] = {}
        self._terms: list[str] = []
        self._df = np.zeros(0, dtype=np.int64)
        self._batches: list[_Batch] = []
        self._where: list[tuple[int, int]] = []  # slot -> (batch, row)
        self._slot_of: dict[str, int] = {}
        self._ids: list[str | None] = []
        self._metadatas: list[Metadata | None] = []
        self._doc_len = np.zeros(0, dtype=np.float64)
        self._alive = np.zeros(0, dtype=bool)
        self._total_len = 0
        self._inverted: _Inverted | None = None
        self._floor: float | None = None

    # -- writing ---------------------------------------------------------------------------

    def add(self, ids: Sequence[str], token_lists: Sequence[Sequence[str]],
            metadatas: Sequence[Metadata]) -> None:
        """Add documents; an id already present (or repeated in ``ids``) is replaced."""
        if not ids:
            return
        with self._lock:
            self.remove([doc_id for doc_id in ids if doc_id in self._slot_of])
            tokens = list(chain.from_iterable(token_lists))
            for term in set(tokens).difference(self._term_of):
                self._term_of[term] = len(self._terms)
                self._terms.append(term)
            token_ids = np.fromiter(map(self._term_of.__getitem__, tokens), dtype=np.int64,
                                    count=len(tokens))
            lengths = np.fromiter(map(len, token_lists), dtype=np.int64, count=len(token_lists))
            self._append_batch(ids, token_ids, lengths, [dict(m) for m in metadatas])

    def _append_batch(self, ids: Sequence[str], token_ids: np.ndarray, lengths: np.ndarray,
                      metadatas: list[Metadata], tfs: np.ndarray | None = None) -> None:
        """Add documents given their term ids in order (``tfs=None``: one per occurrence,
        counted here) or as distinct (term, tf) pairs with ``tfs``."""
        count = len(ids)
        first_slot = len(self._ids)
        rows = np.repeat(np.arange(count, dtype=np.int64), lengths)
        vocabulary = max(len(self._terms), 1)
        keys, frequencies = np.unique(rows * vocabulary + token_ids, return_counts=True) \
            if tfs is None else (rows * vocabulary + token_ids, tfs)
        terms = keys % vocabulary
        row_of_pair = keys // vocabulary
        indptr = np.zeros(count + 1, dtype=np.int64)
        np.cumsum(np.bincount(row_of_pair, minlength=count), out=indptr[1:])
        batch = _Batch(np.arange(first_slot, first_slot + count, dtype=np.int64), indptr,
                       terms.astype(np.int64), frequencies.astype(np.int64))
        document_lengths = np.bincount(row_of_pair, weights=frequencies, minlength=count)
        self._batches.append(batch)
        self._where.extend((len(self._batches) - 1, row) for row in range(count))
        self._ids.extend(ids)
        self._metadatas.extend(metadatas)
        self._doc_len = np.concatenate([self._doc_len, document_lengths])
        self._alive = np.concatenate([self._alive, np.ones(count, dtype=bool)])
        if len(self._df) < len(self._terms):
            self._df = np.concatenate([self._df, np.zeros(len(self._terms) - len(self._df), np.int64)])
        self._df += np.bincount(batch.terms, minlength=len(self._df))
        self._total_len += int(document_lengths.sum())
        for row, doc_id in enumerate(ids):
            twin = self._slot_of.get(doc_id)
            if twin is not None:  # the same id earlier in this batch: the last one wins
                self._kill(twin)
            self._slot_of[doc_id] = first_slot + row
        self._changed()

    def remove(self, ids: Sequence[str]) -> None:
        with self._lock:
            for doc_id in ids:
                slot = self._slot_of.pop(doc_id, None)
                if slot is not None:
                    self._kill(slot)
            self._changed()
            dead = len(self._ids) - len(self._slot_of)
            if len(self._ids) > 1000 and dead > _COMPACT_DEAD_SHARE * len(self._ids):
                self.compact()

    def _kill(self, slot: int) -> None:
        """Mark a slot dead and take its terms out of the statistics."""
        self._df[self._doc_row(slot)[0]] -= 1
        self._alive[slot] = False
        self._ids[slot] = None
        self._metadatas[slot] = None
        self._total_len -= int(self._doc_len[slot])

    def compact(self) -> None:
        """Rebuild as one batch without dead slots."""
        with self._lock:
            live = [slot for slot in self._slot_of.values()]
            rows = [self._doc_row(slot) for slot in live]
            ids = [self._ids[slot] for slot in live]
            metadatas = [self._metadatas[slot] for slot in live]
            terms_by_id = list(self._terms)
            self.__init__(self.k1, self.b, self.epsilon, self.tokenizer)  # type: ignore[misc]
            self._restore(ids, metadatas, terms_by_id, rows)  # type: ignore[arg-type]

    def _restore(self, ids: list[str], metadatas: list[Metadata], vocabulary: list[str],
                 rows: list[tuple[np.ndarray, np.ndarray]]) -> None:
        """Load documents given as (term ids into ``vocabulary``, tfs) rows."""
        self._terms = list(vocabulary)
        self._term_of = {term: index for index, term in enumerate(vocabulary)}
        self._df = np.zeros(len(vocabulary), dtype=np.int64)
        if not ids:
            return
        lengths = np.fromiter((len(terms) for terms, _ in rows), dtype=np.int64, count=len(rows))
        terms = np.concatenate([terms for terms, _ in rows]) if rows else np.zeros(0, np.int64)
        tfs = np.concatenate([tf for _, tf in rows]) if rows else np.zeros(0, np.int64)
        self._append_batch(ids, terms, lengths, metadatas, tfs=tfs)

    def _changed(self) -> None:
        self._inverted = None
        self._floor = None

    def _doc_row(self, slot: int) -> tuple[np.ndarray, np.ndarray]:
        batch_index, row = self._where[slot]
        batch = self._batches[batch_index]
        start, stop = batch.indptr[row], batch.indptr[row + 1]
        return batch.terms[start:stop], batch.tfs[start:stop]

    # -- reading ---------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._slot_of)

    def __contains__(self, doc_id: str) -> bool:
        return doc_id in self._slot_of

    def ids(self) -> list[str]:
        with self._lock:
            return list(self._slot_of)

    def metadatas(self) -> Iterator[Metadata]:
        """The metadata of every live document."""
        return (meta for meta in self._metadatas if meta is not None)

    def metadata(self, doc_id: str) -> Metadata | None:
        slot = self._slot_of.get(doc_id)
        return None if slot is None else self._metadatas[slot]

    def scores(self, query: Sequence[str] | dict[str, float]) -> np.ndarray:
        """BM25 score of every slot (dead slots score 0). A list of tokens counts repeats,
        as rank-bm25 does; a dict maps terms to query weights (feedback expansion)."""
        return self._score(query)[0]

    def _score(self, query: Sequence[str] | dict[str, float]) -> tuple[np.ndarray, np.ndarray]:
        """Scores of every slot and which live slots contain at least one query term."""
        with self._lock:
            scores = np.zeros(len(self._ids), dtype=np.float64)
            matched = np.zeros(len(self._ids), dtype=bool)
            corpus_size = len(self._slot_of)
            if corpus_size == 0:
                return scores, matched
            inverted = self._inverted_index()
            floor = self._idf_floor()
            average_len = self._total_len / corpus_size
            weights: dict[str, float] = {}
            if isinstance(query, dict):
                weights = dict(query)
            else:
                for term in query:
                    weights[term] = weights.get(term, 0.0) + 1.0
            for term, weight in weights.items():
                term_id = self._term_of.get(term)
                if term_id is None or self._df[term_id] <= 0:
                    continue
                frequency = int(self._df[term_id])
                idf = np.log(corpus_size - frequency + 0.5) - np.log(frequency + 0.5)
                if idf < 0:
                    idf = floor
                start, stop = inverted.indptr[term_id], inverted.indptr[term_id + 1]
                slots, tfs = inverted.slots[start:stop], inverted.tfs[start:stop]
                lengths = self._doc_len[slots] / average_len if average_len else 0.0
                norm = self.k1 * (1 - self.b + self.b * lengths)
                scores[slots] += weight * idf * (tfs * (self.k1 + 1) / (tfs + norm))
                matched[slots] = True
            scores[~self._alive] = 0.0
            matched &= self._alive
            return scores, matched

    def top_k(self, query: Sequence[str] | dict[str, float], k: int,
              conditions: list[Condition] | None = None) -> list[tuple[str, float]]:
        """The ``k`` best (id, score) pairs among documents holding a query term, filters
        applied first. Scores can be negative in tiny corpora (Okapi idf), order still holds."""
        with self._lock:
            scores, matched = self._score(query)
            if conditions:
                matched &= np.fromiter(
                    (meta is not None and matches_all(meta, conditions) for meta in self._metadatas),
                    dtype=bool, count=len(self._metadatas))
            candidates = np.flatnonzero(matched)
            if len(candidates) > k:
                candidates = candidates[np.argpartition(-scores[candidates], k - 1)[:k]]
            order = candidates[np.lexsort((candidates, -scores[candidates]))]
            return [(self._ids[s], float(scores[s])) for s in order]  # type: ignore[misc]

    def term_frequencies(self, doc_id: str) -> dict[str, int]:
        """The document's terms with their counts (for pseudo-relevance feedback)."""
        terms, tfs = self._doc_row(self._slot_of[doc_id])
        return {self._terms[t]: int(tf) for t, tf in zip(terms.tolist(), tfs.tolist())}

    def document_frequency(self, term: str) -> int:
        term_id = self._term_of.get(term)
        return 0 if term_id is None else int(self._df[term_id])

    def _inverted_index(self) -> _Inverted:
        if self._inverted is None:
            slots = np.concatenate([np.repeat(b.slots, np.diff(b.indptr)) for b in self._batches])
            terms = np.concatenate([b.terms for b in self._batches])
            tfs = np.concatenate([b.tfs for b in self._batches])
            keep = self._alive[slots]
            slots, terms, tfs = slots[keep], terms[keep], tfs[keep]
            order = np.argsort(terms, kind="stable")
            indptr = np.zeros(len(self._terms) + 1, dtype=np.int64)
            np.cumsum(np.bincount(terms, minlength=len(self._terms)), out=indptr[1:])
            self._inverted = _Inverted(indptr, slots[order], tfs[order].astype(np.float64))
        return self._inverted

    def _idf_floor(self) -> float:
        """epsilon x mean idf over the terms present in the corpus (rank-bm25's floor)."""
        if self._floor is None:
            corpus_size = len(self._slot_of)
            df = self._df[self._df > 0].astype(np.float64)
            self._floor = 0.0
            if corpus_size and len(df):
                idf = np.log(corpus_size - df + 0.5) - np.log(df + 0.5)
                self._floor = self.epsilon * float(idf.mean())
        return self._floor

    # -- persistence -----------------------------------------------------------------------

    def save(self, path: Path) -> None:
        """Write the live documents to ``path`` atomically (temp file, fsync, rename)."""
        with self._lock:
            live = list(self._slot_of.values())
            rows = [self._doc_row(slot) for slot in live]
            indptr = np.zeros(len(rows) + 1, dtype=np.int64)
            np.cumsum([len(terms) for terms, _ in rows], out=indptr[1:])
            terms = np.concatenate([t for t, _ in rows]) if rows else np.zeros(0, np.int64)
            tfs = np.concatenate([f for _, f in rows]) if rows else np.zeros(0, np.int64)
            header = {"version": FORMAT_VERSION, "k1": self.k1, "b": self.b, "epsilon": self.epsilon,
                      "tokenizer": self.tokenizer, "ids": [self._ids[s] for s in live],
                      "metadatas": [self._metadatas[s] for s in live], "terms": self._terms}
            path.parent.mkdir(parents=True, exist_ok=True)
            with atomic_write(path) as handle:
                np.savez(handle, indptr=indptr, terms=terms, tfs=tfs,
                         header=np.frombuffer(json.dumps(header).encode("utf-8"), dtype=np.uint8))

    @classmethod
    def load(cls, path: Path) -> BM25Index:
        """Read an index written by ``save``; no text is re-tokenized."""
        with np.load(path, allow_pickle=False) as data:
            header = json.loads(data["header"].tobytes().decode("utf-8"))
            if header.get("version") != FORMAT_VERSION:
                raise ValueError(f"{path}: unsupported BM25 index version {header.get('version')}")
            indptr, terms, tfs = data["indptr"], data["terms"], data["tfs"]
        index = cls(header["k1"], header["b"], header["epsilon"], header.get("tokenizer", ""))
        rows = [(terms[indptr[i]:indptr[i + 1]], tfs[indptr[i]:indptr[i + 1]])
                for i in range(len(header["ids"]))]
        with index._lock:
            index._restore(header["ids"], header["metadatas"], header["terms"], rows)
        return index
