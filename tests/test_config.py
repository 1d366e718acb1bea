"""Config loading: defaults, TOML parsing, and errors that name file, key and value."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragloom import ConfigError, RAGConfig, load_config
from ragloom.config import parse_config
from ragloom.embeddings.registry import embedding_providers
from ragloom.stores.registry import vector_stores


def write_toml(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "app.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_defaults_match_the_design() -> None:
    config = RAGConfig()
    assert (config.chunk_unit, config.chunk_size, config.chunk_overlap) == (None, None, None)
    assert config.top_k == 5
    assert config.embedding_provider == "local"
    assert config.vector_store.provider == "chroma"
    assert config.vector_store.turboquant.bits == 4


def test_load_full_table(tmp_path: Path) -> None:
    path = write_toml(tmp_path, """
[app]
name = "x"

[rag]
enabled = true
embedding_provider = "hash"
embedding_dim = 64
chunk_size = 500
chunk_overlap = 50
top_k = 3
hybrid = false

[rag.vector_store]
provider = "mock"
collection_name = "docs"
bits = 3
""")
    config = load_config(path)
    assert config.embedding_dim == 64
    assert (config.chunk_size, config.chunk_overlap, config.top_k) == (500, 50, 3)
    assert config.vector_store.collection_name == "docs"
    assert config.vector_store.turboquant.bits == 3


def test_invalid_toml_names_the_file(tmp_path: Path) -> None:
    path = write_toml(tmp_path, "[rag\nchunk_size = 1")
    with pytest.raises(ConfigError, match=r"app\.toml: invalid TOML"):
        load_config(path)


def test_missing_file_and_missing_table(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not found"):
        load_config(tmp_path / "nope.toml")
    with pytest.raises(ConfigError, match=r"no \[rag\] table"):
        load_config(write_toml(tmp_path, "[other]\na = 1\n"))


def test_unknown_key_is_named(tmp_path: Path) -> None:
    path = write_toml(tmp_path, "[rag]\nchunk_sise = 10\n")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert str(info.value) == f"{path} [rag]: unknown key 'chunk_sise'"


def test_unknown_nested_key_is_named(tmp_path: Path) -> None:
    path = write_toml(tmp_path, "[rag.vector_store]\nprovidr = 'mock'\n")
    with pytest.raises(ConfigError, match=r"unknown key 'vector_store\.providr'"):
        load_config(path)


def test_wrong_type_names_key_and_value(tmp_path: Path) -> None:
    path = write_toml(tmp_path, "[rag]\nchunk_size = 'big'\n")
    with pytest.raises(ConfigError, match=r"app\.toml \[rag\]: key 'chunk_size' = 'big'"):
        load_config(path)


def test_overlap_not_below_size(tmp_path: Path) -> None:
    path = write_toml(tmp_path, "[rag]\nchunk_size = 100\nchunk_overlap = 100\n")
    with pytest.raises(ConfigError, match=r"chunk_overlap \(100\) must be smaller than chunk_size \(100\)"):
        load_config(path)


def test_unknown_provider_lists_valid_ones(tmp_path: Path) -> None:
    path = write_toml(tmp_path, "[rag.vector_store]\nprovider = 'faiss'\n")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert "key 'vector_store.provider' = 'faiss'" in message
    assert "'chroma'" in message and "'turboquant'" in message and "'mock'" in message
    with pytest.raises(ConfigError, match=r"key 'embedding_provider' = 'openai'"):
        parse_config({"embedding_provider": "openai"})


def test_out_of_range_values() -> None:
    with pytest.raises(ConfigError, match=r"key 'vector_store.turboquant.bits' = 9"):
        parse_config({"vector_store": {"bits": 9}})
    with pytest.raises(ConfigError, match=r"key 'top_k' = 0"):
        parse_config({"top_k": 0})


def test_config_errors_are_value_errors() -> None:
    with pytest.raises(ValueError):
        parse_config({"chunk_size": -1})


def test_config_accepts_exactly_the_registered_names() -> None:
    for name in vector_stores.names():
        table = {"provider": name} | ({"mcp_server": "ragloom mcp"} if name == "mcp" else {})
        assert parse_config({"vector_store": table}).vector_store.provider == name
    for name in embedding_providers.names():
        assert parse_config({"embedding_provider": name}).embedding_provider == name
    with pytest.raises(ConfigError, match=r"'vector_store.provider' = 'Chroma': unknown vector store; "
                                          r"valid: 'chroma', 'mcp', 'mock', 'postgres', 'turboquant'"):
        parse_config({"vector_store": {"provider": "Chroma"}})


def test_api_key_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    config = parse_config({"vector_store": {"api_key_env": "RAGLOOM_TEST_KEY"}})
    monkeypatch.setenv("RAGLOOM_TEST_KEY", "s3cret-value")
    assert config.vector_store.resolved_api_key() == "s3cret-value"
    monkeypatch.delenv("RAGLOOM_TEST_KEY")
    with pytest.raises(ConfigError, match="RAGLOOM_TEST_KEY.*not set"):
        config.vector_store.resolved_api_key()


def test_inline_api_key_is_hidden_in_repr() -> None:
    config = parse_config({"vector_store": {"api_key": "s3cret-value"}})
    assert "s3cret-value" not in repr(config)
    assert "s3cret-value" not in str(config.model_dump())
    assert config.vector_store.resolved_api_key() == "s3cret-value"


def test_collection_name_follows_chroma_rules() -> None:
    with pytest.raises(ConfigError, match=r"key 'vector_store.collection_name' = 'ab'"):
        parse_config({"vector_store": {"collection_name": "ab"}})
    with pytest.raises(ConfigError, match="collection_name"):
        parse_config({"vector_store": {"collection_name": "bad name!"}})
    assert parse_config({"vector_store": {"collection_name": "my.docs-1"}})


def test_desktop_client_seed_table_loads_as_written(tmp_path: Path) -> None:
    (tmp_path / "app.toml").write_text(
        '[rag]\nenabled = true\nembedding_provider = "local"\ntop_k = 5\n\n'
        '[rag.vector_store]\nprovider = "chroma"\nurl = ""\napi_key = ""\n'
        'mcp_server = ""\nmcp_tool = ""\n')
    config = load_config(tmp_path / "app.toml")
    store = config.vector_store
    assert (store.url, store.api_key, store.mcp_server, store.mcp_tool) == (None, None, None, None)
    assert store.resolved_api_key() is None


def test_mcp_keys_with_another_store_are_an_error() -> None:
    with pytest.raises(ConfigError, match="mcp_server is set but provider is 'chroma'"):
        parse_config({"vector_store": {"provider": "chroma", "mcp_server": "ragloom mcp"}})


def test_retrieval_keys_at_the_top_of_rag_still_count(tmp_path: Path) -> None:
    path = write_toml(tmp_path, "[rag]\nhybrid = false\nmmr = true\nmmr_lambda = 0.3\n")
    config = load_config(path)
    assert (config.retrieval.hybrid, config.retrieval.mmr, config.retrieval.mmr_lambda) == (False, True, 0.3)
    assert (config.hybrid, config.mmr) == (False, True)
    both = write_toml(tmp_path, "[rag]\nhybrid = false\n\n[rag.retrieval]\nhybrid = true\n")
    with pytest.raises(ConfigError, match=r"'hybrid' is set both in \[rag\] \(False\) and in "
                                          r"\[rag.retrieval\] \(True\)"):
        load_config(both)
    same = write_toml(tmp_path, "[rag]\nmmr = true\n\n[rag.retrieval]\nmmr = true\nfusion = 'rrf'\n")
    assert load_config(same).retrieval.mmr and load_config(same).retrieval.fusion == "rrf"


def test_turboquant_keys_in_their_sub_table_or_flat_as_before(tmp_path: Path) -> None:
    path = tmp_path / "app.toml"
    path.write_text('[rag.vector_store]\nprovider = "turboquant"\n\n'
                    '[rag.vector_store.turboquant]\nbits = 3\nrefine_bits = 2\n')
    table = load_config(path).vector_store
    assert (table.turboquant.bits, table.turboquant.refine_bits, table.turboquant.first_pass) == (3, 2, 4000)
    assert table.settings_for() is table.turboquant
    flat = parse_config({"vector_store": {"provider": "turboquant", "bits": 3, "refine_bits": 2}})
    assert flat.vector_store.turboquant == table.turboquant
    agreeing = parse_config({"vector_store": {"bits": 3, "turboquant": {"bits": 3}}})
    assert agreeing.vector_store.turboquant.bits == 3
    with pytest.raises(ConfigError, match=r"'bits' is set both flat \(2\) and in "
                                          r"\[rag.vector_store.turboquant\] \(3\); keep one"):
        parse_config({"vector_store": {"bits": 2, "turboquant": {"bits": 3}}})
    with pytest.raises(ConfigError, match=r"unknown key 'vector_store.turboquant.bitz'"):
        parse_config({"vector_store": {"turboquant": {"bitz": 3}}})


def test_source_type_names_are_plain_words() -> None:
    assert parse_config({"source_types": {"generated": ["gen/**"]}}).source_types == {"generated": ["gen/**"]}
    with pytest.raises(ConfigError, match=r"key 'source_types': source type 'my type' must be letters"):
        parse_config({"source_types": {"my type": ["x/**"]}})
