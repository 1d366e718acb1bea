"""One immutable BM25 segment: the documents added together, as an inverted index.

Terms are keyed by a 64-bit hash (sorted, so a query term is found by binary search) and
checked against the stored term text, so a hash collision cannot merge two terms' postings.
Each segment also holds its documents' ids, JSON metadata and lengths, the tombstones
(segment number, row) of older documents deleted when it was written, and two small
lookups by hashed key: names each chunk defines and each chunk's ``content_hash``.
On disk a segment is one ``arrayfile``: opening it maps the file, a query reads the
postings of its terms only.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from ragloom.arrayfile import ArrayFile, Strings, pack_strings, write_arrays
from ragloom.digests import key_hash
from ragloom.retrieval.symbols import defined_names
from ragloom.types import Metadata

LOOKUPS = ("symbols", "content_hash")
#: The arrays opening an index reads whole (their checksums are checked then; the rest only
#: by the explicit check, ``Segment.verify``).
READ_AT_OPEN = ("doc_len", "dead_seg", "dead_row")
_DECODED_ROWS = 50_000  # parsed metadata kept per segment


def lookup_keys(metadata: Metadata) -> dict[str, list[str]]:
    """The keys a chunk is found by in each lookup."""
    digest = metadata.get("content_hash")
    return {"symbols": defined_names(metadata),
            "content_hash": [] if digest is None else [json.dumps(digest)]}


class Segment:
    """Documents, postings and lookups of one segment (arrays in memory or mapped)."""

    def __init__(self, number: int, arrays: Mapping[str, np.ndarray], saved: bool = False) -> None:
        self.number = number
        self.saved = saved
        self.file: ArrayFile | None = None  # the file it was opened from
        self.arrays = arrays
        self.ids = Strings(arrays["id_blob"], arrays["id_off"])
        self.metas = Strings(arrays["meta_blob"], arrays["meta_off"])
        self.terms = Strings(arrays["term_blob"], arrays["term_off"])
        self.id_hash: np.ndarray = arrays["id_hash"]
        self.doc_len: np.ndarray = arrays["doc_len"]
        self.term_hash: np.ndarray = arrays["term_hash"]
        self.post_ptr: np.ndarray = arrays["post_ptr"]
        self.post_rows: np.ndarray = arrays["post_rows"]
        self.post_tfs: np.ndarray = arrays["post_tfs"]
        self.dead_seg: np.ndarray = arrays["dead_seg"]
        self.dead_row: np.ndarray = arrays["dead_row"]
        self._decoded: dict[int, Metadata] = {}

    def __len__(self) -> int:
        return len(self.doc_len)

    @property
    def nbytes(self) -> int:
        return sum(array.nbytes for array in self.arrays.values())

    # -- reading ---------------------------------------------------------------------------

    def term_index(self, term: str, hashed: int) -> int | None:
        """The position of ``term`` in this segment's vocabulary, if present."""
        key = np.uint64(hashed)
        first = int(np.searchsorted(self.term_hash, key, "left"))
        while first < len(self.term_hash) and self.term_hash[first] == key:
            if self.terms[first] == term:
                return first
            first += 1
        return None

    def postings(self, term: str, hashed: int) -> tuple[np.ndarray, np.ndarray] | None:
        """Rows holding ``term`` and its frequency in each."""
        index = self.term_index(term, hashed)
        if index is None:
            return None
        start, stop = int(self.post_ptr[index]), int(self.post_ptr[index + 1])
        return self.post_rows[start:stop], self.post_tfs[start:stop]

    def row_terms(self, row: int) -> dict[str, int]:
        """The terms of one document with their frequencies (a scan of the postings)."""
        positions = np.flatnonzero(self.post_rows == row)
        term_indexes = np.searchsorted(self.post_ptr, positions, "right") - 1
        return {self.terms[int(t)]: int(tf) for t, tf in zip(term_indexes, self.post_tfs[positions])}

    def alive_document_frequencies(self, alive: np.ndarray) -> np.ndarray:
        """Per vocabulary term: how many live documents of this segment hold it."""
        if alive.all():
            return np.diff(self.post_ptr)
        counts = np.zeros(len(self.post_rows) + 1, dtype=np.int64)
        np.cumsum(alive[self.post_rows], out=counts[1:])
        frequencies: np.ndarray = counts[self.post_ptr[1:]] - counts[self.post_ptr[:-1]]
        return frequencies

    def lookup(self, kind: str, hashed: int) -> list[int]:
        """Rows that may hold the key hashed to ``hashed`` in lookup ``kind`` (the caller
        checks the metadata: a hash can collide)."""
        hashes = self.arrays[f"{kind}_hash"]
        value = np.uint64(hashed)
        first = hashes.searchsorted(value)
        if first == len(hashes) or hashes[first] != value:
            return []  # the usual answer: one search, no second one
        rows: list[int] = self.arrays[f"{kind}_rows"][first:hashes.searchsorted(value, "right")].tolist()
        return rows

    def metadata(self, row: int) -> Metadata:
        """A row's metadata, parsed once (callers only read it)."""
        found = self._decoded.get(row)
        if found is None:
            if len(self._decoded) >= _DECODED_ROWS:
                self._decoded.clear()
            found = self._decoded[row] = json.loads(self.metas[row])
        return found

    # -- building --------------------------------------------------------------------------

    @classmethod
    def build(cls, number: int, ids: Sequence[str], token_lists: Sequence[Sequence[str]],
              metadatas: Sequence[Metadata]) -> Segment:
        """A segment of new documents from their tokens."""
        tokens = [token for tokens in token_lists for token in tokens]
        vocabulary = sorted({(key_hash(term), term) for term in set(tokens)})
        term_of = {term: index for index, (_, term) in enumerate(vocabulary)}
        token_ids = np.fromiter(map(term_of.__getitem__, tokens), dtype=np.int64, count=len(tokens))
        lengths = np.fromiter(map(len, token_lists), dtype=np.int64, count=len(token_lists))
        rows = np.repeat(np.arange(len(ids), dtype=np.int64), lengths)
        keys, tfs = np.unique(token_ids * max(len(ids), 1) + rows, return_counts=True)
        return cls._assemble(number, [i for i in ids], [_dump(m) for m in metadatas],
                             lengths, vocabulary, keys // max(len(ids), 1), keys % max(len(ids), 1),
                             tfs, list(map(lookup_keys, metadatas)), [])

    @classmethod
    def merge(cls, number: int, parts: Sequence[tuple[Segment, np.ndarray]],
              tombstones: list[tuple[int, int]]) -> Segment:
        """One segment holding the live documents of ``parts`` (segment, alive mask) in order."""
        ids: list[str] = []
        metas: list[str] = []
        lengths, post_terms, post_rows, post_tfs = [], [], [], []
        vocabulary: dict[str, int] = {}
        lookups: list[tuple[str, np.ndarray, np.ndarray]] = []
        base = 0
        for segment, alive in parts:
            live = np.flatnonzero(alive)
            new_row = np.full(len(segment), -1, dtype=np.int64)
            new_row[live] = base + np.arange(len(live))
            ids += segment.ids.take(live)
            metas += segment.metas.take(live)
            lengths.append(np.asarray(segment.doc_len)[live].astype(np.int64))
            terms = segment.terms.tolist()
            hashes = segment.term_hash.tolist()
            for term, hashed in zip(terms, hashes):
                vocabulary.setdefault(term, hashed)
            local = np.repeat(np.arange(len(terms), dtype=np.int64), np.diff(segment.post_ptr))
            rows = new_row[np.asarray(segment.post_rows, dtype=np.int64)]
            keep = rows >= 0
            post_terms.append((local[keep], terms))
            post_rows.append(rows[keep])
            post_tfs.append(np.asarray(segment.post_tfs)[keep].astype(np.int64))
            for kind in LOOKUPS:
                kind_rows = new_row[np.asarray(segment.arrays[f"{kind}_rows"], dtype=np.int64)]
                kept = kind_rows >= 0
                lookups.append((kind, np.asarray(segment.arrays[f"{kind}_hash"])[kept], kind_rows[kept]))
            base += len(live)
        ordered = sorted((hashed, term) for term, hashed in vocabulary.items())
        term_of = {term: index for index, (_, term) in enumerate(ordered)}
        global_terms = [np.fromiter((term_of[t] for t in terms), dtype=np.int64, count=len(terms))[local]
                        for local, terms in post_terms]
        all_terms = _concat(global_terms)
        used = np.zeros(len(ordered), dtype=bool)
        used[all_terms] = True  # terms only dead documents held leave the vocabulary
        all_terms = (np.cumsum(used) - 1)[all_terms]
        ordered = [entry for entry, keep in zip(ordered, used.tolist()) if keep]
        all_rows = _concat(post_rows)
        order = np.lexsort((all_rows, all_terms))
        merged = cls._assemble(number, ids, metas, _concat(lengths), ordered, all_terms[order],
                               all_rows[order], _concat(post_tfs)[order], None, tombstones)
        arrays = dict(merged.arrays)
        for kind in LOOKUPS:
            hashes = _concat([h for k, h, _ in lookups if k == kind], np.uint64)
            rows = _concat([r for k, _, r in lookups if k == kind])
            order = np.lexsort((rows, hashes))
            arrays[f"{kind}_hash"], arrays[f"{kind}_rows"] = hashes[order], rows[order].astype(np.int32)
        return cls(number, arrays)

    @classmethod
    def _assemble(cls, number: int, ids: list[str], metas: list[str], lengths: np.ndarray,
                  vocabulary: list[tuple[int, str]], terms: np.ndarray, rows: np.ndarray,
                  tfs: np.ndarray, keys: list[dict[str, list[str]]] | None,
                  tombstones: list[tuple[int, int]]) -> Segment:
        """Arrays from postings sorted by (term, row); ``keys``: each row's lookup keys."""
        post_ptr = np.zeros(len(vocabulary) + 1, dtype=np.int64)
        np.cumsum(np.bincount(terms, minlength=len(vocabulary)), out=post_ptr[1:])
        id_blob, id_off = pack_strings(ids)
        meta_blob, meta_off = pack_strings(metas)
        term_blob, term_off = pack_strings([term for _, term in vocabulary])
        arrays: dict[str, np.ndarray] = {
            "id_blob": id_blob, "id_off": id_off,
            "id_hash": np.fromiter(map(key_hash, ids), dtype=np.uint64, count=len(ids)),
            "meta_blob": meta_blob, "meta_off": meta_off,
            "doc_len": np.asarray(lengths, dtype=np.int32),
            "term_hash": np.fromiter((h for h, _ in vocabulary), dtype=np.uint64, count=len(vocabulary)),
            "term_blob": term_blob, "term_off": term_off, "post_ptr": post_ptr,
            "post_rows": np.asarray(rows, dtype=np.int32), "post_tfs": np.asarray(tfs, dtype=np.int32),
            "dead_seg": np.array([s for s, _ in tombstones], dtype=np.int64),
            "dead_row": np.array([r for _, r in tombstones], dtype=np.int64),
        }
        for kind in LOOKUPS:
            pairs = sorted((key_hash(key), row) for row, found in enumerate(keys or [])
                           for key in dict.fromkeys(found[kind]))
            arrays[f"{kind}_hash"] = np.array([h for h, _ in pairs], dtype=np.uint64)
            arrays[f"{kind}_rows"] = np.array([r for _, r in pairs], dtype=np.int32)
        return cls(number, arrays)

    # -- files -----------------------------------------------------------------------------

    def write(self, path: Path) -> int:
        """Write to ``path`` atomically; returns the bytes written."""
        return write_arrays(path, self.arrays, {"rows": len(self)})

    @classmethod
    def open(cls, number: int, path: Path) -> Segment:
        """Map a segment file; the arrays read whole at open are checked against their CRC-32."""
        mapped = ArrayFile(path)
        segment = cls(number, {name: mapped.checked(name) if name in READ_AT_OPEN else mapped[name]
                               for name in mapped.names()}, saved=True)
        segment.file = mapped
        return segment


def _dump(metadata: Metadata) -> str:
    return json.dumps(dict(metadata), ensure_ascii=False, separators=(",", ":"))


def _concat(arrays: list[np.ndarray], dtype: type = np.int64) -> np.ndarray:
    return np.concatenate(arrays).astype(dtype, copy=False) if arrays else np.zeros(0, dtype=dtype)
