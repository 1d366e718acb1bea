"""Config loading: defaults, TOML parsing, and errors that name file, key and value."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragloom import ConfigError, RAGConfig, RAGEngine, check_config, load_config
from ragloom.config import parse_config
from ragloom.embeddings.registry import embedding_providers
from ragloom.stores.mcp_settings import McpBridgeSettings
from ragloom.stores.registry import store_settings, vector_stores
from ragloom.stores.turboquant_settings import TurboQuantSettings


def write_toml(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "app.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_defaults_match_the_design() -> None:
    config = RAGConfig()
    assert (config.chunk_unit, config.chunk_size, config.chunk_overlap) == (None, None, None)
    assert config.top_k == 5
    assert config.embedding.provider == "local"
    assert config.vector_store.provider == "turboquant"
    assert config.embedding.backend == "auto" and config.prompt.strategy == "rag"
    turboquant = store_settings(config)
    assert isinstance(turboquant, TurboQuantSettings) and turboquant.bits == 4


def test_load_full_table(tmp_path: Path) -> None:
    path = write_toml(tmp_path, """
[app]
name = "x"

[rag]
enabled = true
embedding.provider = "hash"
embedding.dim = 64
chunk_size = 500
chunk_overlap = 50
top_k = 3

[rag.retrieval]
hybrid = false

[rag.vector_store]
provider = "memory"
collection_name = "docs"

[rag.vector_store.turboquant]
bits = 3
""")
    config = load_config(path)
    assert config.embedding.dim == 64
    assert (config.chunk_size, config.chunk_overlap, config.top_k) == (500, 50, 3)
    assert config.vector_store.collection_name == "docs"
    assert config.vector_store.settings == {"turboquant": {"bits": 3}}
    assert store_settings(config, "turboquant").bits == 3  # type: ignore[union-attr]
    assert config.retrieval.hybrid is False


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
    assert str(info.value) == f"{path} [rag]: unknown key 'chunk_sise' (did you mean 'chunk_size'?)"


def test_unknown_nested_key_is_named(tmp_path: Path) -> None:
    path = write_toml(tmp_path, "[rag.vector_store]\nprovidr = 'memory'\n")
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
    config = load_config(path)  # reading a config lists no plugins: names are checked on use
    with pytest.raises(ConfigError) as info:
        check_config(config)
    message = str(info.value)
    assert "key 'vector_store.provider' = 'faiss'" in message
    assert "'chroma'" in message and "'turboquant'" in message and "'memory'" in message
    with pytest.raises(ConfigError, match=r"key 'embedding.provider' = 'openai'"):
        check_config(parse_config({"embedding": {"provider": "openai"}}))
    with pytest.raises(ConfigError, match=r"key 'vector_store.provider' = 'faiss'"):
        RAGEngine(config, tmp_path)
    with pytest.raises(ConfigError, match=r"key 'embedding.provider' = ''"):
        parse_config({"embedding": {"provider": ""}})


def test_reading_a_config_lists_no_plugins(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.metadata

    def refuse(**_: object) -> None:
        raise AssertionError("entry points scanned while parsing a config")

    monkeypatch.setattr(importlib.metadata, "entry_points", refuse)
    config = parse_config({"embedding": {"provider": "someone's"}, "vector_store": {
        "provider": "qdrant", "qdrant": {"size": 5}}, "retrieval": {"reranker": "colbert"}})
    assert config.vector_store.settings == {"qdrant": {"size": 5}}


def test_out_of_range_values() -> None:
    config = parse_config({"vector_store": {"turboquant": {"bits": 9}}})  # checked when built
    with pytest.raises(ConfigError, match=r"^\[rag.vector_store.turboquant\]: key 'bits' = 9"):
        store_settings(config)
    with pytest.raises(ConfigError, match=r"key 'top_k' = 0"):
        parse_config({"top_k": 0})


def test_config_errors_are_value_errors() -> None:
    with pytest.raises(ValueError):
        parse_config({"chunk_size": -1})


def test_config_accepts_exactly_the_registered_names() -> None:
    for name in vector_stores.names():
        table = {"provider": name} | ({"mcp": {"server": "ragloom mcp"}} if name == "mcp" else {})
        check_config(parse_config({"vector_store": table}))
    for name in embedding_providers.names():
        check_config(parse_config({"embedding": {"provider": name}}))
    with pytest.raises(ConfigError, match=r"'vector_store.provider' = 'Chroma': unknown vector store "
                                          r"\(did you mean 'chroma'\?\); "
                                          r"valid: 'chroma', 'mcp', 'memory', 'postgres', 'turboquant'"):
        check_config(parse_config({"vector_store": {"provider": "Chroma"}}))


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
        '[rag]\nenabled = true\nembedding.provider = "local"\ntop_k = 5\n\n'
        '[rag.vector_store]\nprovider = "chroma"\nurl = ""\napi_key = ""\n\n'
        '[rag.vector_store.mcp]\nserver = ""\ntool = ""\n')
    config = load_config(tmp_path / "app.toml")
    check_config(config)  # the bridge's table, unused here, is valid without a server
    store = config.vector_store
    assert (store.url, store.api_key) == (None, None)
    assert store.resolved_api_key() is None
    bridge = store_settings(config, "mcp")
    assert isinstance(bridge, McpBridgeSettings) and (bridge.server, bridge.tool) == (None, "rag_search")


def test_the_bridge_needs_a_server_when_it_is_the_store(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"^\[rag.vector_store.mcp\]: the MCP bridge store "
                                          r"\(provider = \"mcp\"\) needs server"):
        RAGEngine(parse_config({"embedding": {"provider": "hash"}, "vector_store": {"provider": "mcp"}}),
                  tmp_path)


def test_a_key_of_a_table_written_in_another_is_unknown() -> None:
    """No key is kept at an old place (0.1.0 is the first release): a table's key written in
    [rag] or [rag.vector_store] is an unknown key there, named with the place it lives in
    when that is plain from its name."""
    for data, message in (
            ({"hybrid": False}, "unknown key 'hybrid' (did you mean 'retrieval.hybrid'?)"),
            ({"embedding_model": "m"},  # old shape
             "unknown key 'embedding_model' (did you mean 'embedding.model'?)"),
            ({"embedding_max_seq_length": 8},  # old shape
             "unknown key 'embedding_max_seq_length' (did you mean 'embedding.max_seq_length'?)"),
            ({"api_key_env": "K"}, "unknown key 'api_key_env' (did you mean 'embedding.api_key_env'?)"),
            ({"strategy": "rag"}, "unknown key 'strategy' (did you mean 'prompt.strategy'?)"),
            ({"vector_store": {"mcp_server": "x"}},  # old shape
             "unknown key 'vector_store.mcp_server' (did you mean 'vector_store.mcp.server'?)"),
            ({"vector_store": {"provider": "turboquant", "bits": 3}}, "unknown key 'vector_store.bits'")):
        with pytest.raises(ConfigError) as error:
            parse_config(data)
        assert str(error.value) == f"[rag]: {message}"


def test_relevance_gate_is_a_cosine_or_false() -> None:
    assert parse_config({"relevance_gate": False}).relevance_gate is False
    assert parse_config({"relevance_gate": -1}).relevance_gate == -1.0  # old shape: a cosine now
    assert parse_config({}).relevance_gate is None
    for value in (True, 1.5, "off"):
        with pytest.raises(ConfigError, match=r"key 'relevance_gate' = .*: must be a cosine in "
                                              r"\[-1, 1\], or false for no gate$"):
            parse_config({"relevance_gate": value})


def test_turboquant_keys_live_in_their_sub_table(tmp_path: Path) -> None:
    path = tmp_path / "app.toml"
    path.write_text('[rag.vector_store]\nprovider = "turboquant"\n\n'
                    '[rag.vector_store.turboquant]\nbits = 3\nrefine_bits = 2\n')
    table = store_settings(load_config(path))
    assert isinstance(table, TurboQuantSettings)
    assert (table.bits, table.refine_bits, table.first_pass) == (3, 2, 4000)
    with pytest.raises(ConfigError) as error:
        store_settings(parse_config({"vector_store": {"turboquant": {"bitz": 3}}}))
    assert str(error.value) == "[rag.vector_store.turboquant]: unknown key 'bitz' (did you mean 'bits'?)"


def test_source_type_names_are_plain_words() -> None:
    assert parse_config({"source_types": {"generated": ["gen/**"]}}).source_types == {"generated": ["gen/**"]}
    with pytest.raises(ConfigError, match=r"key 'source_types': source type 'my type' must be letters"):
        parse_config({"source_types": {"my type": ["x/**"]}})


def test_nan_and_infinite_floats_are_refused_naming_the_key(tmp_path: Path) -> None:
    """``min_score = nan`` used to be accepted and silence every search."""
    with pytest.raises(ConfigError, match=r"key 'min_score' = nan"):
        load_config(write_toml(tmp_path, "[rag]\nmin_score = nan\n"))
    with pytest.raises(ConfigError, match=r"key 'retrieval.dense_weight' = inf"):
        parse_config({"retrieval": {"dense_weight": float("inf")}})


def test_a_path_with_a_nul_byte_is_a_config_error_naming_the_key() -> None:
    with pytest.raises(ConfigError, match=r"key 'index_dir' = 'idx\\x00': .*NUL byte"):
        parse_config({"index_dir": "idx\0"})
    with pytest.raises(ConfigError, match=r"key 'vector_store.path' = .*NUL byte"):
        parse_config({"vector_store": {"provider": "turboquant", "path": "a\0b"}})


def test_a_malformed_glob_in_include_exclude_or_source_types_names_key_and_pattern() -> None:
    for data, key in (({"include": ["[z-a]*"]}, "include"), ({"exclude": ["ok", "[z-a]"]}, "exclude"),
                      ({"source_types": {"test": ["[9-0].py"]}}, "source_types")):
        with pytest.raises(ConfigError, match=rf"key '{key}'.*glob '\[(z-a|9-0)\]"):
            parse_config(data)
