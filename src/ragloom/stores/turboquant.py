"""A vector store holding TurboQuant-compressed unit directions (8x smaller than float32 at
4 bits; no norms: the store ranks by cosine).

Search never decodes the whole store: bit-plane sketches pick the candidates
(``turboquant_passes``), which are scored from their codes with the query (lookup of
centroids), and with a refine tier the best ``second_pass`` of those are re-scored from
the finer codes. Writes go to memory; ``persist`` appends one segment file (new rows plus
the rows deleted since the last segment) and then atomically swaps the segment list
(``turboquant_segments``), so an append never rewrites older data and a crash leaves the
previous state readable. Opening maps the segment files (``arrayfile``) and copies only
the codes: ids, texts and metadata are decoded when a row is read.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ragloom.arrayfile import ArrayFile, damaged_files, write_arrays
from ragloom.embeddings.base import l2_normalize
from ragloom.errors import REBUILD_HINT, CorruptIndexError, IndexMismatchError, ReadOnlyError
from ragloom.faults import crash_point
from ragloom.filters import Filters, compile_filters, matches_all
from ragloom.ownership import STORE_MARKER, claim_folder
from ragloom.quant.turboquant import TurboQuantizer
from ragloom.segments import record_written
from ragloom.stores.base import EmbeddingSpec, StoreDefaults, check_upsert_arguments, require_stored
from ragloom.stores.turboquant_passes import candidate_rows, pool_sizes
from ragloom.stores.turboquant_rows import TurboQuantRows
from ragloom.stores.turboquant_segments import (
    MAX_SEGMENTS,
    SEGMENT_FORMAT,
    SEGMENT_LIST,
    describe_settings,
    drop_own_files,
    next_segment_name,
    read_segment_list,
    write_segment_list,
)
from ragloom.top_k import top_k_indices
from ragloom.types import Chunk, Metadata, SearchResult

logger = logging.getLogger("ragloom")


class TurboQuantStore(StoreDefaults):
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
        self._rows = TurboQuantRows(self.quantizer)
        self._segments: list[str] = []
        self._files: dict[str, ArrayFile] = {}  # segment name -> its mapped file

    def _settings(self) -> dict[str, object]:
        return {"quantizer": self.quantizer.describe(), "embedding_model": self.embedding.model,
                "dimension": self.embedding.dimension, "segment_format": SEGMENT_FORMAT}

    def _open(self, path: Path) -> None:
        """Load the segments listed in segments.json. Built for another model or quantizer,
        or unreadable, the store is refused, never dropped: other processes may share it
        (only an older segment format of the same identity is rebuilt by a writer)."""
        try:
            listed = read_segment_list(path)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise self._corrupt(path / SEGMENT_LIST, exc) from None
        if listed is None:
            return
        settings, segments = listed
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
                    f"TurboQuant store at {path} was built with {describe_settings(settings)}, not "
                    f"{describe_settings(self._settings())}: its vectors cannot be searched with this "
                    f"model{reading}; {REBUILD_HINT}", None if self.read_only else self._discard)
            logger.warning("TurboQuant store at %s has segment format %s; now %s: rebuilding it",
                           path, settings.get("segment_format"), SEGMENT_FORMAT)
            drop_own_files(path)
            return
        files = []
        for name in segments:
            try:
                files.append(ArrayFile(path / name))
                int(files[-1].meta["rows"])
            except Exception as exc:  # a listed file missing, foreign or damaged
                raise self._corrupt(path / name, exc) from None
        self._rows.reserve(sum(int(file.meta["rows"]) for file in files))
        for name, file in zip(segments, files):
            try:
                self._rows.replay(file)
            except Exception as exc:  # anything failing here means the file is damaged
                raise self._corrupt(path / name, exc) from None
        self._segments = segments
        self._files = dict(zip(segments, files))
        self._rows.mark_saved()

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
        with self._lock:
            return damaged_files(self._files.values())

    def _discard(self) -> None:
        """For a rebuild on purpose: delete the files this store wrote, nothing else."""
        self._reset_memory()
        if self.path is not None:
            drop_own_files(self.path)

    # -- writing ---------------------------------------------------------------------------

    def upsert(self, ids: Sequence[str], vectors: np.ndarray, texts: Sequence[str],
               metadatas: Sequence[Metadata]) -> None:
        self._require_writable()
        matrix = check_upsert_arguments(ids, vectors, texts, metadatas, self.quantizer.dim)
        compressed = self.quantizer.compress(matrix)
        with self._lock:
            self._rows.delete(self._rows.row_of.keys() & ids)
            self._rows.append(list(ids), list(texts), list(map(dict, metadatas)), compressed)

    def delete(self, ids: Sequence[str]) -> None:
        self._require_writable()
        with self._lock:
            self._rows.delete(ids)

    def reset(self) -> None:
        self._require_writable()
        with self._lock:
            self._reset_memory()
            if self.path is not None:
                drop_own_files(self.path)

    def _require_writable(self) -> None:
        if self.read_only:
            raise ReadOnlyError(f"the TurboQuant store at {self.path} is open for reading only")

    # -- reading ---------------------------------------------------------------------------

    def query(self, vector: np.ndarray, top_k: int, filters: Filters | None = None) -> list[SearchResult]:
        conditions = compile_filters(filters)
        with self._lock:
            table = self._rows
            everything = table.live == len(table) and not conditions
            rows = np.arange(len(table)) if everything else np.flatnonzero(table.alive)
            if conditions:
                rows = np.array([r for r in rows.tolist() if matches_all(table.metadatas[r], conditions)],
                                dtype=np.int64)
            if len(rows) == 0 or top_k <= 0:
                return []
            query = l2_normalize(np.asarray(vector, dtype=np.float32).reshape(1, -1))[0]
            rotated = self.quantizer.prepare_query(query)
            pools = self.pool_sizes(top_k)
            codebook = self.quantizer.codebook
            if len(rows) > pools[1] and len(table.data.planes) and codebook is not None:
                rows = candidate_rows(table.data.planes, table.sign_words, rotated, rows, pools,
                                      everything, codebook.large_magnitude_ratio)
            scores = self._cosines(rotated, rows, refined=False)
            if table.data.refine is not None:
                rows = rows[top_k_indices(scores, max(self.second_pass, top_k))]
                scores = self._cosines(rotated, rows, refined=True)
            best = top_k_indices(scores, top_k)
            return [SearchResult(id=table.ids[rows[i]], text=table.texts[rows[i]],
                                 metadata=dict(table.metadatas[rows[i]]), score=float(scores[i]),
                                 distance=float(1.0 - scores[i])) for i in best]

    def _cosines(self, rotated_query: np.ndarray, rows: np.ndarray, refined: bool) -> np.ndarray:
        """Estimated cosine similarity of the unit query with each row."""
        return self.quantizer.score_rotated(rotated_query, self._rows.data.take(rows), refined,
                                            for_ranking=True)

    def pool_sizes(self, top_k: int) -> tuple[int, int]:
        """Rows kept by the sign-bit pass and by the two-plane pass (``pool_sizes``)."""
        return pool_sizes(self.first_pass, top_k)

    def get(self, ids: Sequence[str]) -> list[Chunk]:
        with self._lock:
            table = self._rows
            return [Chunk(doc_id, table.texts[row], dict(table.metadatas[row]))
                    for doc_id, row in zip(ids, table.find(ids)) if row is not None]

    def get_vectors(self, ids: Sequence[str]) -> np.ndarray:
        """Unit vectors reconstructed from the codes (refined when the tier exists)."""
        with self._lock:
            found = self._rows.find(ids)
            require_stored(ids, {doc_id for doc_id, row in zip(ids, found) if row is not None})
            rows = np.array(found, dtype=np.int64)
            return l2_normalize(self.quantizer.decompress(self._rows.data.take(rows)))

    def ids(self) -> list[str]:
        with self._lock:
            return list(self._rows.row_of)

    def count(self) -> int:
        with self._lock:
            return self._rows.live

    def id_digest(self) -> int:
        """Sum of the live ids' 64-bit hashes (the BM25 index compares it: no id is read)."""
        with self._lock:
            return int(np.sum(self._rows.hashes[self._rows.alive], dtype=np.uint64))

    def bytes_per_vector(self) -> float:
        return self._rows.data.nbytes_per_vector()

    # -- persistence -----------------------------------------------------------------------

    def persist(self) -> None:
        """Append a segment with the writes since the last persist (or, when many segments
        or dead rows piled up, one compacted segment), then swap the segment list."""
        if self.path is None or self.read_only:
            return
        with self._lock:
            table = self._rows
            saved = table.saved
            if not table.alive[saved:].any() and not table.deleted_since_save:
                return
            self.path.mkdir(parents=True, exist_ok=True)
            dead = len(table) - table.live
            compact = len(self._segments) >= MAX_SEGMENTS or dead > 0.3 * max(len(table), 1)
            if compact:  # one segment with every live row; memory is compacted only once it is saved
                new_rows, deleted = np.flatnonzero(table.alive), []
            else:  # every row since the last save (rows are numbered across segments)
                new_rows = np.arange(saved, len(table))
                deleted = sorted(table.deleted_since_save) + (
                    saved + np.flatnonzero(~table.alive[saved:])).tolist()
            name = next_segment_name(self._segments, self.path)
            record_written(self.path, name)  # the only files it ever deletes or overwrites
            self._write_segment(self.path / name, new_rows, deleted)
            crash_point("segment-written")
            segments = [name] if compact else [*self._segments, name]
            write_segment_list(self.path, self._settings(), segments)
            if compact:
                self._compact_memory(name)
            else:  # the rows just saved are read from their file from now on, not memory
                self._files[name] = ArrayFile(self.path / name)
                table.columns.map_file(self._files[name])
            self._segments = segments
            self._rows.mark_saved()

    def _write_segment(self, path: Path, rows: np.ndarray, deleted: list[int]) -> None:
        table = self._rows
        arrays = {**table.data.take(rows).arrays(), **table.columns.pack(rows)}
        arrays["id_hash"] = table.hashes[rows]
        arrays["dead"] = np.asarray(deleted, dtype=np.int64)
        self.bytes_written += write_arrays(path, arrays, {"rows": len(rows)})

    def _compact_memory(self, name: str) -> None:
        """Renumber rows as the compacted segment holds them, mapping it (no copy of texts)."""
        assert self.path is not None
        self._reset_memory()
        file = ArrayFile(self.path / name)
        self._rows.reserve(int(file.meta["rows"]))
        self._rows.replay(file)
        self._files = {name: file}

    def close(self) -> None:
        self.persist()
