"""The rules every config key follows: ranges, strict types, "did you mean", and errors that
name file, key and value, including the ones found only when an engine is built."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import Field

from ragloom import ConfigError, RAGEngine, load_config
from ragloom.config import parse_config
from ragloom.config.rules import NUMBER_LIMIT, StrictModel


def write_toml(tmp_path: Path, text: str, name: str = "app.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def refused(data: dict[str, Any]) -> str:
    with pytest.raises(ConfigError) as info:
        parse_config(data)
    return str(info.value)


@pytest.mark.parametrize(("data", "message"), [
    ({"min_score": 2}, "[rag]: key 'min_score' = 2: Input should be less than or equal to 1"),
    ({"min_score": -1.5}, "[rag]: key 'min_score' = -1.5: Input should be greater than or equal to -1"),
    ({"chunk_size": 10**23}, "[rag]: key 'chunk_size' = 100000000000000000000000: Input should be "
                             "less than or equal to 1000000"),
    ({"top_k": 10_001}, "[rag]: key 'top_k' = 10001: Input should be less than or equal to 10000"),
    ({"max_file_bytes": 10**11}, "[rag]: key 'max_file_bytes' = 100000000000: Input should be less "
                                 "than or equal to 10000000000"),
    ({"retrieval": {"rrf_k": 10**9}}, "[rag]: key 'retrieval.rrf_k' = 1000000000: Input should be "
                                      "less than or equal to 100000"),
    ({"retrieval": {"dense_weight": 1e6}}, "[rag]: key 'retrieval.dense_weight' = 1000000.0: Input "
                                           "should be less than or equal to 100"),
])
def test_every_numeric_key_has_a_range(data: dict[str, Any], message: str) -> None:
    assert refused(data) == message


@pytest.mark.parametrize(("data", "message"), [
    ({"top_k": "5"}, "[rag]: key 'top_k' = '5': must be a whole number, not text (write it "
                     "without quotes)"),
    ({"top_k": True}, "[rag]: key 'top_k' = True: must be a whole number, not true or false"),
    ({"top_k": 2.5}, "[rag]: key 'top_k' = 2.5: must be a whole number, not a fraction"),
    ({"min_score": "0.3"}, "[rag]: key 'min_score' = '0.3': must be a number, not text (write it "
                           "without quotes)"),
    ({"retrieval": {"hybrid": "no"}}, "[rag]: key 'retrieval.hybrid' = 'no': must be true or "
                                      "false, not text"),
    ({"embedding": {"dim": "4"}},
     "[rag]: key 'embedding.dim' = '4': must be a whole number, not text (write it without "
     "quotes)"),
])
def test_types_are_strict(data: dict[str, Any], message: str) -> None:
    assert refused(data) == message


def test_a_whole_number_is_taken_for_a_float_key() -> None:
    config = parse_config({"min_score": 1, "retrieval": {"dense_weight": 1}})
    assert (config.min_score, config.retrieval.dense_weight) == (1.0, 1.0)
    assert isinstance(config.min_score, float)


def test_a_key_added_later_gets_the_same_rules_without_declaring_them() -> None:
    """The rules live in StrictModel, so a new numeric key without bounds is still bounded
    and strict (another table, a plugin's: the same)."""

    class NewTable(StrictModel):
        window: int = Field(10, ge=1)
        ratio: float = 0.5

    assert NewTable.model_validate({"window": NUMBER_LIMIT}).window == NUMBER_LIMIT
    assert parse_config({"max_file_bytes": 5 * NUMBER_LIMIT}).max_file_bytes == 5 * NUMBER_LIMIT  # declared
    for data in ({"window": NUMBER_LIMIT + 1}, {"ratio": -1e12}, {"window": "5"}, {"ratio": True}):
        with pytest.raises(ValueError):
            NewTable.model_validate(data)


@pytest.mark.parametrize(("data", "message"), [
    ({"chunk_sise": 10}, "[rag]: unknown key 'chunk_sise' (did you mean 'chunk_size'?)"),
    ({"retrieval": {"fusoin": "rrf"}}, "[rag]: unknown key 'retrieval.fusoin' (did you mean "
                                       "'fusion'?)"),
    ({"embedding": {"modle": "m"}}, "[rag]: unknown key 'embedding.modle' (did you mean "
                                    "'model'?)"),
    ({"zzz": 1}, "[rag]: unknown key 'zzz'"),
    ({"retrieval": {"fusion": "rff"}}, "[rag]: key 'retrieval.fusion' = 'rff': Input should be "
                                       "'rrf' or 'score' (did you mean 'rrf'?)"),
    ({"embedding": {"backend": "onx"}}, "[rag]: key 'embedding.backend' = 'onx': Input should be "
                                   "'torch', 'onnx', 'onnx-int8' or 'auto' (did you mean 'onnx'?)"),
])
def test_unknown_keys_and_values_suggest_the_nearest(data: dict[str, Any], message: str) -> None:
    assert refused(data) == message


@pytest.mark.parametrize(("table", "message"), [
    ('embedding.provider = "hsh"', "key 'embedding.provider' = 'hsh': unknown embedding provider "
                                   "(did you mean 'hash'?); valid: 'gemini', 'hash', 'local'"),
    ('[rag.vector_store]\nprovider = "chromaa"', "key 'vector_store.provider' = 'chromaa': unknown "
                                                 "vector store (did you mean 'chroma'?); valid:"),
    ('[rag.vector_store.turboqant]\nbits = 3', "[rag.vector_store.turboqant]: no vector store is "
                                               "named 'turboqant' (did you mean 'turboquant'?)"),
    ('[rag.vector_store]\nprovider = "postgres"\nurl = "postgresql://u@h/db"\n'
     '[rag.vector_store.postgres]\nm = "16"',
     "[rag.vector_store.postgres]: key 'm' = '16': must be a whole number, not text"),
    ('embedding.provider = "os:system"', "embedding provider 'os:system' for key "
                                         "'embedding.provider': calling it failed (TypeError:"),
])
def test_errors_found_when_the_engine_is_built_name_the_file(tmp_path: Path, table: str,
                                                            message: str) -> None:
    """Backend names are checked when an engine is built (reading a config imports no
    plugin); those errors name the file and table too, and a factory path that is no
    factory ("os:system") is a ConfigError, not a TypeError from deep inside."""
    path = write_toml(tmp_path, "[rag]\n" + table + "\n")
    config = load_config(path)
    with pytest.raises(ConfigError) as info:
        RAGEngine(config, tmp_path)
    assert str(info.value).startswith(f"{path.resolve()} [rag]: {message}")
    assert not (tmp_path / ".ragloom").exists()


def test_a_config_file_that_is_not_utf8_is_named(tmp_path: Path) -> None:
    path = tmp_path / "app.toml"
    path.write_bytes(b"[rag]\ntop_k = 5 # caf\xe9\n")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert str(info.value) == f"{path}: not UTF-8 text (byte 21), as TOML must be"


def test_a_deeply_nested_config_is_an_error_not_a_crash(tmp_path: Path) -> None:
    path = write_toml(tmp_path, "[rag]\nx = " + "{a=" * 500 + "1" + "}" * 500 + "\n")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert str(info.value) == f"{path}: invalid TOML: tables or arrays nested too deep"


def numeric_keys() -> list[tuple[str, str]]:
    """(table, key) for every whole-number or float key of every documented config table."""
    import types
    import typing

    from test_docs import TABLES

    keys = []
    for table, model in TABLES.items():
        for name, field in model.model_fields.items():
            kinds = set(typing.get_args(field.annotation)) if typing.get_origin(field.annotation) in (
                typing.Union, types.UnionType) else {field.annotation}
            if kinds & {int, float}:
                keys.append((table, field.alias or name))
    return keys


def validate_key(table: str, key: str, value: object) -> None:
    """Validate ``key = value`` in ``table`` the way an engine does (store tables included)."""
    from ragloom.stores.registry import store_settings

    path = table.strip("[]").split(".")[1:]
    data: dict[str, Any] = {key: value}
    for part in reversed(path):
        data = {part: data}
    config = parse_config(data)
    if path[:1] == ["vector_store"] and len(path) == 2:
        store_settings(config, path[1])


@pytest.mark.parametrize(("table", "key"), numeric_keys())
def test_every_numeric_key_of_every_table_is_bounded_and_strict(table: str, key: str) -> None:
    """A key added to any table later (a store's own included) is held to the same rules:
    no number beyond any sane size, no text for a number."""
    for value in (10**12, -(10**12), "5"):
        with pytest.raises(ConfigError, match=rf"key '[a-z_.]*{key}' = "):
            validate_key(table, key, value)
