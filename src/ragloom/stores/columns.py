"""Columns of per-row strings (or JSON values) kept partly in mapped segment files and
partly in memory: opening a store maps its segments, a row is decoded when read."""

from __future__ import annotations

import bisect
import json
from collections.abc import Sequence
from typing import Any

import numpy as np

from ragloom.arrayfile import ArrayFile, Strings, pack_strings
from ragloom.digests import key_hash

_DECODED_ROWS = 100_000  # parsed JSON rows kept (a few hundred bytes each)


class LazyColumn:
    """Rows from mapped ``Strings`` parts, then rows appended in memory; ``as_json``
    decodes each row as JSON."""

    def __init__(self, as_json: bool = False) -> None:
        self.as_json = as_json
        self._decoded: dict[int, Any] = {}  # JSON rows already parsed (callers copy them)
        self._parts: list[Strings] = []
        self._starts: list[int] = []
        self._mapped = 0
        self._memory: list[Any] = []

    def __len__(self) -> int:
        return self._mapped + len(self._memory)

    def add_part(self, part: Strings) -> None:
        """Mapped rows; only before any row was appended in memory."""
        assert not self._memory, "mapped rows go before rows in memory"
        self._starts.append(self._mapped)
        self._parts.append(part)
        self._mapped += len(part)

    def map_memory(self, part: Strings) -> None:
        """The rows in memory were saved as ``part``: read them from there from now on."""
        assert len(part) == len(self._memory), "the saved part holds exactly the rows in memory"
        self._memory = []
        self.add_part(part)

    def extend(self, values: list[Any]) -> None:
        self._memory.extend(values)

    def __getitem__(self, row: int) -> Any:
        if row >= self._mapped:
            return self._memory[row - self._mapped]
        if self.as_json and row in self._decoded:
            return self._decoded[row]
        index = bisect.bisect_right(self._starts, row) - 1
        text = self._parts[index][row - self._starts[index]]
        if not self.as_json:
            return text
        if len(self._decoded) >= _DECODED_ROWS:
            self._decoded.clear()
        value = self._decoded[row] = json.loads(text)
        return value

    def take(self, rows: np.ndarray | list[int]) -> list[Any]:
        return [self[int(row)] for row in rows]

    def encoded(self, rows: np.ndarray | list[int]) -> list[str]:
        """Rows as stored (JSON text for a JSON column)."""
        if not self.as_json:
            return self.take(rows)
        return [self._parts[i][r - self._starts[i]] if r < self._mapped
                else json.dumps(self._memory[r - self._mapped], ensure_ascii=False, separators=(",", ":"))
                for row in rows for r in [int(row)] for i in [bisect.bisect_right(self._starts, r) - 1]]


class RowColumns:
    """The ids, texts and metadata of a segmented store's rows, mapped from segment files
    (``id_blob``/``id_off``, ``text_...``, ``meta_...``) or held in memory until saved."""

    NAMES = ("id", "text", "meta")

    def __init__(self) -> None:
        self.ids, self.texts, self.metadatas = LazyColumn(), LazyColumn(), LazyColumn(as_json=True)

    def _columns(self) -> tuple[LazyColumn, LazyColumn, LazyColumn]:
        return self.ids, self.texts, self.metadatas

    def add_file(self, file: ArrayFile) -> None:
        """Append a segment file's rows (mapped)."""
        for name, column in zip(self.NAMES, self._columns()):
            column.add_part(Strings(file[f"{name}_blob"], file[f"{name}_off"]))

    def map_file(self, file: ArrayFile) -> None:
        """The rows in memory were saved in ``file``: read them from there from now on."""
        for name, column in zip(self.NAMES, self._columns()):
            column.map_memory(Strings(file[f"{name}_blob"], file[f"{name}_off"]))

    def extend(self, ids: list[str], texts: list[str], metadatas: list[Any]) -> None:
        for column, values in zip(self._columns(), (ids, texts, metadatas)):
            column.extend(values)

    def pack(self, rows: np.ndarray) -> dict[str, np.ndarray]:
        """The arrays a segment file holds for ``rows``."""
        arrays: dict[str, np.ndarray] = {}
        for name, column in zip(self.NAMES, self._columns()):
            arrays[f"{name}_blob"], arrays[f"{name}_off"] = pack_strings(column.encoded(rows))
        return arrays


class HashIndex:
    """Rows by the 64-bit hash of their id, sorted once: finds a few ids without decoding
    every id into a map (what a reader needs)."""

    def __init__(self, hashes: np.ndarray) -> None:
        self.order = np.argsort(hashes, kind="stable")
        self.sorted = hashes[self.order]

    def rows(self, ids: Sequence[str], alive: np.ndarray, id_column: LazyColumn) -> list[int | None]:
        """The live row holding each id, None when there is none."""
        found: list[int | None] = []
        for doc_id in ids:
            value = np.uint64(key_hash(doc_id))
            position, row = int(np.searchsorted(self.sorted, value)), None
            while position < len(self.sorted) and self.sorted[position] == value:
                candidate = int(self.order[position])
                if alive[candidate] and id_column[candidate] == doc_id:
                    row = candidate
                    break
                position += 1
            found.append(row)
        return found
