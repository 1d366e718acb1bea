"""The deterministic hash embedder: stable, normalized, lexically meaningful."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from ragloom.embeddings import HashEmbeddingProvider
from ragloom.testing.embeddings import EmbedderConformance


def test_shape_dtype_and_unit_norm() -> None:
    vectors = HashEmbeddingProvider(64).embed(["a b c", "", "hello world"])
    assert vectors.shape == (3, 64) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-6)


def test_stable_across_processes_and_hash_seeds() -> None:
    code = ("from ragloom.embeddings import HashEmbeddingProvider;"
            "print(HashEmbeddingProvider(8).embed(['stable text'])[0].round(6).tolist())")
    outputs = {
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                       env={**os.environ, "PYTHONHASHSEED": seed}).stdout
        for seed in ("0", "1", "12345")
    }
    assert len(outputs) == 1
    here = HashEmbeddingProvider(8).embed(["stable text"])[0].round(6).tolist()
    assert outputs.pop().strip() == str(here)


def test_shared_words_mean_closer_vectors() -> None:
    provider = HashEmbeddingProvider()
    query = provider.embed_query("parse the config file")
    near, far = provider.embed_documents(["config file parser", "rockets to the moon"])
    assert query @ near > query @ far


def test_batches_larger_than_one_call_keep_order() -> None:
    provider = HashEmbeddingProvider(32)
    provider.max_texts_per_call = 3  # type: ignore[misc]
    texts = [f"text number {i}" for i in range(10)]
    assert np.array_equal(provider.embed(texts), np.stack([provider.embed([t])[0] for t in texts]))


class TestHashEmbedderConformance(EmbedderConformance):
    @pytest.fixture
    def provider(self) -> HashEmbeddingProvider:
        return HashEmbeddingProvider()
