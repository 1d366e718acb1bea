"""An incremental Okapi BM25 index scored with NumPy from an inverted index.

Scores equal ``rank_bm25.BM25Okapi.get_scores`` on the same tokens (k1, b, and its
epsilon floor for negative idf: such terms get epsilon x the mean idf of the vocabulary).
Documents can be added, replaced and removed one at a time; removed documents leave a
dead slot that is skipped and dropped when the index is saved or compacted. The index
keeps each chunk's metadata so filters apply before ranking. Saved as one ``.npz`` file
(no pickle), written atomically.
"""

from __future__ import annotations

import json
import os
import threading
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ragloom.stores.filters import Condition, matches_all
from ragloom.types import Metadata

FORMAT_VERSION = 1


class BM25Index:
    """Term statistics and postings for BM25 over a changing set of chunks."""

    def __init__(self, k1: float = 1.5, b: float = 0.75, epsilon: float = 0.25,
                 tokenizer: str = "") -> None:
        self.k1, self.b, self.epsilon = k1, b, epsilon
        self.tokenizer = tokenizer  # signature of the tokenizer that made the terms
        self._lock = threading.RLock()
        self._slot_of: dict[str, int] = {}
        self._ids: list[str | None] = []
        self._metadatas: list[Metadata | None] = []
        self._doc_terms: list[np.ndarray] = []   # term ids of each slot
        self._doc_tfs: list[np.ndarray] = []     # their frequencies
        self._doc_len: list[int] = []
        self._alive: list[bool] = []
        self._term_of: dict[str, int] = {}
        self._terms: list[str] = []
        self._df: list[int] = []
        self._postings: list[tuple[list[int], list[int]]] = []
        self._posting_arrays: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self._total_len = 0
        self._cache: tuple[np.ndarray, np.ndarray, float] | None = None  # alive, doc_len, eps

    # -- writing ---------------------------------------------------------------------------

    def add(self, ids: Sequence[str], token_lists: Sequence[Sequence[str]],
            metadatas: Sequence[Metadata]) -> None:
        """Add documents; an id already present is replaced."""
        with self._lock:
            self.remove([i for i in ids if i in self._slot_of])
            for doc_id, tokens, metadata in zip(ids, token_lists, metadatas):
                self._add_counts(doc_id, Counter(tokens), dict(metadata))

    def remove(self, ids: Sequence[str]) -> None:
        with self._lock:
            for doc_id in ids:
                slot = self._slot_of.pop(doc_id, None)
                if slot is None:
                    continue
                for term_id in self._doc_terms[slot].tolist():
                    self._df[term_id] -= 1
                self._alive[slot] = False
                self._ids[slot] = None
                self._metadatas[slot] = None
                self._total_len -= self._doc_len[slot]
            self._cache = None
            if len(self._ids) > 1000 and len(self._slot_of) < 0.6 * len(self._ids):
                self.compact()

    def compact(self) -> None:
        """Rebuild without dead slots."""
        with self._lock:
            live = [(doc_id, self.term_frequencies(doc_id), self._metadatas[slot])
                    for doc_id, slot in self._slot_of.items()]
            self.__init__(self.k1, self.b, self.epsilon, self.tokenizer)  # type: ignore[misc]
            for doc_id, counts, metadata in live:
                self._add_counts(doc_id, counts, metadata)  # type: ignore[arg-type]

    def _term_id(self, term: str) -> int:
        term_id = self._term_of.get(term)
        if term_id is None:
            term_id = len(self._terms)
            self._term_of[term] = term_id
            self._terms.append(term)
            self._df.append(0)
            self._postings.append(([], []))
        return term_id

    # -- reading ---------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._slot_of)

    def __contains__(self, doc_id: str) -> bool:
        return doc_id in self._slot_of

    def ids(self) -> list[str]:
        with self._lock:
            return list(self._slot_of)

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
            alive, doc_len, floor = self._statistics()
            corpus_size = len(self._slot_of)
            scores = np.zeros(len(self._ids), dtype=np.float64)
            matched = np.zeros(len(self._ids), dtype=bool)
            if corpus_size == 0:
                return scores, matched
            average_len = self._total_len / corpus_size
            norm = self.k1 * (1 - self.b + self.b * doc_len / average_len) if average_len else \
                np.full(len(doc_len), self.k1 * (1 - self.b))
            weights = Counter(query) if not isinstance(query, dict) else query
            for term, weight in weights.items():
                term_id = self._term_of.get(term)
                if term_id is None or self._df[term_id] == 0:
                    continue
                frequency = self._df[term_id]
                idf = np.log(corpus_size - frequency + 0.5) - np.log(frequency + 0.5)
                if idf < 0:
                    idf = floor
                slots, tfs = self._posting(term_id)
                scores[slots] += weight * idf * (tfs * (self.k1 + 1) / (tfs + norm[slots]))
                matched[slots] = True
            scores[~alive] = 0.0
            matched &= alive
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
        slot = self._slot_of[doc_id]
        return {self._terms[t]: int(tf) for t, tf in zip(self._doc_terms[slot], self._doc_tfs[slot])}

    def document_frequency(self, term: str) -> int:
        term_id = self._term_of.get(term)
        return 0 if term_id is None else self._df[term_id]

    def _posting(self, term_id: int) -> tuple[np.ndarray, np.ndarray]:
        arrays = self._posting_arrays.get(term_id)
        if arrays is None:
            slots, tfs = self._postings[term_id]
            arrays = (np.asarray(slots, dtype=np.int64), np.asarray(tfs, dtype=np.float64))
            self._posting_arrays[term_id] = arrays
        return arrays

    def _statistics(self) -> tuple[np.ndarray, np.ndarray, float]:
        """Alive mask, document lengths and the epsilon idf floor, cached until a change."""
        if self._cache is None:
            corpus_size = len(self._slot_of)
            df = np.asarray(self._df, dtype=np.float64)
            df = df[df > 0]
            floor = 0.0
            if corpus_size and len(df):
                idf = np.log(corpus_size - df + 0.5) - np.log(df + 0.5)
                floor = self.epsilon * float(idf.sum() / len(idf))
            self._cache = (np.asarray(self._alive, dtype=bool),
                           np.asarray(self._doc_len, dtype=np.float64), floor)
        return self._cache

    # -- persistence -----------------------------------------------------------------------

    def save(self, path: Path) -> None:
        """Write the live documents to ``path`` atomically (temp file, fsync, rename)."""
        with self._lock:
            live = [s for s, alive in enumerate(self._alive) if alive]
            lengths = [len(self._doc_terms[s]) for s in live]
            indptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
            terms = np.concatenate([self._doc_terms[s] for s in live]) if live else np.zeros(0, np.int64)
            tfs = np.concatenate([self._doc_tfs[s] for s in live]) if live else np.zeros(0, np.int64)
            header = {"version": FORMAT_VERSION, "k1": self.k1, "b": self.b, "epsilon": self.epsilon,
                      "tokenizer": self.tokenizer,
                      "ids": [self._ids[s] for s in live],
                      "metadatas": [self._metadatas[s] for s in live], "terms": self._terms}
            path.parent.mkdir(parents=True, exist_ok=True)
            temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
            with temporary.open("wb") as handle:
                np.savez(handle, indptr=indptr, terms=terms, tfs=tfs,
                         header=np.frombuffer(json.dumps(header).encode("utf-8"), dtype=np.uint8))
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temporary, path)

    @classmethod
    def load(cls, path: Path) -> BM25Index:
        """Read an index written by ``save``; no text is re-tokenized."""
        with np.load(path, allow_pickle=False) as data:
            header = json.loads(data["header"].tobytes().decode("utf-8"))
            if header.get("version") != FORMAT_VERSION:
                raise ValueError(f"{path}: unsupported BM25 index version {header.get('version')}")
            indptr, terms, tfs = data["indptr"], data["terms"], data["tfs"]
        index = cls(header["k1"], header["b"], header["epsilon"], header.get("tokenizer", ""))
        vocabulary: list[str] = header["terms"]
        with index._lock:
            for row, (doc_id, metadata) in enumerate(zip(header["ids"], header["metadatas"])):
                start, stop = int(indptr[row]), int(indptr[row + 1])
                counts = {vocabulary[t]: int(f) for t, f in zip(terms[start:stop], tfs[start:stop])}
                index._add_counts(doc_id, counts, metadata)
        return index

    def _add_counts(self, doc_id: str, counts: dict[str, int], metadata: Metadata) -> None:
        """Append one document given its term counts."""
        slot = len(self._ids)
        term_ids = np.fromiter((self._term_id(t) for t in counts), dtype=np.int64, count=len(counts))
        tfs = np.fromiter(counts.values(), dtype=np.int64, count=len(counts))
        for term_id, tf in zip(term_ids.tolist(), tfs.tolist()):
            self._postings[term_id][0].append(slot)
            self._postings[term_id][1].append(tf)
            self._df[term_id] += 1
            self._posting_arrays.pop(term_id, None)
        self._slot_of[doc_id] = slot
        self._ids.append(doc_id)
        self._metadatas.append(metadata)
        self._doc_terms.append(term_ids)
        self._doc_tfs.append(tfs)
        length = int(tfs.sum())
        self._doc_len.append(length)
        self._alive.append(True)
        self._total_len += length
        self._cache = None
