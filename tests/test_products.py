"""Search-path products split into pieces for one BLAS thread give the plain product."""

from __future__ import annotations

import numpy as np
import pytest

from ragloom.products import matrix_vector, rows_times


@pytest.mark.parametrize(("rows", "dim"), [(1, 384), (682, 384), (683, 384), (2_000, 384),
                                           (5_000, 3_072), (7, 5)])
def test_matrix_vector_equals_the_plain_product(rows: int, dim: int) -> None:
    rng = np.random.default_rng(rows)
    matrix = rng.standard_normal((rows, dim)).astype(np.float32)
    vector = rng.standard_normal(dim).astype(np.float32)
    got = matrix_vector(matrix, vector)
    assert got.shape == (rows,) and got.dtype == np.float32
    assert np.allclose(got, matrix.astype(np.float64) @ vector.astype(np.float64), atol=1e-3)


def test_matrix_vector_keeps_numpy_type_promotion() -> None:
    matrix = np.ones((3_000, 384), dtype=np.float32)
    got = matrix_vector(matrix, np.full(384, 0.5))  # a float64 vector: a float64 result
    assert got.dtype == np.float64 and np.array_equal(got, np.full(3_000, 192.0))


@pytest.mark.parametrize(("count", "columns"), [(1, 384), (10, 384), (113, 384), (114, 384),
                                                (2_000, 384), (40, 40)])
def test_rows_times_equals_the_plain_product(count: int, columns: int) -> None:
    """Row by row up to 2^24 multiply-adds (113 x 384 x 384), one product beyond."""
    rng = np.random.default_rng(count)
    rows = rng.standard_normal((count, 384)).astype(np.float32)
    matrix = rng.standard_normal((384, columns)).astype(np.float32)
    got = rows_times(rows, matrix)
    assert got.shape == (count, columns) and got.dtype == np.float32
    assert np.allclose(got, rows.astype(np.float64) @ matrix.astype(np.float64), atol=1e-3)
