"""Random rotations that keep the dimension (no padding to a power of two).

``DenseRotation``: a Haar-random orthogonal matrix (QR of a Gaussian matrix with the sign
fix), applied with a BLAS product (``ragloom.products.rows_times``). ``HadamardRotation``: rounds
of random sign flips, a random permutation and a normalized Walsh-Hadamard transform on
power-of-two blocks that tile d (384 = 256 + 128), O(d log d) per vector. Both are seeded
and exact inverses of themselves transposed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import numpy as np

from ragloom.products import rows_times

#: Mixed into every seed so rotations never coincide with a caller's default_rng(seed) data.
SEED_TAG = 0x7475_7262_6F71  # "turboq"


class Rotation(Protocol):
    dim: int

    def rotate(self, vectors: np.ndarray) -> np.ndarray: ...

    def unrotate(self, vectors: np.ndarray) -> np.ndarray: ...


class DenseRotation:
    """x -> Q x for a seeded Haar-random orthogonal Q."""

    name = "dense"

    def __init__(self, dim: int, seed: int) -> None:
        self.dim = dim
        gaussian = np.random.default_rng([seed, SEED_TAG]).standard_normal((dim, dim))
        q, r = _qr(gaussian)
        q *= np.sign(np.diag(r))  # makes the distribution exactly Haar
        self._matrix_t = np.ascontiguousarray(q.T, dtype=np.float32)
        self._matrix = np.ascontiguousarray(q, dtype=np.float32)

    def rotate(self, vectors: np.ndarray) -> np.ndarray:
        return rows_times(np.asarray(vectors, dtype=np.float32), self._matrix_t)

    def unrotate(self, vectors: np.ndarray) -> np.ndarray:
        return rows_times(np.asarray(vectors, dtype=np.float32), self._matrix)


def _qr(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """QR on one BLAS thread: 40 ms for 384 x 384 on one core, but seconds when two BLAS
    threads contend on a busy machine (measured 5.9 s at load 28; it runs at every open)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # not installed: numpy's own threading
        q, r = np.linalg.qr(matrix)
        return q, r
    with threadpool_limits(limits=1):
        q, r = np.linalg.qr(matrix)
        return q, r


def _power_of_two_blocks(dim: int) -> list[int]:
    """Sizes of the power-of-two blocks tiling ``dim``, largest first (384 -> [256, 128])."""
    return [1 << bit for bit in range(dim.bit_length() - 1, -1, -1) if dim & (1 << bit)]


def _block_hadamard(vectors: np.ndarray, blocks: list[int]) -> np.ndarray:
    """Normalized Walsh-Hadamard transform of each block of columns (its own inverse)."""
    out = np.empty_like(vectors)
    start = 0
    for size in blocks:
        block = vectors[:, start:start + size].copy()
        half = 1
        while half < size:
            shaped = block.reshape(len(block), -1, 2, half)
            left, right = shaped[:, :, 0, :].copy(), shaped[:, :, 1, :]
            shaped[:, :, 0, :] += right
            shaped[:, :, 1, :] = left - right
            half *= 2
        out[:, start:start + size] = block / np.sqrt(size)
        start += size
    return out


class HadamardRotation:
    """Three rounds of (random signs, random permutation, block Walsh-Hadamard)."""

    name = "hadamard"

    def __init__(self, dim: int, seed: int, rounds: int = 3) -> None:
        self.dim = dim
        rng = np.random.default_rng([seed, SEED_TAG])
        self._blocks = _power_of_two_blocks(dim)
        self._signs = [rng.choice(np.array([-1.0, 1.0], dtype=np.float32), dim) for _ in range(rounds)]
        self._perms = [rng.permutation(dim) for _ in range(rounds)]

    def rotate(self, vectors: np.ndarray) -> np.ndarray:
        out = np.array(vectors, dtype=np.float32, copy=True)
        for signs, perm in zip(self._signs, self._perms):
            out = _block_hadamard((out * signs)[:, perm], self._blocks)
        return out

    def unrotate(self, vectors: np.ndarray) -> np.ndarray:
        out = np.array(vectors, dtype=np.float32, copy=True)
        for signs, perm in zip(reversed(self._signs), reversed(self._perms)):
            unpermuted = np.empty_like(out)
            unpermuted[:, perm] = _block_hadamard(out, self._blocks)
            out = unpermuted * signs
        return out


ROTATIONS: dict[str, Callable[[int, int], Rotation]] = {"dense": DenseRotation,
                                                     "hadamard": HadamardRotation}


def make_rotation(kind: str, dim: int, seed: int) -> Rotation:
    try:
        return ROTATIONS[kind](dim, seed)
    except KeyError:
        raise ValueError(f"unknown rotation {kind!r}; valid: {', '.join(ROTATIONS)}") from None
