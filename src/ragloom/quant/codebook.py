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


@lru_cache(maxsize=64)
def lloyd_max_codebook(dim: int, bits: int, iterations: int = 2000, tolerance: float = 1e-13) -> Codebook:
    """The MSE-optimal ``bits``-bit codebook for a coordinate of a rotated unit vector."""
    if dim < 2 or not 1 <= bits <= 8:
        raise ValueError(f"need dim >= 2 and 1 <= bits <= 8, got dim={dim}, bits={bits}")
    edge = min(1.0, _TAIL_SIGMAS / sqrt(dim))
    grid = np.linspace(-edge, edge, _GRID_POINTS)
    weights = coordinate_density(dim, grid) * (grid[1] - grid[0])
    weights /= weights.sum()
    mass = np.concatenate([[0.0], np.cumsum(weights)])
    moment = np.concatenate([[0.0], np.cumsum(weights * grid)])
    levels = 2 ** bits
    sigma = 1.0 / sqrt(dim)
    centroids = sigma * np.linspace(-2.0, 2.0, levels) if levels > 1 else np.zeros(1)
    for _ in range(iterations):
        thresholds = (centroids[1:] + centroids[:-1]) / 2
        cuts = np.concatenate([[0], np.searchsorted(grid, thresholds), [len(grid)]])
        cell_mass = mass[cuts[1:]] - mass[cuts[:-1]]
        cell_moment = moment[cuts[1:]] - moment[cuts[:-1]]
        updated = np.where(cell_mass > 0, cell_moment / np.maximum(cell_mass, 1e-300), centroids)
        updated = (updated - updated[::-1]) / 2  # the density is symmetric: keep it exact
        if np.max(np.abs(updated - centroids)) < tolerance * sigma:
            centroids = updated
            break
        centroids = updated
    thresholds = (centroids[1:] + centroids[:-1]) / 2
    nearest = centroids[np.searchsorted(thresholds, grid)]
    mse = float(dim * np.sum(weights * (grid - nearest) ** 2))
    return Codebook(dim, bits, centroids.astype(np.float64), thresholds.astype(np.float64), mse)
