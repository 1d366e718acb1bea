"""Configuring the Postgres store: the sub-table, the URL and where its password comes from."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from helpers import hash_config
from ragloom.errors import ConfigError, StoreError
from ragloom.stores.base import EmbeddingSpec
from ragloom.stores.postgres import PostgresSettings
from ragloom.stores.postgres.settings import connection_url, redacted
from ragloom.stores.registry import create_vector_store, store_settings


def postgres_config(url: str | None = "postgresql://app@127.0.0.1:1/db", **table: object):
    store: dict[str, object] = {"provider": "postgres", "collection_name": "My-Docs.v2"}
    if url is not None:
        store["url"] = url
    if table:
        store["postgres"] = table
    return hash_config(vector_store=store)


def test_sub_table_is_validated() -> None:
    config = postgres_config(schema="rag", table="chunks", m=32, ef_search=200, create=False)
    settings = store_settings(config)
    assert isinstance(settings, PostgresSettings)
    assert (settings.schema_, settings.table, settings.m, settings.ef_search, settings.create) == (
        "rag", "chunks", 32, 200, False)
    with pytest.raises(ConfigError, match="ef_serch"):
        store_settings(postgres_config(ef_serch=10))


def test_url_is_required() -> None:
    with pytest.raises(ConfigError, match="needs vector_store.url"):
        create_vector_store(postgres_config(url=None), Path("."), EmbeddingSpec("m", 4))


def test_bad_identifier_names_the_key() -> None:
    with pytest.raises(ConfigError, match=r"schema = 'my-schema'"):
        create_vector_store(postgres_config(schema="my-schema"), Path("."), EmbeddingSpec("m", 4))


def test_password_sources_in_order(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PGPASSWORD", "from-env")
    assert connection_url("postgresql://u:inline@h/db", "key") == "postgresql://u:inline@h/db"
    assert connection_url("postgresql://u@h:5/db", "k/y") == "postgresql://u:k%2Fy@h:5/db"
    assert connection_url("postgresql://u@h/db", None) == "postgresql://u:from-env@h/db"
    with pytest.raises(ConfigError, match="not a postgresql:// URL"):
        connection_url("mysql://u:secret@h/db", None)


def test_redacted_url_hides_every_password() -> None:
    assert redacted("postgresql://u:s3cret@h:5432/db") == "postgresql://u:***@h:5432/db"
    assert redacted("postgresql://h/db?sslmode=require&password=s3cret") == (
        "postgresql://h/db?sslmode=require&password=***")


def test_connection_error_names_the_url_without_the_password(monkeypatch) -> None:
    monkeypatch.setenv("SECRET_PG", "s3cret-pw")
    config = postgres_config("postgresql://app@127.0.0.1:9/db?connect_timeout=2")
    config.vector_store.api_key_env = "SECRET_PG"
    with pytest.raises(StoreError) as raised:
        create_vector_store(config, Path("."), EmbeddingSpec("m", 4))
    assert "postgresql://app:***@127.0.0.1:9/db" in str(raised.value)
    assert "s3cret-pw" not in str(raised.value)


def test_table_defaults_to_the_collection_name(postgres_server, postgres_schema) -> None:
    config = postgres_config(postgres_server.url, schema=postgres_schema)
    store = create_vector_store(config, Path("."), EmbeddingSpec("hash/m", 4))
    try:
        name = store.tables.table  # not a plain lowercase name: a readable stem and a hash
        assert re.fullmatch(r"ragloom_my_docs_v2__[0-9a-f]{12}", name)
        assert postgres_server.execute(
            f"SELECT to_regclass('\"{postgres_schema}\".{name}') IS NOT NULL") == [(True,)]
    finally:
        store.close()
