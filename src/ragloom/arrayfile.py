"""A file of named NumPy arrays read through one memory map: opening reads a small header,
an array's pages are read only when touched (no zip, no pickle, no copy at open).

Layout: 8-byte magic, 8-byte header length, JSON header (arrays by name with dtype, shape
and offset; free ``meta``), then each array's bytes at a 64-byte aligned offset. Written
all or nothing with ``atomic_write``. Strings are stored as a UTF-8 blob plus offsets
(``pack_strings``) and read one at a time (``Strings``).
"""

from __future__ import annotations

import json
import mmap
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ragloom.atomic import atomic_write
from ragloom.errors import StoreError

MAGIC = b"RLARRAY1"
_ALIGN = 64


def write_arrays(path: Path, arrays: Mapping[str, np.ndarray], meta: Mapping[str, Any]) -> int:
    """Write ``arrays`` and ``meta`` to ``path`` atomically; returns the bytes written."""
    entries: dict[str, dict[str, Any]] = {}
    offset = 0
    for name, array in arrays.items():
        entries[name] = {"dtype": array.dtype.str, "shape": list(array.shape), "offset": offset}
        offset += -(-array.nbytes // _ALIGN) * _ALIGN
    header = json.dumps({"arrays": entries, "meta": dict(meta)}).encode("utf-8")
    start = -(-(16 + len(header)) // _ALIGN) * _ALIGN
    with atomic_write(path) as handle:
        handle.write(MAGIC + len(header).to_bytes(8, "little") + header)
        handle.write(b"\0" * (start - 16 - len(header)))
        for array in arrays.values():
            data = np.ascontiguousarray(array)
            handle.write(memoryview(data).cast("B") if data.nbytes else b"")
            handle.write(b"\0" * (-data.nbytes % _ALIGN))
    return start + offset


class ArrayFile:
    """The arrays of a file written by ``write_arrays``, as read-only views of its map."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._views: dict[str, np.ndarray] = {}  # arrays handed out, by name (views of the map)
        with path.open("rb") as handle:
            prefix = handle.read(16)
            if len(prefix) < 16 or prefix[:8] != MAGIC:
                raise StoreError(f"{path} is not a ragloom array file (damaged or foreign); "
                                 f"run 'ragloom index --rebuild' to rebuild the index")
            length = int.from_bytes(prefix[8:], "little")
            try:
                header = json.loads(handle.read(length).decode("utf-8"))
                self.meta: dict[str, Any] = header["meta"]
                self._entries: dict[str, dict[str, Any]] = header["arrays"]
            except (ValueError, KeyError, TypeError) as exc:
                raise StoreError(f"{path} has a damaged header ({exc}); run 'ragloom index "
                                 f"--rebuild' to rebuild the index") from exc
            size = handle.seek(0, 2)
            self._start = -(-(16 + length) // _ALIGN) * _ALIGN
            self._map = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) if size else None
        for name, entry in self._entries.items():
            nbytes = int(np.dtype(entry["dtype"]).itemsize * int(np.prod(entry["shape"])))
            if self._start + entry["offset"] + nbytes > size:
                raise StoreError(f"{path} is truncated (array {name!r} ends past the end of the "
                                 f"file); run 'ragloom index --rebuild' to rebuild the index")

    def __contains__(self, name: str) -> bool:
        return name in self._entries

    def names(self) -> list[str]:
        return list(self._entries)

    def __getitem__(self, name: str) -> np.ndarray:
        """Array ``name``, a read-only view of the map (made once: searches ask for the same
        arrays on every query, and parsing their entry each time cost ~40 us a call)."""
        view = self._views.get(name)
        if view is not None:
            return view
        self._views[name] = view = self._view(name)
        return view

    def _view(self, name: str) -> np.ndarray:
        entry = self._entries[name]
        dtype, shape = np.dtype(entry["dtype"]), tuple(entry["shape"])
        count = int(np.prod(shape))
        if count == 0 or self._map is None:
            return np.zeros(shape, dtype=dtype)
        array = np.frombuffer(self._map, dtype=dtype, count=count, offset=self._start + entry["offset"])
        return array.reshape(shape)


def pack_strings(values: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """A UTF-8 blob and ``len(values) + 1`` offsets into it."""
    encoded = [value.encode("utf-8", "surrogatepass") for value in values]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded)), out=offsets[1:])
    return np.frombuffer(b"".join(encoded), dtype=np.uint8), offsets


class Strings:
    """A read-only sequence of strings kept as a blob and offsets (decoded on access)."""

    def __init__(self, blob: np.ndarray, offsets: np.ndarray) -> None:
        self.blob, self.offsets = blob, offsets
        self._bytes = memoryview(blob.reshape(-1).view(np.uint8)) if blob.size else memoryview(b"")

    @classmethod
    def of(cls, values: list[str]) -> Strings:
        return cls(*pack_strings(values))

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def __getitem__(self, index: int) -> str:
        start, stop = self.offsets[index:index + 2].tolist()
        return str(self._bytes[start:stop], "utf-8", "surrogatepass")

    def raw(self, index: int) -> bytes:
        start, stop = self.offsets[index:index + 2].tolist()
        return bytes(self._bytes[start:stop])

    def __iter__(self) -> Iterator[str]:
        return iter(self.tolist())

    def tolist(self) -> list[str]:
        data = self.blob.tobytes()
        bounds = self.offsets.tolist()
        return [data[bounds[i]:bounds[i + 1]].decode("utf-8", "surrogatepass")
                for i in range(len(bounds) - 1)]

    def take(self, rows: np.ndarray) -> list[str]:
        return [self[int(row)] for row in rows]
