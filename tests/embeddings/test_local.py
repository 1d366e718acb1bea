"""The local sentence-transformers provider with the packaged all-MiniLM-L6-v2 (real model)."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

pytest.importorskip("sentence_transformers", reason="the local extra is not installed")

from helpers import hash_config  # noqa: E402
from ragloom import ConfigError, EmbeddingError  # noqa: E402
from ragloom.embeddings.local import (  # noqa: E402
    LocalEmbeddingProvider,
    packaged_model_path,
    resolve_model_source,
)
from ragloom.embeddings.registry import create_embedding_provider  # noqa: E402
from ragloom.testing.embeddings import EmbedderConformance  # noqa: E402

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def minilm() -> LocalEmbeddingProvider:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    return LocalEmbeddingProvider()


def test_default_model_is_found_in_site_packages() -> None:
    path = packaged_model_path()
    assert path is not None and (path / "model.safetensors").is_file()
    assert resolve_model_source("all-MiniLM-L6-v2") == str(path)
    assert resolve_model_source("sentence-transformers/all-MiniLM-L6-v2") == str(path)
    assert resolve_model_source("some/other-model") == "some/other-model"


def test_dimension_and_unit_vectors(minilm: LocalEmbeddingProvider) -> None:
    vectors = minilm.embed(["first sentence", "second one", ""])
    assert minilm.dimension == 384 and vectors.shape == (3, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_paraphrases_score_above_unrelated_pairs(minilm: LocalEmbeddingProvider) -> None:
    pairs = [
        ("How do I reset my password?", "What are the steps to change a forgotten password?",
         "The recipe needs two cups of flour."),
        ("The cat sat on the mat.", "A cat was sitting on a rug.",
         "Stock markets fell sharply on Monday."),
        ("Open the file and read its lines.", "Read every line from the file after opening it.",
         "Our team won the football match yesterday."),
    ]
    for anchor, paraphrase, unrelated in pairs:
        query = minilm.embed_query(anchor)
        near, far = minilm.embed_documents([paraphrase, unrelated])
        assert query @ near > query @ far + 0.3, (anchor, float(query @ near), float(query @ far))


def test_model_is_loaded_at_first_use_once_and_shared() -> None:
    first, second = (LocalEmbeddingProvider(backend="torch") for _ in range(2))
    assert first._model is None and first.dimension == 384  # the folder's files tell the shape
    first.embed(["one"])
    second.embed(["two"])
    assert first._model is second._model is not None  # type: ignore[attr-defined]


def test_safe_from_several_threads(minilm: LocalEmbeddingProvider) -> None:
    texts = [f"sentence number {i} about topic {i % 7}" for i in range(64)]
    # One text per call in both runs: int8 vectors depend slightly on their batch neighbours.
    expected = np.stack([minilm.embed([text])[0] for text in texts])
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(lambda t: minilm.embed([t])[0], texts))
    assert np.allclose(np.stack(results), expected, atol=1e-4)


def test_wrong_embedding_dim_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match=r"'embedding.dim' = 768.*produces 384-d"):
        create_embedding_provider(hash_config(embedding={"provider": "local", "dim": 768}))


def test_unloadable_model_names_itself(tmp_path) -> None:
    with pytest.raises(EmbeddingError, match="cannot load local embedding model"):
        LocalEmbeddingProvider(str(tmp_path / "no-such-model"))


class TestLocalEmbedderConformance(EmbedderConformance):
    @pytest.fixture
    def provider(self, minilm: LocalEmbeddingProvider) -> LocalEmbeddingProvider:
        return minilm


class TestTorchBackendConformance(EmbedderConformance):
    @pytest.fixture
    def provider(self) -> LocalEmbeddingProvider:
        return LocalEmbeddingProvider(backend="torch")


def test_every_setting_that_changes_the_vectors_is_in_the_cache_key() -> None:
    """Truncation and backend change the vectors, so each has its own cache entries; neither
    changes the index identity (provider, model, dimension)."""
    from ragloom.embeddings.cache import CachedEmbedder

    base = LocalEmbeddingProvider(backend="torch")
    variants = [LocalEmbeddingProvider(backend="torch", max_seq_length=32)]
    text = "word " * 200
    namespaces = {CachedEmbedder(p, None).namespace("document") for p in [base, *variants]}
    assert len(namespaces) == 2
    for variant in variants:
        assert not np.allclose(variant.embed([text])[0], base.embed([text])[0], atol=1e-3)
        assert (variant.provider_name, variant.model_name, variant.dimension) == (
            base.provider_name, base.model_name, base.dimension)
