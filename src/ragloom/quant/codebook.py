"""Lloyd-Max scalar codebooks for the coordinates of a randomly rotated unit vector.

After a uniformly random rotation, each coordinate of a unit vector in R^d follows
f(t) = Γ(d/2) / (√π Γ((d-1)/2)) (1 - t²)^((d-3)/2) on [-1, 1] (close to N(0, 1/d)). The
optimal b-bit scalar quantizer for that density is found by Lloyd's iteration on a fine
grid (thresholds at midpoints, centroids at conditional means), once per (d, b).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from math import lgamma, log, pi, sqrt

import numpy as np

from ragloom.quant.bits import pack_planes

_GRID_POINTS = 200_001
_TAIL_SIGMAS = 14.0


@dataclass(frozen=True)
class Codebook:
    """Centroids (ascending, symmetric) and the thresholds between them."""

    dim: int
    bits: int
    centroids: np.ndarray   # (2**bits,)
    thresholds: np.ndarray  # (2**bits - 1,)
    mse_per_vector: float   # expected ||y - Q(y)||² for a unit y, i.e. dim x per-coordinate MSE

    def encode(self, values: np.ndarray) -> np.ndarray:
        """Index of the nearest centroid of each value: the number of thresholds below it.

        Up to 4 bits: one comparison per threshold. Above: a fine uniform grid gives each
        value the code of its grid cell's left edge; a cell holds at most one threshold, so
        one comparison with the next threshold finishes the job."""
        if len(self.thresholds) <= 15:  # up to 4 bits one comparison per threshold is fastest
            codes = np.zeros(values.shape, dtype=np.uint8)
            for threshold in self.thresholds.astype(np.float32):
                codes += values > threshold
            return codes
        grid_low, inverse_step, codes_at_cells, thresholds = self._encoding_tables()
        cells = np.clip((values - grid_low) * inverse_step, 0, len(codes_at_cells) - 1).astype(np.int32)
        codes = codes_at_cells[cells]
        codes += values > thresholds[codes]
        return codes

    def encode_planes(self, values: np.ndarray) -> np.ndarray:
        """``pack_planes(self.encode(values), bits)``, computed without the codes when that
        is faster (up to 5 bits).

        The codebook is symmetric, so a code is a sign bit (plane 0) and the count c of
        positive thresholds below |value|, bit-complemented for negative values. Bit j of c
        is the parity of the indicators [c >= m 2^j], m = 1, 2, ...; each indicator is one
        comparison, packed to bits at once, so the planes are XORs of packed bytes."""
        if self.bits > 5:
            return pack_planes(self.encode(values), self.bits)
        sign = values > 0
        negative = np.packbits(~sign, axis=-1)
        magnitude = np.abs(values)
        positive_thresholds = self.thresholds[len(self.thresholds) // 2 + 1:].astype(np.float32)
        above = [np.packbits(magnitude > threshold, axis=-1) for threshold in positive_thresholds]
        planes = np.empty((self.bits, *negative.shape), dtype=np.uint8)
        planes[0] = np.packbits(sign, axis=-1)
        for bit in range(self.bits - 1):
            plane = planes[self.bits - 1 - bit]
            plane[...] = negative
            for indicator in above[(1 << bit) - 1::1 << bit]:
                plane ^= indicator
        return planes

    def large_magnitude_ratio(self) -> float:
        """E|y| over the upper half of the magnitude cells divided by E|y| over the lower
        half (plane 1 tells the halves apart); needs at least 2 bits."""
        return _large_magnitude_ratio(self.dim, self.bits)

    def _encoding_tables(self) -> tuple[np.float32, np.float32, np.ndarray, np.ndarray]:
        cached = self.__dict__.get("_tables")
        if cached is None:
            gaps = np.diff(self.thresholds)
            width = (gaps.min() / 2) if len(gaps) else 1.0 / np.sqrt(self.dim)
            low = min(-8.0 / np.sqrt(self.dim), self.thresholds[0] - width) if len(self.thresholds) else -1.0
            high = max(8.0 / np.sqrt(self.dim), self.thresholds[-1] + width) if len(self.thresholds) else 1.0
            cells = int(np.ceil((high - low) / width))
            edges = low + width * np.arange(cells)
            codes_at_cells = np.searchsorted(self.thresholds, edges, side="left").astype(np.uint8)
            padded = np.append(self.thresholds, np.inf).astype(np.float32)  # the code past the last
            cached = (np.float32(low), np.float32(1.0 / width), codes_at_cells, padded)
            object.__setattr__(self, "_tables", cached)
        return cached


def coordinate_density(dim: int, grid: np.ndarray) -> np.ndarray:
    """The density of one coordinate of a uniform random unit vector in R^dim."""
    log_norm = lgamma(dim / 2) - 0.5 * log(pi) - lgamma((dim - 1) / 2)
    inside = np.clip(1.0 - grid * grid, 1e-300, None)
    return np.exp(log_norm + (dim - 3) / 2 * np.log(inside))


def _lloyd(grid: np.ndarray, weights: np.ndarray, levels: int, symmetric: bool,
           iterations: int, tolerance: float) -> np.ndarray:
    """Lloyd's iteration on a weighted grid: the centroids of the MSE-optimal ``levels``-level
    quantizer (thresholds at midpoints, centroids at conditional means)."""
    mass = np.concatenate([[0.0], np.cumsum(weights)])
    moment = np.concatenate([[0.0], np.cumsum(weights * grid)])
    spread = float(np.sqrt(np.sum(weights * grid * grid) / mass[-1] - (moment[-1] / mass[-1]) ** 2)) or 1.0
    # start from the high-resolution optimum: level density proportional to f^(1/3)
    companded = np.cumsum(np.cbrt(weights))
    quantiles = (np.arange(levels) + 0.5) / levels * companded[-1]
    centroids = grid[np.minimum(np.searchsorted(companded, quantiles), len(grid) - 1)]
    for _ in range(iterations):
        thresholds = (centroids[1:] + centroids[:-1]) / 2
        cuts = np.concatenate([[0], np.searchsorted(grid, thresholds), [len(grid)]])
        cell_mass = mass[cuts[1:]] - mass[cuts[:-1]]
        cell_moment = moment[cuts[1:]] - moment[cuts[:-1]]
        updated = np.where(cell_mass > 0, cell_moment / np.maximum(cell_mass, 1e-300), centroids)
        if symmetric:
            updated = (updated - updated[::-1]) / 2  # the density is symmetric: keep it exact
        converged = np.max(np.abs(updated - centroids)) < tolerance * spread
        centroids = updated
        if converged:
            break
    return centroids


def _density_grid(dim: int) -> tuple[np.ndarray, np.ndarray]:
    """A fine grid over the coordinate's range and the probability of each grid point."""
    edge = min(1.0, _TAIL_SIGMAS / sqrt(dim))
    grid = np.linspace(-edge, edge, _GRID_POINTS)
    weights = coordinate_density(dim, grid) * (grid[1] - grid[0])
    return grid, weights / weights.sum()


def _mse_per_vector(dim: int, grid: np.ndarray, weights: np.ndarray, reconstruction: np.ndarray) -> float:
    return float(dim * np.sum(weights * (grid - reconstruction) ** 2))


@lru_cache(maxsize=64)
def lloyd_max_codebook(dim: int, bits: int, iterations: int = 2000, tolerance: float = 1e-13) -> Codebook:
    """The MSE-optimal ``bits``-bit codebook for a coordinate of a rotated unit vector."""
    if dim < 2 or not 1 <= bits <= 8:
        raise ValueError(f"need dim >= 2 and 1 <= bits <= 8, got dim={dim}, bits={bits}")
    grid, weights = _density_grid(dim)
    centroids = _lloyd(grid, weights, 2 ** bits, True, iterations, tolerance)
    thresholds = (centroids[1:] + centroids[:-1]) / 2
    mse = _mse_per_vector(dim, grid, weights, centroids[np.searchsorted(thresholds, grid)])
    return Codebook(dim, bits, centroids.astype(np.float64), thresholds.astype(np.float64), mse)


@dataclass(frozen=True)
class Refinement:
    """Finer levels inside every cell of a codebook: for each cell, the Lloyd-Max quantizer
    of the coordinate density restricted to that cell. Together with the cell's code this
    is a nested quantizer of ``bits + refine_bits`` bits (a re-ranking tier)."""

    refine_bits: int
    levels: np.ndarray      # (cells, 2**refine_bits) float32, ascending within a cell
    thresholds: np.ndarray  # (cells, 2**refine_bits - 1) float32
    mse_per_vector: float

    def encode(self, values: np.ndarray, codes: np.ndarray) -> np.ndarray:
        """The level of each value inside its cell ``codes``."""
        positions = np.zeros(values.shape, dtype=np.uint8)
        for column in self.thresholds.T:
            positions += values > column[codes]
        return positions

    def decode(self, codes: np.ndarray, positions: np.ndarray) -> np.ndarray:
        flat = codes.astype(np.intp) << self.refine_bits
        flat |= positions
        return self.levels.reshape(-1)[flat]


@lru_cache(maxsize=64)
def refinement(dim: int, bits: int, refine_bits: int, iterations: int = 2000,
               tolerance: float = 1e-12) -> Refinement:
    """The per-cell refinement of ``lloyd_max_codebook(dim, bits)`` with ``refine_bits`` bits."""
    codebook = lloyd_max_codebook(dim, bits)
    grid, weights = _density_grid(dim)
    cuts = np.concatenate([[0], np.searchsorted(grid, codebook.thresholds), [len(grid)]])
    levels = np.stack([_lloyd(grid[low:high], weights[low:high], 2 ** refine_bits, False,
                              iterations, tolerance) for low, high in zip(cuts[:-1], cuts[1:])])
    thresholds = (levels[:, 1:] + levels[:, :-1]) / 2
    reconstruction = np.concatenate([
        cell_levels[np.searchsorted(cell_thresholds, grid[low:high])]
        for cell_levels, cell_thresholds, low, high in zip(levels, thresholds, cuts[:-1], cuts[1:])])
    mse = _mse_per_vector(dim, grid, weights, reconstruction)
    return Refinement(refine_bits, levels.astype(np.float32), thresholds.astype(np.float32), mse)


@lru_cache(maxsize=64)
def _large_magnitude_ratio(dim: int, bits: int) -> float:
    if bits < 2:
        raise ValueError("the magnitude halves need at least 2 bits")
    positive_thresholds = lloyd_max_codebook(dim, bits).thresholds[2 ** (bits - 1):]
    split = positive_thresholds[2 ** (bits - 2) - 1]
    grid, weights = _density_grid(dim)
    magnitude = np.abs(grid)
    low, high = magnitude < split, magnitude >= split
    low_mean = np.sum(weights[low] * magnitude[low]) / np.sum(weights[low])
    high_mean = np.sum(weights[high] * magnitude[high]) / np.sum(weights[high])
    return float(high_mean / low_mean)
