"""TurboQuant: codebooks against Lloyd-Max theory, packing, rotations, QJL unbiasedness."""

from __future__ import annotations

import numpy as np
import pytest

from ragloom.quant.bits import (
    pack_planes,
    sign_sketch_scores,
    sign_words,
    two_plane_sketch_scores,
    unpack_planes,
)
from ragloom.quant.codebook import lloyd_max_codebook, refinement
from ragloom.quant.rotation import DenseRotation, HadamardRotation
from ragloom.quant.turboquant import TurboQuantizer

GAUSSIAN_LLOYD_MAX = {1: 0.3634, 2: 0.1175, 3: 0.03454, 4: 0.009497}
PAPER = {1: 0.36, 2: 0.117, 3: 0.03, 4: 0.009}


def unit_rows(count: int, dim: int, seed: int = 0) -> np.ndarray:
    rows = np.random.default_rng(seed).normal(size=(count, dim))
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


@pytest.mark.parametrize("bits", [1, 2, 3, 4])
def test_codebook_mse_within_5_percent_of_lloyd_max_gaussian(bits: int) -> None:
    codebook = lloyd_max_codebook(384, bits)
    assert codebook.mse_per_vector == pytest.approx(GAUSSIAN_LLOYD_MAX[bits], rel=0.05)
    assert np.allclose(codebook.centroids, -codebook.centroids[::-1])
    assert np.all(np.diff(codebook.centroids) > 0)


def test_one_bit_centroids_are_plus_minus_sqrt_2_over_pi_d() -> None:
    centroids = lloyd_max_codebook(1024, 1).centroids
    assert centroids[1] == pytest.approx(np.sqrt(2 / np.pi / 1024), rel=0.01)


@pytest.mark.parametrize("bits", [1, 2, 3, 4])
def test_measured_mse_matches_codebook_and_paper(bits: int) -> None:
    vectors = unit_rows(4000, 384, bits)
    quantizer = TurboQuantizer(384, bits, seed=bits)
    restored = quantizer.decompress(quantizer.compress(vectors))
    measured = float(((vectors - restored) ** 2).sum(axis=1).mean())
    assert measured == pytest.approx(quantizer.codebook.mse_per_vector, rel=0.03)
    assert measured == pytest.approx(PAPER[bits], rel=0.15)


@pytest.mark.parametrize("bits", range(1, 9))
@pytest.mark.parametrize("dim", [7, 64, 384])
def test_bit_planes_round_trip(bits: int, dim: int) -> None:
    codes = np.random.default_rng(bits).integers(0, 1 << bits, size=(5, dim)).astype(np.uint8)
    planes = pack_planes(codes, bits)
    assert planes.shape == (bits, 5, (dim + 7) // 8)
    assert np.array_equal(unpack_planes(planes, bits, dim), codes)


@pytest.mark.parametrize("bits", range(1, 9))
@pytest.mark.parametrize("dim", [7, 64, 384])
def test_planes_straight_from_comparisons_equal_packed_codes(bits: int, dim: int) -> None:
    values = (np.random.default_rng(dim + bits).normal(size=(40, dim)) / np.sqrt(dim)).astype(np.float32)
    values[0, 0] = 0.0
    codebook = lloyd_max_codebook(dim, bits)
    assert np.array_equal(codebook.encode_planes(values), pack_planes(codebook.encode(values), bits))


@pytest.mark.parametrize("dim", [20, 64, 384])
def test_sketch_scores_equal_their_formulas_with_rounded_query_weights(dim: int) -> None:
    rng = np.random.default_rng(dim)
    query = rng.normal(size=dim).astype(np.float32)
    signs, large = rng.random((50, dim)) > 0.5, rng.random((50, dim)) > 0.5
    weights = np.rint(np.abs(query) / np.abs(query).max() * 3)  # 2 weight bits
    disagree = signs != (query > 0)
    def words(bits: np.ndarray) -> np.ndarray:
        return sign_words(np.packbits(bits, axis=1))
    assert np.array_equal(sign_sketch_scores(words(signs), query), -(disagree * weights).sum(axis=1))
    expected = (weights * (1 + 2.5 * large) * (1 - 2 * disagree)).sum(axis=1)
    assert np.allclose(two_plane_sketch_scores(words(signs), words(large), query, 3.5), expected)


@pytest.mark.parametrize("refine_bits", [1, 2, 3, 4])
def test_refinement_is_nearly_a_lloyd_max_quantizer_of_the_total_bits(refine_bits: int) -> None:
    tier = refinement(384, 4, refine_bits)
    single = lloyd_max_codebook(384, 4 + refine_bits)
    assert single.mse_per_vector <= tier.mse_per_vector <= 1.05 * single.mse_per_vector
    codebook = lloyd_max_codebook(384, 4)
    bounds = np.concatenate([[-1.0], codebook.thresholds, [1.0]])
    assert np.all(tier.levels >= bounds[:-1, None]) and np.all(tier.levels <= bounds[1:, None])
    assert np.all(np.diff(tier.levels, axis=1) > 0)


def test_refined_values_decode_to_the_nearest_level_of_their_cell() -> None:
    values = unit_rows(200, 384, 3)
    codebook, tier = lloyd_max_codebook(384, 4), refinement(384, 4, 3)
    codes = codebook.encode(values)
    decoded = tier.decode(codes, tier.encode(values, codes))
    candidates = tier.levels[codes]  # (n, d, 8): every level of each value's cell
    nearest = np.take_along_axis(candidates, np.abs(candidates - values[..., None]).argmin(-1)[..., None], -1)
    assert np.allclose(decoded, nearest[..., 0])
    measured = float(((values - decoded) ** 2).sum(axis=1).mean())
    assert measured == pytest.approx(tier.mse_per_vector, rel=0.1)


@pytest.mark.parametrize("rotation", [DenseRotation, HadamardRotation])
def test_rotations_are_orthogonal_and_seeded(rotation) -> None:
    vectors = unit_rows(50, 384)
    first, again = rotation(384, 7), rotation(384, 7)
    rotated = first.rotate(vectors)
    assert np.allclose(np.linalg.norm(rotated, axis=1), 1.0, atol=1e-5)
    assert np.allclose(first.unrotate(rotated), vectors, atol=1e-5)
    assert np.array_equal(rotated, again.rotate(vectors))
    assert not np.allclose(rotated, rotation(384, 8).rotate(vectors))


def test_norms_are_kept_separately() -> None:
    vectors = unit_rows(10, 64) * np.arange(1, 11, dtype=np.float32)[:, None]
    quantizer = TurboQuantizer(64, 8)
    restored = quantizer.decompress(quantizer.compress(vectors))
    assert np.allclose(np.linalg.norm(restored, axis=1), np.arange(1, 11), rtol=0.01)


def test_without_norms_decompress_gives_unit_vectors_and_saves_four_bytes() -> None:
    vectors = unit_rows(10, 64) * 3.0
    kept, dropped = TurboQuantizer(64, 4), TurboQuantizer(64, 4, keep_norms=False)
    with_norms, without = kept.compress(vectors), dropped.compress(vectors)
    assert without.norms is None
    assert with_norms.nbytes_per_vector() - without.nbytes_per_vector() == 4
    assert np.allclose(np.linalg.norm(kept.decompress(with_norms), axis=1), 3.0, rtol=0.1)
    assert np.allclose(dropped.decompress(without), kept.decompress(with_norms) / 3.0, atol=1e-6)
    loaded_quantizer, loaded = TurboQuantizer.deserialize(dropped.serialize(without))
    assert not loaded_quantizer.keep_norms and loaded.norms is None


def test_serialize_round_trip_decodes_identically() -> None:
    vectors = unit_rows(100, 96)
    quantizer = TurboQuantizer(96, 3, seed=5, residual=True, refine_bits=2)
    compressed = quantizer.compress(vectors)
    loaded_quantizer, loaded = TurboQuantizer.deserialize(quantizer.serialize(compressed))
    assert loaded_quantizer.describe() == quantizer.describe()
    assert np.array_equal(loaded_quantizer.decompress(loaded), quantizer.decompress(compressed))
    with pytest.raises(ValueError, match="version"):
        TurboQuantizer.from_description({**quantizer.describe(), "version": 99})


def test_qjl_residual_makes_inner_products_unbiased() -> None:
    """Averaged over random rotations/sketches, TurboQuant-prod estimates <q, x> without
    bias, while the MSE quantizer shrinks large inner products."""
    dim = 64
    x = unit_rows(1, dim, 1)[0]
    q = 0.8 * x + 0.6 * unit_rows(1, dim, 2)[0]
    true = float(q @ x)
    prod, mse = [], []
    for seed in range(300):
        prod_quantizer = TurboQuantizer(dim, 2, seed, residual=True)
        prod.append(prod_quantizer.inner_product(q, prod_quantizer.compress(x))[0])
        quantizer = TurboQuantizer(dim, 2, seed)
        mse.append(quantizer.inner_product(q, quantizer.compress(x))[0])
    prod_error = np.mean(prod) - true
    assert abs(prod_error) < 3 * np.std(prod) / np.sqrt(len(prod))
    assert np.mean(mse) < true - 0.02, "the MSE quantizer is biased towards zero"


def test_rejects_bad_settings() -> None:
    with pytest.raises(ValueError, match="bits"):
        TurboQuantizer(64, 9)
    with pytest.raises(ValueError, match="dimension 32"):
        TurboQuantizer(64, 4).compress(np.ones((1, 32)))
