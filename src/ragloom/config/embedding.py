"""The ``[rag.embedding]`` table: which model turns text into vectors, and how it runs."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, SecretStr

from ragloom.config.rules import StrictModel, resolve_secret


class EmbeddingConfig(StrictModel):
    """The ``[rag.embedding]`` table."""

    #: A built-in ("local", "gemini", "hash"), an installed plugin, or "module:factory"
    #: (checked against the provider registry when the engine is built).
    provider: str = Field("local", min_length=1)
    model: str | None = None
    dim: int | None = Field(None, ge=1, le=65536)
    #: Texts per forward pass of the local model; None: 8 on a CPU (small batches pad least,
    #: which suits a CPU), 64 on an accelerator.
    batch_size: int | None = Field(None, ge=1, le=100_000)
    device: str | None = None
    max_seq_length: int | None = Field(None, ge=1, le=1_048_576)
    #: How the local model runs: "torch", ONNX Runtime "onnx" (fp32) or "onnx-int8", or
    #: "auto" (onnx-int8 when ONNX Runtime and onnx are installed, as ragloom[local] does,
    #: else torch). See bench/embedding_throughput.py.
    backend: Literal["torch", "onnx", "onnx-int8", "auto"] = "auto"
    #: The Gemini API's base URL (also used by ``send()``'s Gemini client).
    base_url: str | None = None
    concurrency: int = Field(4, ge=1, le=64)
    max_retries: int = Field(5, ge=0, le=20)
    cache: bool = True
    #: The Gemini API key, inline or by environment variable (also used by ``send()``).
    api_key: SecretStr | None = None
    api_key_env: str | None = None

    def resolved_api_key(self) -> str | None:
        """The Gemini API key from ``api_key`` or the variable named by ``api_key_env``."""
        return resolve_secret(self.api_key, self.api_key_env, "embedding.api_key_env")
