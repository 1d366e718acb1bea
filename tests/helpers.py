"""Helpers shared by tests (importable as ``helpers`` thanks to pytest's pythonpath)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ragloom import RAGConfig
from ragloom._registry import Registry


def hash_config(**overrides: Any) -> RAGConfig:
    """A config using the hash embedder and the mock store, with ``overrides`` applied."""
    data: dict[str, Any] = {"embedding_provider": "hash", "vector_store": {"provider": "mock"}}
    data.update(overrides)
    return RAGConfig.model_validate(data)


@contextmanager
def restored(*registries: Registry[Any], relist: bool = False) -> Iterator[None]:
    """The registries as they were once the block ends: what a test registers in them (or a
    plugin it installs) is gone again. A registry offers no way back; only tests need one.
    With ``relist``, installed plugins are listed afresh in the block (a plugin installed for
    it is found)."""
    saved = [(registry, dict(registry._factories), set(registry._builtin), registry._plugins)
             for registry in registries]
    if relist:
        for registry, factories, builtin, _ in saved:
            registry._plugins = None
            registry._factories = {name: f for name, f in factories.items() if name in builtin}
    try:
        yield
    finally:
        for registry, factories, builtin, plugins in saved:
            registry._factories, registry._builtin, registry._plugins = factories, builtin, plugins


def write(root: Path, relative: str, text: str) -> Path:
    """Write ``text`` to ``root/relative``, creating folders."""
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


#: The system prompt the LLM integration tests send.
ASSISTANT_PROMPT = "# Assistant\nAnswer questions about the project.\n"
