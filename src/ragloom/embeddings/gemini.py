"""Gemini embeddings through the google-genai SDK, batched, concurrent and retried.

Documents are embedded with task type RETRIEVAL_DOCUMENT and queries with RETRIEVAL_QUERY.
Requests carry at most MAX_TEXTS_PER_REQUEST texts (the API's batch limit) and run on a
bounded thread pool. 429/5xx answers are retried with exponential backoff and jitter,
honouring Retry-After; other 4xx answers fail at once with the model named.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np

from ragloom.embeddings.base import EmbeddingProvider, EmbeddingTask, l2_normalize
from ragloom.embeddings.gemini_client import build_client, genai_module
from ragloom.errors import ConfigError, EmbeddingError

DEFAULT_GEMINI_MODEL = "gemini-embedding-001"
MAX_TEXTS_PER_REQUEST = 100
RETRYABLE_STATUS = frozenset({408, 429, 500, 502, 503, 504})

#: Full output sizes of known models; other models need ``[rag.embedding] dim``.
FULL_DIMENSIONS = {"gemini-embedding-001": 3072, "text-embedding-004": 768,
                   "embedding-001": 768}
TASK_TYPES = {"document": "RETRIEVAL_DOCUMENT", "query": "RETRIEVAL_QUERY"}


class GeminiEmbeddingProvider(EmbeddingProvider):
    """Gemini ``embed_content``; vectors re-normalized (needed below the full dimension)."""

    provider_name: ClassVar[str] = "gemini"
    max_texts_per_call: ClassVar[int] = MAX_TEXTS_PER_REQUEST  # one request; base runs them concurrently

    def __init__(self, model_name: str = DEFAULT_GEMINI_MODEL, dimension: int | None = None, *,
                 api_key: str | None = None, base_url: str | None = None,
                 client: Any = None, max_concurrency: int = 4, max_retries: int = 5,
                 initial_backoff: float = 1.0, max_backoff: float = 60.0,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        full = FULL_DIMENSIONS.get(model_name.removeprefix("models/"))
        size = dimension or full
        if size is None:
            raise ConfigError(f"key 'embedding.dim' must be set for Gemini model {model_name!r}")
        self.model_name = model_name
        self.dimension = int(size)
        self._send_dimension = dimension is not None and dimension != full
        self._client = client or build_client(api_key, base_url, "the Gemini embedding provider")
        genai = genai_module("the Gemini embedding provider")
        self._types = genai.types
        self._errors = genai.errors
        self.max_concurrency = max(1, max_concurrency)
        self.max_retries = max(0, max_retries)
        self.initial_backoff = initial_backoff
        self.max_backoff = max_backoff
        self._sleep = sleep

    def _embed_batch(self, texts: list[str], task: EmbeddingTask) -> np.ndarray:
        """One embed_content call, retried on transient failures."""
        config = self._types.EmbedContentConfig(
            task_type=TASK_TYPES[task],
            output_dimensionality=self.dimension if self._send_dimension else None,
        )
        attempt = 0
        while True:
            try:
                response = self._client.models.embed_content(
                    model=self.model_name, contents=texts, config=config)
                return l2_normalize(self._vectors(response, len(texts)))
            except self._errors.APIError as exc:
                if exc.code not in RETRYABLE_STATUS or attempt >= self.max_retries:
                    raise self._failure(exc, attempt) from None
                self._sleep(self._backoff(attempt, _retry_after(exc)))
            except EmbeddingError:
                raise
            except Exception as exc:  # connection errors from the HTTP layer
                if attempt >= self.max_retries:
                    raise EmbeddingError(
                        f"Gemini embedding model {self.model_name!r} unreachable after "
                        f"{attempt + 1} attempt(s): {type(exc).__name__}: {exc}"
                    ) from None
                self._sleep(self._backoff(attempt, None))
            attempt += 1

    def _vectors(self, response: Any, expected: int) -> np.ndarray:
        embeddings = response.embeddings or []
        if len(embeddings) != expected:
            raise EmbeddingError(
                f"Gemini model {self.model_name!r} returned {len(embeddings)} embeddings "
                f"for {expected} texts"
            )
        vectors = np.asarray([e.values for e in embeddings], dtype=np.float32)
        if vectors.ndim != 2 or vectors.shape[1] != self.dimension:
            raise EmbeddingError(
                f"Gemini model {self.model_name!r} returned vectors of shape {vectors.shape}, "
                f"expected dimension {self.dimension}"
            )
        return vectors

    def _backoff(self, attempt: int, retry_after: float | None) -> float:
        """Exponential backoff with full jitter, never shorter than the server's Retry-After."""
        ceiling = min(self.max_backoff, self.initial_backoff * (2 ** attempt))
        delay = random.uniform(ceiling / 2, ceiling)
        return max(delay, retry_after) if retry_after is not None else delay

    def _failure(self, exc: Any, attempt: int) -> EmbeddingError:
        message = getattr(exc, "message", None) or str(exc)
        retried = f" after {attempt + 1} attempts" if attempt else ""
        return EmbeddingError(
            f"Gemini embedding request for model {self.model_name!r} failed{retried} with "
            f"HTTP {exc.code} {getattr(exc, 'status', '') or ''}: {message}".replace("  ", " ")
        )


def _retry_after(exc: Any) -> float | None:
    """Seconds from a Retry-After header, if the error's response carries one."""
    headers = getattr(getattr(exc, "response", None), "headers", None)
    if not headers:
        return None
    value = headers.get("retry-after") or headers.get("Retry-After")
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None
