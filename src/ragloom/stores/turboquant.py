"""A vector store holding TurboQuant-compressed unit directions (8x smaller than float32 at
4 bits; no norms: the store ranks by cosine).

Search never decodes the whole store: a first pass ranks every row by the |q|-weighted
Hamming distance between its sign bit-plane and the rotated query's signs (popcount over
packed words) and keeps ``first_pass`` rows; a two-plane sketch (sign and large-magnitude
bits) keeps a quarter of those, which are scored from their codes with the query (lookup
of centroids), and with a refine tier the best ``second_pass`` of those are
re-scored from the finer codes. Writes go to memory; ``persist`` appends one segment file
(new rows plus the rows deleted since the last segment) and then atomically swaps the
segment list, so an append never rewrites older data and a crash leaves the previous state
readable. Opening maps the segment files (``arrayfile``) and copies only the codes: ids,
texts and metadata are decoded when a row is read.
"""

from __future__ import annotations

import json
import logging
import re
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from ragloom.arrayfile import ArrayFile, write_arrays
from ragloom.atomic import atomic_write
from ragloom.digests import key_hash
from ragloom.embeddings.base import l2_normalize
from ragloom.errors import REBUILD_HINT, CorruptIndexError, IndexMismatchError, ReadOnlyError
from ragloom.faults import crash_point
from ragloom.filters import Filters, compile_filters, matches_all
from ragloom.ownership import STORE_MARKER, claim_folder
from ragloom.quant.bits import sign_sketch_scores, sign_words, two_plane_sketch_scores
from ragloom.quant.turboquant import CODE_PARTS, CompressedVectors, TurboQuantizer
from ragloom.segments import remove_unlisted
from ragloom.stores.base import EmbeddingSpec, check_upsert_arguments, require_stored, top_k_indices
from ragloom.stores.columns import HashIndex, RowColumns
from ragloom.types import Chunk, Metadata, SearchResult

logger = logging.getLogger("ragloom")

SEGMENT_LIST = "segments.json"
SEGMENT_FORMAT = 4  # 4: arrays with CRC-32s; 3 (no checksums) and 2 (npz) are rebuilt by a writer
_MAX_SEGMENTS = 64
#: The files this store writes (and so the only ones it ever deletes).
_OWN_FILE = re.compile(r"^(segments\.json|\d{8}\.(npz|seg)|\.(segments\.json|\d{8}\.(npz|seg))\.\d+\.tmp)$")


class TurboQuantStore:
    """Compressed vectors, texts and metadata, persisted as append-only segments."""

    name = "turboquant"

    #: Another process may load the last persisted state while a writer appends segments.
    concurrent_readers = True
    hands_out_vectors = True
    glob_filters = True

    def __init__(self, path: Path | None, embedding: EmbeddingSpec, bits: int = 4,
                 residual: bool = False, refine_bits: int = 0, seed: int = 0,
                 first_pass: int = 4000, second_pass: int = 100, read_only: bool = False) -> None:
        self.path = path
        self.persistent = path is not None
        self.read_only = read_only
        self.embedding = embedding
        self.first_pass, self.second_pass = first_pass, second_pass
        self._lock = threading.RLock()
        # stores rank by cosine and hand out unit vectors: the norms would be dead weight
        self.quantizer = TurboQuantizer(embedding.dimension, bits, seed, residual, "dense", refine_bits,
                                        keep_norms=False)
        self._reset_memory()
        self.bytes_written = 0
        if path is not None:
            claim_folder(path, STORE_MARKER, "TurboQuant store", create=not read_only)
            self._open(path)

    # -- state -----------------------------------------------------------------------------

    def _reset_memory(self) -> None:
        self._columns = RowColumns()
        columns = self._columns
        self._ids, self._texts, self._metadatas = columns.ids, columns.texts, columns.metadatas
        self._row_of_map: dict[str, int] | None = None  # id -> row, built for the first write
        self._hash_order: HashIndex | None = None  # for readers' lookups
        self._alive_buffer = np.zeros(0, dtype=bool)
        self._hash_buffer = np.zeros(0, dtype=np.uint64)
        self._live = 0
        self._buffer = self.quantizer.compress(np.zeros((0, self.quantizer.dim), np.float32))
        self._saved_rows = 0  # rows before this one are in the segment files
        self._deleted_since_save: set[int] = set()  # saved rows deleted since
        self._segments: list[str] = []
        self._files: dict[str, ArrayFile] = {}  # segment name -> its mapped file
        self._words: np.ndarray | None = None

    @property
    def _row_of(self) -> dict[str, int]:
        """Id -> row of every live row (decoded from the segments on first need)."""
        if self._row_of_map is None:
            rows = np.flatnonzero(self._alive).tolist()
            self._row_of_map = dict(zip(self._ids.take(rows), rows))
        return self._row_of_map

    @property
    def _data(self) -> CompressedVectors:
        """The compressed rows, dead ones included (row i belongs to ``self._ids[i]``)."""
        return self._buffer.head(len(self._ids))

    @property
    def _alive(self) -> np.ndarray:
        """Per row: not deleted or replaced since it was written."""
        return self._alive_buffer[:len(self._ids)]

    def _settings(self) -> dict[str, object]:
        return {"quantizer": self.quantizer.describe(), "embedding_model": self.embedding.model,
                "dimension": self.embedding.dimension, "segment_format": SEGMENT_FORMAT}

    def _open(self, path: Path) -> None:
        """Load the segments listed in segments.json. Built for another model or quantizer,
        or unreadable, the store is refused, never dropped: other processes may share it
        (only an older segment format of the same identity is rebuilt by a writer)."""
        listing = path / SEGMENT_LIST
        if not listing.is_file():
            return
        try:
            saved = json.loads(listing.read_bytes().decode("utf-8"))
            settings, segments = saved["settings"], [str(name) for name in saved["segments"]]
            if not isinstance(settings, dict):
                raise TypeError("settings is not a table")
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise self._corrupt(listing, exc) from None
        if settings != self._settings():
            identity = {key: value for key, value in self._settings().items() if key != "segment_format"}
            if {key: settings.get(key) for key in identity} == identity and self.read_only:
                raise IndexMismatchError(
                    f"TurboQuant store at {path} was written by an older ragloom (segment format "
                    f"{settings.get('segment_format')}, now {SEGMENT_FORMAT}) and reading never "
                    f"rebuilds: run 'ragloom index' once (a writer rebuilds it from the source "
                    f"files; embeddings come from the cache)")
            if self.read_only or {key: settings.get(key) for key in identity} != identity:
                reading = " (reading never rebuilds)" if self.read_only else ""
                raise IndexMismatchError(
                    f"TurboQuant store at {path} was built with {_describe(settings)}, not "
                    f"{_describe(self._settings())}: its vectors cannot be searched with this "
                    f"model{reading}; {REBUILD_HINT}", None if self.read_only else self._discard)
            logger.warning("TurboQuant store at %s has segment format %s; now %s: rebuilding it",
                           path, settings.get("segment_format"), SEGMENT_FORMAT)
            self._drop_files()
            return
        files = []
        for name in segments:
            try:
                files.append(ArrayFile(path / name))
                int(files[-1].meta["rows"])
            except Exception as exc:  # a listed file missing, foreign or damaged
                raise self._corrupt(path / name, exc) from None
        self._reserve(sum(int(file.meta["rows"]) for file in files))
        for name, file in zip(segments, files):
            try:
                self._replay(file)
            except Exception as exc:  # anything failing here means the file is damaged
                raise self._corrupt(path / name, exc) from None
        self._segments = segments
        self._files = dict(zip(segments, files))
        self._mark_saved()

    def _corrupt(self, file: Path, cause: BaseException) -> CorruptIndexError:
        discard = None if self.read_only else self._discard
        if isinstance(cause, CorruptIndexError):  # already names the file, the array and the way out
            return CorruptIndexError(str(cause), discard)
        return CorruptIndexError(
            f"TurboQuant store file {file} is damaged ({type(cause).__name__}: {cause}); "
            f"{REBUILD_HINT}", discard)

    def verify_files(self) -> list[str]:
        """Check every byte of the segment files against their checksums (the explicit
        check: opening checks only the codes, which it reads whole anyway)."""
        problems = []
        with self._lock:
            for file in self._files.values():
                try:
                    file.verify()
                except CorruptIndexError as exc:
                    problems.append(str(exc))
        return problems

    def _discard(self) -> None:
        """For a rebuild on purpose: delete the files this store wrote, nothing else."""
        self._reset_memory()
        if self.path is not None:
            self._drop_files()

    def _replay(self, file: ArrayFile) -> None:
        """Append a segment's rows: codes copied, ids, texts and metadata mapped."""
        start = len(self._ids)
        # the codes, hashes and deletions are copied: their checksums are checked on the way
        compressed = CompressedVectors.from_arrays({name: file.checked(name) for name in file.names()
                                                    if name in CODE_PARTS})
        self._fill(start, compressed, file.checked("id_hash"))
        self._columns.add_file(file)
        dead = np.asarray(file.checked("dead"), dtype=np.int64)
        self._live -= int(self._alive_buffer[np.unique(dead)].sum())
        self._alive_buffer[dead] = False

    def _reserve(self, end: int) -> None:
        """Room for ``end`` rows (grown geometrically: appends cost O(1) per row overall)."""
        if end > len(self._buffer):
            capacity = max(end, 2 * len(self._buffer), 1024)
            start = len(self._ids)
            self._buffer = self._buffer.with_capacity(capacity)
            self._alive_buffer = np.concatenate([self._alive_buffer[:start],
                                                 np.zeros(capacity - start, dtype=bool)])
            self._hash_buffer = np.concatenate([self._hash_buffer[:start],
                                                np.zeros(capacity - start, dtype=np.uint64)])

    def _fill(self, start: int, compressed: CompressedVectors, hashes: np.ndarray) -> None:
        end = start + len(compressed)
        self._reserve(end)
        self._buffer.write(start, compressed)
        self._alive_buffer[start:end] = True
        self._hash_buffer[start:end] = hashes
        self._live += end - start
        self._words = None
        self._hash_order = None

    def _append(self, ids: list[str], texts: list[str], metadatas: list[Metadata],
                compressed: CompressedVectors) -> None:
        start = len(self._ids)
        self._fill(start, compressed, np.fromiter(map(key_hash, ids), dtype=np.uint64, count=len(ids)))
        self._columns.extend(ids, texts, metadatas)
        self._row_of.update(zip(ids, range(start, start + len(ids))))

    def _delete_rows(self, ids: Iterable[str]) -> None:
        rows = np.array([row for doc_id in ids if (row := self._row_of.pop(doc_id, None)) is not None],
                        dtype=np.int64)
        self._alive[rows] = False
        self._live -= len(rows)
        self._deleted_since_save.update(rows[rows < self._saved_rows].tolist())

    def _mark_saved(self) -> None:
        self._saved_rows = len(self._ids)
        self._deleted_since_save = set()

    # -- writing ---------------------------------------------------------------------------

    def upsert(self, ids: Sequence[str], vectors: np.ndarray, texts: Sequence[str],
               metadatas: Sequence[Metadata]) -> None:
        self._require_writable()
        matrix = check_upsert_arguments(ids, vectors, texts, metadatas, self.quantizer.dim)
        compressed = self.quantizer.compress(matrix)
        with self._lock:
            self._delete_rows(self._row_of.keys() & ids)
            self._append(list(ids), list(texts), list(map(dict, metadatas)), compressed)

    def delete(self, ids: Sequence[str]) -> None:
        self._require_writable()
        with self._lock:
            self._delete_rows(ids)

    def reset(self) -> None:
        self._require_writable()
        with self._lock:
            self._reset_memory()
            if self.path is not None:
                self._drop_files()

    def _drop_files(self) -> None:
        """Delete the segment files and list this store wrote; nothing else in the folder."""
        assert self.path is not None
        for file in self.path.iterdir():
            if _OWN_FILE.match(file.name) and file.is_file():
                file.unlink()

    def _require_writable(self) -> None:
        if self.read_only:
            raise ReadOnlyError(f"the TurboQuant store at {self.path} is open for reading only")

    # -- reading ---------------------------------------------------------------------------

    def query(self, vector: np.ndarray, top_k: int, filters: Filters | None = None) -> list[SearchResult]:
        conditions = compile_filters(filters)
        with self._lock:
            everything = self._live == len(self._ids) and not conditions
            rows = np.arange(len(self._ids)) if everything else np.flatnonzero(self._alive)
            if conditions:
                rows = np.array([r for r in rows if matches_all(self._metadatas[r], conditions)],
                                dtype=np.int64)
            if len(rows) == 0 or top_k <= 0:
                return []
            query = l2_normalize(np.asarray(vector, dtype=np.float32).reshape(1, -1))[0]
            rotated = self.quantizer.prepare_query(query)
            if len(rows) > self.pool_sizes(top_k)[1] and len(self._data.planes):
                rows = self._first_passes(rotated, rows, top_k, everything)
            scores = self._cosines(rotated, rows, refined=False)
            if self._data.refine is not None:
                rows = rows[top_k_indices(scores, max(self.second_pass, top_k))]
                scores = self._cosines(rotated, rows, refined=True)
            best = top_k_indices(scores, top_k)
            return [SearchResult(id=self._ids[rows[i]], text=self._texts[rows[i]],
                                 metadata=dict(self._metadatas[rows[i]]), score=float(scores[i]),
                                 distance=float(1.0 - scores[i])) for i in best]

    def _first_passes(self, rotated_query: np.ndarray, rows: np.ndarray, top_k: int,
                      everything: bool) -> np.ndarray:
        """The rows worth scoring from their codes: the sign sketch over all ``rows`` keeps
        the best ``first_pass``, a two-plane sketch of those keeps a quarter (it ranks
        better: on isotropic data the sign bits alone lose up to 3.5 points of recall)."""
        sign_pool, scored_pool = self.pool_sizes(top_k)
        planes = self._data.planes
        keep = scored_pool if len(planes) < 2 else sign_pool
        if len(rows) > keep:
            words = self._sign_words() if everything else self._sign_words()[:, rows]
            sketch = sign_sketch_scores(words, rotated_query)
            rows = rows[np.argpartition(-sketch, keep - 1)[:keep]]
        if len(planes) < 2:
            return rows
        sign = sign_words(planes[0][rows])
        large = ~(sign_words(planes[1][rows]) ^ sign)  # plane 1 is complemented for negatives
        ratio = self.quantizer.codebook.large_magnitude_ratio()  # type: ignore[union-attr]
        refined = two_plane_sketch_scores(sign, large, rotated_query, ratio)
        return rows[np.argpartition(-refined, scored_pool - 1)[:scored_pool]]

    def _sign_words(self) -> np.ndarray:
        """The sign plane laid out word by word for the first pass (kept until rows change:
        48 more bytes per 384-d vector in memory, nothing on disk)."""
        if self._words is None:
            self._words = sign_words(self._data.planes[0])
        return self._words

    def _cosines(self, rotated_query: np.ndarray, rows: np.ndarray, refined: bool) -> np.ndarray:
        """Estimated cosine similarity of the unit query with each row."""
        return self.quantizer.score_rotated(rotated_query, self._data.take(rows), refined, for_ranking=True)

    def pool_sizes(self, top_k: int) -> tuple[int, int]:
        """Rows kept by the sign-bit pass and by the two-plane pass: ``first_pass`` and a
        quarter of it, at least 20 x top_k scored and 4x that kept (measured: 1,000 of a
        two-plane pass over 4,000 match 4,000 scored on isotropic random vectors; scoring
        500 instead loses 2 points on sets full of near-duplicates)."""
        scored = max(self.first_pass // 4, 20 * top_k)
        return max(self.first_pass, 4 * scored), scored

    def get(self, ids: Sequence[str]) -> list[Chunk]:
        with self._lock:
            return [Chunk(doc_id, self._texts[row], dict(self._metadatas[row]))
                    for doc_id, row in zip(ids, self._find_rows(ids)) if row is not None]

    def get_vectors(self, ids: Sequence[str]) -> np.ndarray:
        """Unit vectors reconstructed from the codes (refined when the tier exists)."""
        with self._lock:
            found = self._find_rows(ids)
            require_stored(ids, {doc_id for doc_id, row in zip(ids, found) if row is not None})
            rows = np.array(found, dtype=np.int64)
            return l2_normalize(self.quantizer.decompress(self._data.take(rows)))

    def _find_rows(self, ids: Sequence[str]) -> list[int | None]:
        """The live row of each id (None: not stored): from the id map a writer keeps, or
        for a reader by the ids' hashes (sorted once), without decoding every id."""
        if self._row_of_map is not None:
            return [self._row_of_map.get(doc_id) for doc_id in ids]
        if self._hash_order is None:
            self._hash_order = HashIndex(self._hash_buffer[:len(self._ids)])
        return self._hash_order.rows(ids, self._alive, self._ids)

    def ids(self) -> list[str]:
        with self._lock:
            return list(self._row_of)

    def count(self) -> int:
        with self._lock:
            return self._live

    def id_digest(self) -> int:
        """Sum of the live ids' 64-bit hashes (the BM25 index compares it: no id is read)."""
        with self._lock:
            return int(np.sum(self._hash_buffer[:len(self._ids)][self._alive], dtype=np.uint64))

    def bytes_per_vector(self) -> float:
        return self._data.nbytes_per_vector()

    # -- persistence -----------------------------------------------------------------------

    def persist(self) -> None:
        """Append a segment with the writes since the last persist (or, when many segments
        or dead rows piled up, one compacted segment), then swap the segment list."""
        if self.path is None or self.read_only:
            return
        with self._lock:
            new_rows = self._saved_rows + np.flatnonzero(self._alive[self._saved_rows:])
            if not len(new_rows) and not self._deleted_since_save:
                return
            self.path.mkdir(parents=True, exist_ok=True)
            dead = len(self._ids) - self._live
            compact = len(self._segments) >= _MAX_SEGMENTS or dead > 0.3 * max(len(self._ids), 1)
            if compact:  # one segment with every live row; memory is compacted only once it is saved
                new_rows, deleted = np.flatnonzero(self._alive), []
            else:  # every row since the last save (rows are numbered across segments)
                new_rows = np.arange(self._saved_rows, len(self._ids))
                deleted = sorted(self._deleted_since_save) + (self._saved_rows + np.flatnonzero(
                    ~self._alive[self._saved_rows:])).tolist()
            number = 1 + max((int(name.split(".")[0]) for name in self._segments), default=0)
            name = f"{number:08d}.seg"
            self._write_segment(self.path / name, new_rows, deleted)
            crash_point("segment-written")
            segments = [name] if compact else [*self._segments, name]
            with atomic_write(self.path / SEGMENT_LIST) as handle:
                handle.write(json.dumps({"settings": self._settings(), "segments": segments}).encode("utf-8"))
            remove_unlisted(self.path, _OWN_FILE, {*segments, SEGMENT_LIST})
            if compact:
                self._compact_memory(name)
            else:  # the rows just saved are read from their file from now on, not memory
                self._files[name] = ArrayFile(self.path / name)
                self._columns.map_file(self._files[name])
            self._segments = segments
            self._mark_saved()

    def _write_segment(self, path: Path, rows: np.ndarray, deleted: list[int]) -> None:
        arrays = {**self._data.take(rows).arrays(), **self._columns.pack(rows)}
        arrays["id_hash"] = self._hash_buffer[rows]
        arrays["dead"] = np.asarray(deleted, dtype=np.int64)
        self.bytes_written += write_arrays(path, arrays, {"rows": len(rows)})

    def _compact_memory(self, name: str) -> None:
        """Renumber rows as the compacted segment holds them, mapping it (no copy of texts)."""
        assert self.path is not None
        self._reset_memory()
        file = ArrayFile(self.path / name)
        self._reserve(int(file.meta["rows"]))
        self._replay(file)
        self._files = {name: file}

    def close(self) -> None:
        self.persist()


def _describe(settings: dict[str, object]) -> str:
    """Settings as a person reads them: model (dimension), then the quantizer's."""
    return (f"{settings.get('embedding_model')} ({settings.get('dimension')}-d), quantizer "
            f"{settings.get('quantizer')}")

