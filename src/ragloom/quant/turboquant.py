"""TurboQuant (Zandieh, Daliri, Hadian, Mirrokni, arXiv:2504.19874) in NumPy.

Each vector keeps its norm (float32) and its unit direction y is rotated by a random
rotation Π; every coordinate of Πy is then quantized with the Lloyd-Max codebook for the
coordinate distribution (TurboQuant-mse). With ``residual=True`` the MSE quantizer gets
b-1 bits and the residual r = Πy - c(code) is sketched with 1-bit QJL, sign(S r) for a
Gaussian S, plus ||r|| (TurboQuant-prod), which makes inner products unbiased:
<q, x> ≈ |x| (<Πq, c> + ||r|| sqrt(π/2)/d <S Πq, sign(S r)>).
An optional ``refine_bits`` tier stores each coordinate's position inside its Lloyd-Max
cell on a uniform grid, used only to re-rank a candidate pool.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from math import pi, sqrt

import numpy as np

from ragloom.quant.bits import pack_planes, unpack_planes
from ragloom.quant.codebook import Codebook, lloyd_max_codebook
from ragloom.quant.rotation import SEED_TAG, make_rotation

FORMAT_VERSION = 1
_BLOCK_ROWS = 2048


@dataclass
class CompressedVectors:
    """Compressed rows: norms, bit-planes of the MSE codes, optional QJL and refine parts."""

    norms: np.ndarray                          # (n,) float32
    planes: np.ndarray                         # (mse_bits, n, ceil(d/8)) uint8
    qjl_signs: np.ndarray | None = None        # (n, ceil(d/8)) uint8
    residual_norms: np.ndarray | None = None   # (n,) float32
    refine: np.ndarray | None = None           # (refine_bits, n, ceil(d/8)) uint8

    def __len__(self) -> int:
        return len(self.norms)

    def take(self, rows: np.ndarray) -> CompressedVectors:
        def pick(array: np.ndarray | None, axis: int = 0) -> np.ndarray | None:
            return None if array is None else np.take(array, rows, axis=axis)
        return CompressedVectors(self.norms[rows], np.take(self.planes, rows, axis=1),
                                 pick(self.qjl_signs), pick(self.residual_norms), pick(self.refine, 1))

    def concatenate(self, other: CompressedVectors) -> CompressedVectors:
        """These rows followed by ``other``'s."""
        return CompressedVectors.join([self, other])

    @staticmethod
    def join(parts: list[CompressedVectors]) -> CompressedVectors:
        """The rows of all ``parts`` in order, copied once."""
        def stack(name: str, axis: int = 0) -> np.ndarray | None:
            arrays = [getattr(part, name) for part in parts]
            return None if any(a is None for a in arrays) else np.concatenate(arrays, axis=axis)
        return CompressedVectors(stack("norms"), stack("planes", 1), stack("qjl_signs"),  # type: ignore[arg-type]
                                 stack("residual_norms"), stack("refine", 1))

    def nbytes_per_vector(self) -> float:
        parts = [self.norms, self.planes, self.qjl_signs, self.residual_norms, self.refine]
        return sum(p.nbytes for p in parts if p is not None) / max(len(self), 1)


class TurboQuantizer:
    """Compress and score vectors of dimension ``dim`` at ``bits`` bits per coordinate."""

    def __init__(self, dim: int, bits: int = 4, seed: int = 0, residual: bool = False,
                 rotation: str = "dense", refine_bits: int = 0) -> None:
        if not 1 <= bits <= 8:
            raise ValueError(f"bits must be in 1..8, got {bits}")
        if not 0 <= refine_bits <= 8:
            raise ValueError(f"refine_bits must be in 0..8, got {refine_bits}")
        self.dim, self.bits, self.seed = dim, bits, seed
        self.residual, self.refine_bits, self.rotation_kind = residual, refine_bits, rotation
        self.mse_bits = bits - 1 if residual else bits
        self.rotation = make_rotation(rotation, dim, seed)
        self.codebook: Codebook | None = lloyd_max_codebook(dim, self.mse_bits) if self.mse_bits else None
        sketch_rng = np.random.default_rng([seed, SEED_TAG, 1])
        self._sketch = sketch_rng.standard_normal((dim, dim)).astype(np.float32) if residual else None
        self._cells = self._cell_bounds() if refine_bits and self.codebook else None
        self._centroids = (self.codebook.centroids.astype(np.float32) if self.codebook
                           else np.zeros(1, np.float32))

    # -- compression -----------------------------------------------------------------------

    def compress(self, vectors: np.ndarray) -> CompressedVectors:
        matrix = np.atleast_2d(np.asarray(vectors, dtype=np.float32))
        if matrix.shape[1] != self.dim:
            raise ValueError(f"vectors have dimension {matrix.shape[1]}, expected {self.dim}")
        blocks = [self._compress_block(matrix[start:start + _BLOCK_ROWS])
                  for start in range(0, len(matrix), _BLOCK_ROWS)] or [self._compress_block(matrix)]
        return blocks[0] if len(blocks) == 1 else CompressedVectors.join(blocks)

    def _compress_block(self, matrix: np.ndarray) -> CompressedVectors:
        """Compress a block of rows small enough to stay in cache between passes."""
        norms = np.linalg.norm(matrix, axis=1).astype(np.float32)
        rotated = self.rotation.rotate(matrix)  # rotations keep norms: normalize afterwards
        rotated /= np.where(norms > 0, norms, 1.0)[:, None]
        if self.codebook is not None:
            codes = self.codebook.encode(rotated)
            planes = pack_planes(codes, self.mse_bits)
        else:
            codes = np.zeros(rotated.shape, dtype=np.uint8)
            planes = np.zeros((0, len(matrix), (self.dim + 7) // 8), dtype=np.uint8)
        compressed = CompressedVectors(norms, planes)
        if self._sketch is not None:
            approx = self._centroids[codes] if self.codebook is not None else np.zeros_like(rotated)
            residual = rotated - approx
            compressed.residual_norms = np.linalg.norm(residual, axis=1).astype(np.float32)
            compressed.qjl_signs = np.packbits(residual @ self._sketch.T > 0, axis=1)
        if self._cells is not None:
            low, width = self._cells[0][codes], self._cells[1][codes]
            levels = 1 << self.refine_bits
            position = np.clip(((rotated - low) / width * levels).astype(np.int64), 0, levels - 1)
            compressed.refine = pack_planes(position.astype(np.uint8), self.refine_bits)
        return compressed

    def rotated_approximation(self, compressed: CompressedVectors, refined: bool = False) -> np.ndarray:
        """Πy estimates of the unit directions (MSE codes, or MSE + refine tier)."""
        if self.codebook is None:
            return np.zeros((len(compressed), self.dim), dtype=np.float32)
        codes = unpack_planes(compressed.planes, self.mse_bits, self.dim)
        if refined and compressed.refine is not None and self._cells is not None:
            position = unpack_planes(compressed.refine, self.refine_bits, self.dim)
            low, width = self._cells[0][codes], self._cells[1][codes]
            return (low + (position + 0.5) / (1 << self.refine_bits) * width).astype(np.float32)
        return self._centroids[codes]

    def decompress(self, compressed: CompressedVectors, refined: bool = True) -> np.ndarray:
        """Vectors back in the original space (norm included)."""
        rotated = self.rotated_approximation(compressed, refined)
        if compressed.qjl_signs is not None and not (refined and compressed.refine is not None):
            rotated = rotated + self._qjl_reconstruction(compressed)
        return self.rotation.unrotate(rotated) * compressed.norms[:, None]

    def _qjl_reconstruction(self, compressed: CompressedVectors) -> np.ndarray:
        assert self._sketch is not None and compressed.qjl_signs is not None
        signs = np.unpackbits(compressed.qjl_signs, axis=1, count=self.dim).astype(np.float32) * 2 - 1
        scale = sqrt(pi / 2) / self.dim * compressed.residual_norms  # type: ignore[operator]
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
        scores = approximation @ rotated_query
        if for_ranking and compressed.qjl_signs is None:
            scores = scores / np.maximum(np.linalg.norm(approximation, axis=1), 1e-30)
        use_qjl = compressed.qjl_signs is not None and not (refined and compressed.refine is not None)
        if use_qjl:
            assert self._sketch is not None
            sketched = self._sketch @ rotated_query
            signs = np.unpackbits(compressed.qjl_signs, axis=1, count=self.dim).astype(np.float32) * 2 - 1
            scores = scores + (signs @ sketched) * (sqrt(pi / 2) / self.dim) * compressed.residual_norms
        return scores * compressed.norms

    # -- persistence -----------------------------------------------------------------------

    def describe(self) -> dict[str, object]:
        return {"version": FORMAT_VERSION, "dim": self.dim, "bits": self.bits, "seed": self.seed,
                "residual": self.residual, "rotation": self.rotation_kind,
                "refine_bits": self.refine_bits}

    @classmethod
    def from_description(cls, description: dict[str, object]) -> TurboQuantizer:
        if description.get("version") != FORMAT_VERSION:
            raise ValueError(f"unsupported TurboQuant format version {description.get('version')}")
        return cls(int(description["dim"]), int(description["bits"]),  # type: ignore[arg-type]
                   int(description["seed"]), bool(description["residual"]),  # type: ignore[arg-type]
                   str(description["rotation"]), int(description["refine_bits"]))  # type: ignore[arg-type]

    def serialize(self, compressed: CompressedVectors) -> bytes:
        """Versioned bytes holding the quantizer settings and the compressed rows."""
        arrays = {"norms": compressed.norms, "planes": compressed.planes}
        for name in ("qjl_signs", "residual_norms", "refine"):
            value = getattr(compressed, name)
            if value is not None:
                arrays[name] = value
        buffer = io.BytesIO()
        header = np.frombuffer(json.dumps(self.describe()).encode(), dtype=np.uint8)
        np.savez(buffer, header=header, **arrays)
        return buffer.getvalue()

    @classmethod
    def deserialize(cls, data: bytes) -> tuple[TurboQuantizer, CompressedVectors]:
        with np.load(io.BytesIO(data), allow_pickle=False) as arrays:
            quantizer = cls.from_description(json.loads(arrays["header"].tobytes()))
            compressed = CompressedVectors(
                arrays["norms"], arrays["planes"],
                *(arrays[n] if n in arrays else None for n in ("qjl_signs", "residual_norms", "refine")))
        return quantizer, compressed

    def _cell_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """Lower bound and width of each Lloyd-Max cell; the outer cells end where the
        coordinate density is negligible (6 standard deviations)."""
        assert self.codebook is not None
        edge = 6.0 / sqrt(self.dim)
        bounds = np.concatenate([[-edge], self.codebook.thresholds, [edge]]).astype(np.float32)
        return bounds[:-1], np.diff(bounds)
