"""Matrix products of the search path, kept on the calling thread.

OpenBLAS spreads a product over its threads once it is large enough, and on a busy machine
the other thread waits for a core: measured with both cores busy, a 2,000 x 384
matrix-vector product took 21.6 ms (0.15 ms without BLAS) and un-rotating 10 vectors 22.9
ms, against 0.07 ms idle. A search's products are small, so they are split into pieces
BLAS runs on one thread; bulk work (compressing a batch while indexing) keeps the threads.
"""

from __future__ import annotations

import numpy as np

#: A matrix-vector product of at most this many elements stays on one thread (measured at
#: 384 columns: 1,000 rows single-threaded, 2,000 rows spread).
_BLOCK_ELEMENTS = 1 << 18
#: Rows times a matrix go one row at a time (each a matrix-vector product) up to this many
#: multiply-adds (a few milliseconds on one core): a search's un-rotations and MMR's
#: similarities; an indexing batch's rotation is larger and keeps the threads.
_ROW_BY_ROW_WORK = 1 << 24


def matrix_vector(matrix: np.ndarray, vector: np.ndarray) -> np.ndarray:
    """``matrix @ vector`` in blocks of rows small enough for one BLAS thread."""
    rows_per_block = max(1, _BLOCK_ELEMENTS // max(1, matrix.shape[1]))
    if len(matrix) <= rows_per_block:
        return matrix @ vector
    out = np.empty(len(matrix), dtype=np.result_type(matrix, vector))
    for start in range(0, len(matrix), rows_per_block):
        stop = start + rows_per_block
        np.dot(matrix[start:stop], vector, out=out[start:stop])
    return out


def rows_times(rows: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    """``rows @ matrix``; a small product one row at a time, a large one in one (threaded)
    BLAS call."""
    if rows.ndim != 2 or rows.shape[0] * rows.shape[1] * matrix.shape[1] > _ROW_BY_ROW_WORK:
        return rows @ matrix
    out = np.empty((len(rows), matrix.shape[1]), dtype=np.result_type(rows, matrix))
    for index, row in enumerate(rows):
        np.dot(row, matrix, out=out[index])
    return out
