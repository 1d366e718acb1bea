"""Bit-plane packing of small integer codes, and popcount-based Hamming distances."""

from __future__ import annotations

import numpy as np

_POPCOUNT_TABLE = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint8)


def pack_planes(codes: np.ndarray, bits: int) -> np.ndarray:
    """(n, d) codes < 2**bits -> (bits, n, ceil(d/8)) bytes, each plane contiguous; plane 0
    holds the top bit, which for a symmetric codebook is the sign of the coordinate."""
    width = (codes.shape[1] + 7) // 8
    planes = np.zeros((bits, len(codes), width), dtype=np.uint8)
    for plane in range(bits):
        planes[plane] = np.packbits((codes >> (bits - 1 - plane)) & 1, axis=1)
    return planes


def unpack_planes(planes: np.ndarray, bits: int, dim: int) -> np.ndarray:
    """Inverse of ``pack_planes``: (bits, n, bytes) -> (n, d) uint8 codes."""
    codes = np.zeros((planes.shape[1], dim), dtype=np.uint8)
    for plane in range(bits):
        codes |= np.unpackbits(planes[plane], axis=1, count=dim) << (bits - 1 - plane)
    return codes


def popcount(words: np.ndarray) -> np.ndarray:
    """Set bits per element of an unsigned integer array."""
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(words)
    as_bytes = words.view(np.uint8).reshape(*words.shape, -1)
    return _POPCOUNT_TABLE[as_bytes].sum(axis=-1)


def hamming_distances(database: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Hamming distance between each packed row of ``database`` (n, bytes) and ``query``."""
    width = database.shape[1]
    if width % 8 == 0:
        words = database.view(np.uint64)
        return popcount(words ^ query.view(np.uint64)).sum(axis=1, dtype=np.int32)
    return _POPCOUNT_TABLE[database ^ query].sum(axis=1, dtype=np.int32)


def sign_sketch_scores(sign_planes: np.ndarray, rotated_query: np.ndarray,
                       weight_bits: int = 3) -> np.ndarray:
    """A cheap estimate of the ranking by <q, y> from the sign bits of y only.

    Sum over coordinates of |q_j| x [sign(y_j) == sign(q_j)], with |q_j| rounded to
    ``weight_bits`` bits: one popcount pass per weight bit over the packed words
    (bit-sliced weights). ``weight_bits=0`` would be plain Hamming ranking; weighting by
    the query's magnitudes ranks far better at the same storage.
    """
    query_signs = np.packbits(rotated_query > 0)
    magnitude = np.abs(rotated_query)
    levels = (1 << weight_bits) - 1
    scaled = np.rint(magnitude / (magnitude.max() or 1.0) * levels).astype(np.int64)
    as_words = sign_planes.shape[1] % 8 == 0
    planes = np.ascontiguousarray(sign_planes)
    agree = ~(planes.view(np.uint64) ^ query_signs.view(np.uint64)) if as_words else ~(planes ^ query_signs)
    scores = np.zeros(len(sign_planes), dtype=np.int32)
    for bit in range(weight_bits):
        mask = np.packbits((scaled >> bit) & 1)
        selected = agree & (mask.view(np.uint64) if as_words else mask)
        counts = popcount(selected) if as_words else _POPCOUNT_TABLE[selected]
        scores += counts.sum(axis=1, dtype=np.int32) << bit
    return scores
