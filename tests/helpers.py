"""Helpers shared by tests (importable as ``helpers`` thanks to pytest's pythonpath)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ragloom import RAGConfig


def hash_config(**overrides: Any) -> RAGConfig:
    """A config using the hash embedder and the mock store, with ``overrides`` applied."""
    data: dict[str, Any] = {"embedding_provider": "hash", "vector_store": {"provider": "mock"}}
    data.update(overrides)
    return RAGConfig.model_validate(data)


def write(root: Path, relative: str, text: str) -> Path:
    """Write ``text`` to ``root/relative``, creating folders."""
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


#: The system prompt the LLM integration tests send.
ASSISTANT_PROMPT = "# Assistant\nAnswer questions about the project.\n"
