"""TurboQuant (Zandieh, Daliri, Hadian, Mirrokni, arXiv:2504.19874) in NumPy.

Each vector keeps its norm (float32) and its unit direction y is rotated by a random
rotation Π; every coordinate of Πy is then quantized with the Lloyd-Max codebook for the
coordinate distribution (TurboQuant-mse). With ``residual=True`` the MSE quantizer gets
b-1 bits and the residual r = Πy - c(code) is sketched with 1-bit QJL, sign(S r) for a
Gaussian S, plus ||r|| (TurboQuant-prod), which makes inner products unbiased:
<q, x> ≈ |x| (<Πq, c> + ||r|| sqrt(π/2)/d <S Πq, sign(S r)>).
An optional ``refine_bits`` tier stores each coordinate's level inside its Lloyd-Max cell
(a Lloyd-Max quantizer of the density restricted to the cell), used only to re-rank a
candidate pool.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from math import pi, sqrt
from typing import TypedDict

import numpy as np

from ragloom.products import matrix_vector
from ragloom.quant.bits import pack_planes, unpack_planes
from ragloom.quant.codebook import Codebook, lloyd_max_codebook, refinement
from ragloom.quant.rotation import SEED_TAG, make_rotation

FORMAT_VERSION = 2  # 2 added keep_norms; version 1 data always kept norms
_ROTATE_ROWS = 4096    # rows rotated by one BLAS product
_BLOCK_ROWS = 2048      # rows quantized together


class _Settings(TypedDict):
    version: int
    dim: int
    bits: int
    seed: int
    residual: bool
    rotation: str
    refine_bits: int


class Description(_Settings, total=False):
    """A quantizer's settings as stored in a file's header (``keep_norms`` since version 2)."""
    keep_norms: bool


#: The axis along which each part of ``CompressedVectors`` holds its rows.
_ROW_AXIS = {"planes": 1, "norms": 0, "qjl_signs": 0, "residual_norms": 0, "refine": 1}
#: The names of the arrays ``CompressedVectors.arrays`` gives (what a store persists).
CODE_PARTS = tuple(_ROW_AXIS)


def _rows_at(axis: int, rows: slice | np.ndarray) -> tuple[slice | np.ndarray, ...]:
    """An index selecting ``rows`` along ``axis`` (everything along the axes before it)."""
    return (slice(None),) * axis + (rows,)


@dataclass
class CompressedVectors:
    """Compressed rows: bit-planes of the MSE codes, norms (unless the quantizer was told
    to drop them), optional QJL and refine parts."""

    planes: np.ndarray                         # (mse_bits, n, ceil(d/8)) uint8
    norms: np.ndarray | None = None            # (n,) float32
    qjl_signs: np.ndarray | None = None        # (n, ceil(d/8)) uint8
    residual_norms: np.ndarray | None = None   # (n,) float32
    refine: np.ndarray | None = None           # (refine_bits, n, ceil(d/8)) uint8

    def __len__(self) -> int:
        return self.planes.shape[1]

    def arrays(self) -> dict[str, np.ndarray]:
        """The parts present, by name (what ``from_arrays`` takes back)."""
        return {name: part for name in _ROW_AXIS if (part := getattr(self, name)) is not None}

    @staticmethod
    def from_arrays(arrays: Mapping[str, np.ndarray]) -> CompressedVectors:
        return CompressedVectors(**{name: arrays[name] for name in _ROW_AXIS if name in arrays})

    def _map(self, change: Callable[[np.ndarray, int], np.ndarray]) -> CompressedVectors:
        """A copy with ``change(part, row_axis)`` applied to every part present."""
        parts = {name: getattr(self, name) for name in _ROW_AXIS}
        return CompressedVectors(**{name: None if part is None else change(part, _ROW_AXIS[name])
                                    for name, part in parts.items()})

    def take(self, rows: np.ndarray) -> CompressedVectors:
        # indexing, not np.take: np.take first copies a strided view (the store's rows are
        # a view of a larger buffer) whole
        return self._map(lambda part, axis: part[_rows_at(axis, rows)])

    def head(self, count: int) -> CompressedVectors:
        """Views of the first ``count`` rows."""
        return self._map(lambda part, axis: part[_rows_at(axis, slice(0, count))])

    def with_capacity(self, capacity: int) -> CompressedVectors:
        """A copy with room for ``capacity`` rows; rows past ``len(self)`` are unset."""
        def grow(part: np.ndarray, axis: int) -> np.ndarray:
            shape = list(part.shape)
            shape[axis] = capacity
            grown = np.empty(shape, dtype=part.dtype)  # rows past len(self) are never read
            grown[_rows_at(axis, slice(0, part.shape[axis]))] = part
            return grown
        return self._map(grow)

    def write(self, start: int, rows: CompressedVectors) -> None:
        """Copy ``rows`` into these arrays from row ``start`` on (in place)."""
        for name, axis in _ROW_AXIS.items():
            part = getattr(self, name)
            if part is not None:
                part[_rows_at(axis, slice(start, start + len(rows)))] = getattr(rows, name)

    @staticmethod
    def join(parts: list[CompressedVectors]) -> CompressedVectors:
        """The rows of all ``parts`` in order, copied once."""
        def stack(name: str, axis: int) -> np.ndarray | None:
            arrays = [getattr(part, name) for part in parts]
            return None if any(a is None for a in arrays) else np.concatenate(arrays, axis=axis)
        return CompressedVectors(**{name: stack(name, axis) for name, axis in _ROW_AXIS.items()})

    def nbytes_per_vector(self) -> float:
        parts = [getattr(self, name) for name in _ROW_AXIS]
        return sum(p.nbytes for p in parts if p is not None) / max(len(self), 1)


class TurboQuantizer:
    """Compress and score vectors of dimension ``dim`` at ``bits`` bits per coordinate."""

    def __init__(self, dim: int, bits: int = 4, seed: int = 0, residual: bool = False,
                 rotation: str = "dense", refine_bits: int = 0, keep_norms: bool = True) -> None:
        """``keep_norms=False`` stores unit directions only (4 bytes less per vector), for
        callers that rank by cosine: ``decompress`` then returns unit vectors."""
        if not 1 <= bits <= 8:
            raise ValueError(f"bits must be in 1..8, got {bits}")
        if not 0 <= refine_bits <= 8:
            raise ValueError(f"refine_bits must be in 0..8, got {refine_bits}")
        self.dim, self.bits, self.seed = dim, bits, seed
        self.residual, self.refine_bits, self.rotation_kind = residual, refine_bits, rotation
        self.keep_norms = keep_norms
        self.mse_bits = bits - 1 if residual else bits
        self.rotation = make_rotation(rotation, dim, seed)
        self.codebook: Codebook | None = lloyd_max_codebook(dim, self.mse_bits) if self.mse_bits else None
        sketch_rng = np.random.default_rng([seed, SEED_TAG, 1])
        self._sketch = sketch_rng.standard_normal((dim, dim)).astype(np.float32) if residual else None
        self.refinement = (refinement(dim, self.mse_bits, refine_bits) if refine_bits and self.codebook
                           else None)
        self._centroids = (self.codebook.centroids.astype(np.float32) if self.codebook
                           else np.zeros(1, np.float32))

    # -- compression -----------------------------------------------------------------------

    def compress(self, vectors: np.ndarray) -> CompressedVectors:
        matrix = np.atleast_2d(np.asarray(vectors, dtype=np.float32))
        if matrix.shape[1] != self.dim:
            raise ValueError(f"vectors have dimension {matrix.shape[1]}, expected {self.dim}")
        blocks = []
        for start in range(0, max(len(matrix), 1), _ROTATE_ROWS):
            rows = matrix[start:start + _ROTATE_ROWS]
            norms = np.sqrt(np.einsum("ij,ij->i", rows, rows))
            rotated = self.rotation.rotate(rows)  # rotations keep norms: normalize afterwards
            rotated /= np.where(norms > 0, norms, 1.0)[:, None]
            blocks.extend(self._quantize_block(rotated[first:first + _BLOCK_ROWS],
                                               norms[first:first + _BLOCK_ROWS])
                          for first in range(0, max(len(rows), 1), _BLOCK_ROWS))
        return blocks[0] if len(blocks) == 1 else CompressedVectors.join(blocks)

    def _quantize_block(self, rotated: np.ndarray, norms: np.ndarray) -> CompressedVectors:
        """Quantize rotated unit rows, a block small enough to stay in cache between passes."""
        if self.codebook is None:
            planes = np.zeros((0, len(rotated), (self.dim + 7) // 8), dtype=np.uint8)
        else:
            planes = self.codebook.encode_planes(rotated)
        compressed = CompressedVectors(planes, norms if self.keep_norms else None)
        if self._sketch is None and self.refinement is None:
            return compressed
        codes = self.codebook.encode(rotated) if self.codebook else np.zeros(rotated.shape, np.uint8)
        if self._sketch is not None:
            residual = rotated - self._centroids[codes] if self.codebook else rotated
            compressed.residual_norms = np.linalg.norm(residual, axis=1).astype(np.float32)
            compressed.qjl_signs = np.packbits(residual @ self._sketch.T > 0, axis=1)
        if self.refinement is not None:
            compressed.refine = pack_planes(self.refinement.encode(rotated, codes), self.refine_bits)
        return compressed

    def rotated_approximation(self, compressed: CompressedVectors, refined: bool = False) -> np.ndarray:
        """Πy estimates of the unit directions (MSE codes, or MSE + refine tier)."""
        if self.codebook is None:
            return np.zeros((len(compressed), self.dim), dtype=np.float32)
        codes = unpack_planes(compressed.planes, self.mse_bits, self.dim)
        if refined and compressed.refine is not None and self.refinement is not None:
            return self.refinement.decode(codes, unpack_planes(compressed.refine, self.refine_bits, self.dim))
        return self._centroids[codes]

    def decompress(self, compressed: CompressedVectors, refined: bool = True) -> np.ndarray:
        """Vectors back in the original space (norm included when kept)."""
        rotated = self.rotated_approximation(compressed, refined)
        if compressed.qjl_signs is not None and not (refined and compressed.refine is not None):
            rotated = rotated + self._qjl_reconstruction(compressed)
        vectors = self.rotation.unrotate(rotated)
        return vectors if compressed.norms is None else vectors * compressed.norms[:, None]

    def _qjl_reconstruction(self, compressed: CompressedVectors) -> np.ndarray:
        assert self._sketch is not None and compressed.qjl_signs is not None
        assert compressed.residual_norms is not None
        signs = np.unpackbits(compressed.qjl_signs, axis=1, count=self.dim).astype(np.float32) * 2 - 1
        scale = sqrt(pi / 2) / self.dim * compressed.residual_norms
        return (signs @ self._sketch) * scale[:, None]

    # -- scoring ---------------------------------------------------------------------------

    def prepare_query(self, query: np.ndarray) -> np.ndarray:
        """The rotated query Πq (computed once per query)."""
        return self.rotation.rotate(np.asarray(query, dtype=np.float32).reshape(1, -1))[0]

    def inner_product(self, query: np.ndarray, compressed: CompressedVectors,
                      refined: bool = False) -> np.ndarray:
        """Estimates of <query, x> for every compressed x (unbiased with the QJL residual)."""
        rotated_query = self.prepare_query(query)
        return self.score_rotated(rotated_query, compressed, refined)

    def score_rotated(self, rotated_query: np.ndarray, compressed: CompressedVectors,
                      refined: bool = False, for_ranking: bool = False) -> np.ndarray:
        """Inner products with a rotated query. ``for_ranking`` divides by the length of each
        reconstruction (the cosine with the reconstructed direction): no longer the unbiased
        estimate, but it ranks neighbours better (measured: +2 to +3 points of recall@10)."""
        approximation = self.rotated_approximation(compressed, refined)
        scores = matrix_vector(approximation, rotated_query)
        if for_ranking and compressed.qjl_signs is None:
            scores = scores / np.maximum(np.linalg.norm(approximation, axis=1), 1e-30)
        use_qjl = compressed.qjl_signs is not None and not (refined and compressed.refine is not None)
        if use_qjl:
            assert self._sketch is not None
            sketched = self._sketch @ rotated_query
            signs = np.unpackbits(compressed.qjl_signs, axis=1, count=self.dim).astype(np.float32) * 2 - 1
            correction = matrix_vector(signs, sketched) * (sqrt(pi / 2) / self.dim)
            scores = scores + correction * compressed.residual_norms
        return scores if compressed.norms is None else scores * compressed.norms

    # -- persistence -----------------------------------------------------------------------

    def describe(self) -> Description:
        return {"version": FORMAT_VERSION, "dim": self.dim, "bits": self.bits, "seed": self.seed,
                "residual": self.residual, "rotation": self.rotation_kind,
                "refine_bits": self.refine_bits, "keep_norms": self.keep_norms}

    @classmethod
    def from_description(cls, description: Description) -> TurboQuantizer:
        if description.get("version") not in (1, FORMAT_VERSION):
            raise ValueError(f"unsupported TurboQuant format version {description.get('version')}")
        return cls(int(description["dim"]), int(description["bits"]),
                   int(description["seed"]), bool(description["residual"]),
                   str(description["rotation"]), int(description["refine_bits"]),
                   bool(description.get("keep_norms", True)))

    def serialize(self, compressed: CompressedVectors) -> bytes:
        """Versioned bytes holding the quantizer settings and the compressed rows."""
        buffer = io.BytesIO()
        header = np.frombuffer(json.dumps(self.describe()).encode(), dtype=np.uint8)
        np.savez(buffer, header=header, **compressed.arrays())
        return buffer.getvalue()

    @classmethod
    def deserialize(cls, data: bytes) -> tuple[TurboQuantizer, CompressedVectors]:
        with np.load(io.BytesIO(data), allow_pickle=False) as arrays:
            quantizer = cls.from_description(json.loads(arrays["header"].tobytes()))
            compressed = CompressedVectors.from_arrays(arrays)
        return quantizer, compressed
