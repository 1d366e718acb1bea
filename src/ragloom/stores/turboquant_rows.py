"""The rows of a TurboQuant store: compressed codes, ids, texts and metadata, which rows
are alive, and which of them are already saved in segment files.

Rows are only appended: a replaced or deleted row is marked dead and dropped when the
store compacts. Codes sit in buffers grown geometrically; ids, texts and metadata of saved
rows stay in their mapped segment files (``RowColumns``) until read."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from ragloom.arrayfile import ArrayFile
from ragloom.digests import key_hash
from ragloom.quant.bits import sign_words
from ragloom.quant.turboquant import CODE_PARTS, CompressedVectors, TurboQuantizer
from ragloom.stores.columns import HashIndex, RowColumns
from ragloom.types import Metadata


class TurboQuantRows:
    """Every row written since the store opened (or last compacted), dead ones included:
    row i belongs to ``ids[i]``."""

    def __init__(self, quantizer: TurboQuantizer) -> None:
        self.columns = RowColumns()
        self.ids, self.texts, self.metadatas = self.columns.ids, self.columns.texts, self.columns.metadatas
        self.live = 0
        self.saved = 0  # rows before this one are in the segment files
        self.deleted_since_save: set[int] = set()  # saved rows deleted since
        self._row_of_map: dict[str, int] | None = None  # id -> row, built for the first write
        self._hash_order: HashIndex | None = None  # for readers' lookups
        self._alive_buffer = np.zeros(0, dtype=bool)
        self._hash_buffer = np.zeros(0, dtype=np.uint64)
        self._buffer = quantizer.compress(np.zeros((0, quantizer.dim), np.float32))
        self._words: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.ids)

    @property
    def row_of(self) -> dict[str, int]:
        """Id -> row of every live row (decoded from the segments on first need)."""
        if self._row_of_map is None:
            rows = np.flatnonzero(self.alive).tolist()
            self._row_of_map = dict(zip(self.ids.take(rows), rows))
        return self._row_of_map

    @property
    def data(self) -> CompressedVectors:
        """The compressed rows, dead ones included."""
        return self._buffer.head(len(self.ids))

    @property
    def alive(self) -> np.ndarray:
        """Per row: not deleted or replaced since it was written."""
        return self._alive_buffer[:len(self.ids)]

    @property
    def hashes(self) -> np.ndarray:
        """Per row: the 64-bit hash of its id."""
        return self._hash_buffer[:len(self.ids)]

    def sign_words(self) -> np.ndarray:
        """The sign plane laid out word by word for the first pass (kept until rows change:
        48 more bytes per 384-d vector in memory, nothing on disk)."""
        if self._words is None:
            self._words = sign_words(self.data.planes[0])
        return self._words

    def reserve(self, end: int) -> None:
        """Room for ``end`` rows (grown geometrically: appends cost O(1) per row overall)."""
        if end > len(self._buffer):
            capacity = max(end, 2 * len(self._buffer), 1024)
            start = len(self.ids)
            self._buffer = self._buffer.with_capacity(capacity)
            self._alive_buffer = np.concatenate([self._alive_buffer[:start],
                                                 np.zeros(capacity - start, dtype=bool)])
            self._hash_buffer = np.concatenate([self._hash_buffer[:start],
                                                np.zeros(capacity - start, dtype=np.uint64)])

    def replay(self, file: ArrayFile) -> None:
        """Append a segment's rows: codes copied, ids, texts and metadata mapped."""
        # the codes, hashes and deletions are copied: their checksums are checked on the way
        compressed = CompressedVectors.from_arrays({name: file.checked(name) for name in file.names()
                                                    if name in CODE_PARTS})
        self._fill(compressed, file.checked("id_hash"))
        self.columns.add_file(file)
        dead = np.asarray(file.checked("dead"), dtype=np.int64)
        self.live -= int(self._alive_buffer[np.unique(dead)].sum())
        self._alive_buffer[dead] = False

    def append(self, ids: list[str], texts: list[str], metadatas: list[Metadata],
               compressed: CompressedVectors) -> None:
        start = len(self.ids)
        self._fill(compressed, np.fromiter(map(key_hash, ids), dtype=np.uint64, count=len(ids)))
        self.columns.extend(ids, texts, metadatas)
        self.row_of.update(zip(ids, range(start, start + len(ids))))

    def _fill(self, compressed: CompressedVectors, hashes: np.ndarray) -> None:
        start = len(self.ids)
        end = start + len(compressed)
        self.reserve(end)
        self._buffer.write(start, compressed)
        self._alive_buffer[start:end] = True
        self._hash_buffer[start:end] = hashes
        self.live += end - start
        self._words = None
        self._hash_order = None

    def delete(self, ids: Iterable[str]) -> None:
        """Mark the live rows of ``ids`` dead (ids not stored are ignored)."""
        rows = np.array([row for doc_id in ids if (row := self.row_of.pop(doc_id, None)) is not None],
                        dtype=np.int64)
        self.alive[rows] = False
        self.live -= len(rows)
        self.deleted_since_save.update(rows[rows < self.saved].tolist())

    def mark_saved(self) -> None:
        self.saved = len(self.ids)
        self.deleted_since_save = set()

    def find(self, ids: Sequence[str]) -> list[int | None]:
        """The live row of each id (None: not stored): from the id map a writer keeps, or
        for a reader by the ids' hashes (sorted once), without decoding every id."""
        if self._row_of_map is not None:
            return [self._row_of_map.get(doc_id) for doc_id in ids]
        if self._hash_order is None:
            self._hash_order = HashIndex(self.hashes)
        return self._hash_order.rows(ids, self.alive, self.ids)
