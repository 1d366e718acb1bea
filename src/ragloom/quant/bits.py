"""Bit-plane packing of small integer codes, and popcount-based Hamming distances."""

from __future__ import annotations

import numpy as np

_POPCOUNT_TABLE = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint8)


def pack_planes(codes: np.ndarray, bits: int) -> np.ndarray:
    """(n, d) codes < 2**bits -> (n, bits, ceil(d/8)) bytes; plane 0 holds the top bit,
    which for a symmetric codebook is the sign of the coordinate."""
    planes = [np.packbits((codes >> (bits - 1 - plane)) & 1, axis=1) for plane in range(bits)]
    return np.stack(planes, axis=1) if planes else np.zeros((len(codes), 0, 0), dtype=np.uint8)


def unpack_planes(planes: np.ndarray, bits: int, dim: int) -> np.ndarray:
    """Inverse of ``pack_planes``: (n, bits, bytes) -> (n, d) uint8 codes."""
    codes = np.zeros((planes.shape[0], dim), dtype=np.uint8)
    for plane in range(bits):
        codes |= np.unpackbits(planes[:, plane, :], axis=1, count=dim) << (bits - 1 - plane)
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


def sign_sketch_scores(sign_planes: np.ndarray, rotated_query: np.ndarray, groups: int = 4) -> np.ndarray:
    """A cheap estimate of <q, y> from the sign bits of y only.

    The query's coordinates are split into ``groups`` by magnitude; for each group the
    number of coordinates whose sign agrees with the query's is counted with popcounts, and
    the score is sum over groups of mean|q| x (agreements - disagreements). With one group
    this is plain Hamming ranking; more groups let large query coordinates count more.
    """
    dim = len(rotated_query)
    query_signs = np.packbits(rotated_query > 0)
    disagree = sign_planes ^ query_signs
    magnitude = np.abs(rotated_query)
    order = np.argsort(magnitude)
    scores = np.zeros(len(sign_planes), dtype=np.float32)
    for group in np.array_split(order, groups):
        if len(group) == 0:
            continue
        mask_bits = np.zeros(dim, dtype=bool)
        mask_bits[group] = True
        mask = np.packbits(mask_bits)
        disagreements = _count_bits(disagree & mask)
        scores += float(magnitude[group].mean()) * (len(group) - 2 * disagreements)
    return scores


def _count_bits(packed: np.ndarray) -> np.ndarray:
    if packed.shape[1] % 8 == 0:
        return popcount(np.ascontiguousarray(packed).view(np.uint64)).sum(axis=1, dtype=np.int32)
    return _POPCOUNT_TABLE[packed].sum(axis=1, dtype=np.int32)
