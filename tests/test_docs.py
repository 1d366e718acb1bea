"""docs/configuration.md and the config models must list exactly the same keys."""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import BaseModel

from ragloom.config import RAGConfig
from ragloom.config.embedding import EmbeddingConfig
from ragloom.config.limits import LimitsConfig
from ragloom.config.tables import ChunkingConfig, PromptConfig, RetrievalConfig, VectorStoreConfig
from ragloom.stores.mcp_settings import McpBridgeSettings
from ragloom.stores.postgres import PostgresSettings
from ragloom.stores.turboquant_settings import TurboQuantSettings

DOC = Path(__file__).resolve().parent.parent / "docs" / "configuration.md"
TABLES: dict[str, type[BaseModel]] = {
    "[rag]": RAGConfig, "[rag.embedding]": EmbeddingConfig, "[rag.prompt]": PromptConfig,
    "[rag.chunking]": ChunkingConfig, "[rag.retrieval]": RetrievalConfig,
    "[rag.vector_store]": VectorStoreConfig, "[rag.vector_store.turboquant]": TurboQuantSettings,
    "[rag.vector_store.mcp]": McpBridgeSettings, "[rag.vector_store.postgres]": PostgresSettings,
    "[rag.limits]": LimitsConfig,
}
#: Sub-tables, documented as tables of their own rather than as keys.
NESTED = {RAGConfig: {"embedding", "prompt", "chunking", "retrieval", "vector_store", "limits"},
          VectorStoreConfig: {"settings"}}


def documented_keys() -> dict[str, set[str]]:
    keys: dict[str, set[str]] = {}
    table = None
    for line in DOC.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            table = line[3:].strip()
            keys[table] = set()
        match = re.match(r"^\| `([a-z_]+)` \|", line)
        if match and table is not None:
            keys[table].add(match[1])
    return keys


def test_every_config_key_is_documented_and_vice_versa() -> None:
    documented = documented_keys()
    assert set(documented) == set(TABLES)
    for table, model in TABLES.items():
        # an excluded field is a removed key kept only to refuse it, naming its replacement
        fields = {field.alias or name for name, field in model.model_fields.items()
                  if name not in NESTED.get(model, set()) and not field.exclude}
        assert documented[table] == fields, table


def test_the_full_example_loads_and_checks(tmp_path: Path) -> None:
    """The complete file at the top of the page is a valid config, every store table included."""
    from ragloom import check_config, load_config
    from ragloom.stores.registry import store_settings

    text = DOC.read_text(encoding="utf-8")
    start = text.index("```toml\n") + len("```toml\n")
    (tmp_path / "ragloom.toml").write_text(text[start:text.index("```", start)], encoding="utf-8")
    config = load_config(tmp_path / "ragloom.toml")
    check_config(config)
    assert (config.embedding.provider, config.prompt.strategy, config.vector_store.provider) == (
        "local", "rag", "turboquant")
    assert store_settings(config) == TurboQuantSettings(bits=4)
