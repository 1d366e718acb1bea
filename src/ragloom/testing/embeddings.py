"""The behaviour every embedding provider must have, as a pytest suite to reuse.

Subclass ``EmbedderConformance`` in a test module and define a ``provider`` fixture
returning the provider under test; set ``normalized = False`` if its vectors are not unit
length. Needs pytest (a test dependency, not a runtime one).
"""

from __future__ import annotations

import numpy as np
import pytest

from ragloom.embeddings.base import EmbeddingProvider, EmbeddingTask

TEXTS = ["def parse(text): return text.split()", "Rockets carry satellites into orbit.",
         "A third, longer text about tomatoes, sun and water in a small garden.", "x"]


class EmbedderConformance:
    """Subclass and provide the ``provider`` fixture."""

    normalized = True

    def test_describes_itself(self, provider: EmbeddingProvider) -> None:
        assert isinstance(provider.provider_name, str) and provider.provider_name
        assert isinstance(provider.model_name, str) and provider.model_name
        assert isinstance(provider.dimension, int) and provider.dimension > 0
        gate = provider.default_relevance_gate
        assert gate is None or -1.0 <= gate <= 1.0

    def test_shape_and_dtype_for_documents_and_queries(self, provider: EmbeddingProvider) -> None:
        tasks: tuple[EmbeddingTask, ...] = ("document", "query")
        for task in tasks:
            vectors = provider.embed(TEXTS, task)
            assert vectors.shape == (len(TEXTS), provider.dimension) and vectors.dtype == np.float32
            assert np.isfinite(vectors).all()
        assert provider.embed_query(TEXTS[0]).shape == (provider.dimension,)
        assert provider.embed([]).shape == (0, provider.dimension)

    def test_deterministic_and_independent_of_batching(self, provider: EmbeddingProvider) -> None:
        together = provider.embed(TEXTS)
        one_by_one = np.stack([provider.embed([text])[0] for text in TEXTS])
        assert np.allclose(together, one_by_one, atol=1e-4)
        assert np.allclose(provider.embed(TEXTS), together, atol=1e-5)

    def test_every_batch_is_reported(self, provider: EmbeddingProvider) -> None:
        seen: dict[int, np.ndarray] = {}
        vectors = provider.embed(TEXTS, on_batch=lambda start, part: seen.update({start: part}))
        rows = np.concatenate([seen[start] for start in sorted(seen)])
        assert np.allclose(rows, vectors)

    def test_unit_vectors(self, provider: EmbeddingProvider) -> None:
        if not self.normalized:
            pytest.skip("this provider does not normalize its vectors")
        norms = np.linalg.norm(provider.embed(TEXTS), axis=1)
        assert np.allclose(norms, 1.0, atol=1e-4)

    def test_token_measure_when_offered(self, provider: EmbeddingProvider) -> None:
        measure = provider.token_measure()
        if measure is None:
            pytest.skip("this provider has no local tokenizer (chunks are sized in characters)")
        assert measure.unit == "tokens" and measure.window > 0
        assert 0 < measure.count("hello world") <= len("hello world")
        assert 0 < measure.fit(TEXTS[2], 3) < len(TEXTS[2])
