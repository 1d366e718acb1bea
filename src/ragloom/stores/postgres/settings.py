"""Where a Postgres index lives: the ``[rag.vector_store.postgres]`` table, the connection
URL with its password resolved (never printed), and the names of the index's tables."""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from typing import Literal
from urllib.parse import quote, urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict, Field

from ragloom.errors import ConfigError

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,62}$")


class PostgresSettings(BaseModel):
    """``[rag.vector_store.postgres]``: schema and table, HNSW parameters, and whether
    ragloom may create what is missing (``create = false`` for locked-down databases)."""

    model_config = ConfigDict(extra="forbid")

    schema_: str = Field("public", alias="schema")
    #: The chunk table; by default derived from ``vector_store.collection_name``.
    table: str | None = None
    m: int = Field(16, ge=2, le=100)
    ef_construction: int = Field(64, ge=4, le=1000)
    ef_search: int = Field(100, ge=1, le=1000)
    create: bool = True
    #: How BM25 runs on the server: "sql" (postings tables scored in SQL; any Postgres,
    #: scores equal the local index's) or "pg_textsearch" (that extension's BM25 index,
    #: block-max WAND top-k; needs it installed and in shared_preload_libraries).
    sparse: Literal["sql", "pg_textsearch"] = "sql"
    #: How long a second writer waits for the first to close before IndexLockedError.
    wait_for_writer_seconds: float = Field(0.0, ge=0, le=86400)


#: A collection name kept as it is in its table's name (``ragloom_<name>``).
_PLAIN = re.compile(r"^[a-z0-9]+(_[a-z0-9]+)*$")
_PLAIN_MAX = 39  #: ragloom_ + 39 = 47 characters: room for the companion objects' suffixes


def table_name(collection_name: str) -> str:
    """``collection_name`` as a Postgres identifier, one table per name: a plain lowercase
    name keeps it (``ragloom_team_docs``); any other (``Team-Docs``, ``team-docs``, a long
    one) becomes a readable stem and a hash of the exact name (``ragloom_team_docs__3f9c...``).
    A plain name never holds ``__``, so the two forms never meet; names differing only in
    case or ``-``/``_`` get different tables."""
    if _PLAIN.match(collection_name) and len(collection_name) <= _PLAIN_MAX:
        return "ragloom_" + collection_name
    stem = re.sub(r"[^a-z0-9]+", "_", collection_name.lower()).strip("_")[:24].strip("_")
    digest = hashlib.sha256(collection_name.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return f"ragloom_{stem}__{digest}" if stem else f"ragloom__{digest}"


def check_identifier(value: str, key: str) -> str:
    if not _IDENTIFIER.match(value):
        raise ConfigError(f"[rag.vector_store.postgres] {key} = {value!r} is not a plain "
                          f"identifier (letters, digits, '_'; at most 63 characters)")
    return value


@dataclass(frozen=True)
class Tables:
    """The index's tables, quoted for SQL, all in one schema beside the chunk table."""

    schema: str
    table: str

    def name(self, suffix: str = "") -> str:
        return f'"{self.schema}"."{self.table}{suffix}"'

    @property
    def chunks(self) -> str:
        return self.name()

    @property
    def info(self) -> str:
        return self.name("_info")

    @property
    def postings(self) -> str:
        return self.name("_postings")

    @property
    def lengths(self) -> str:
        return self.name("_lengths")

    @property
    def terms(self) -> str:
        return self.name("_terms")

    @property
    def stats(self) -> str:
        return self.name("_stats")

    @property
    def tokens(self) -> str:
        return self.name("_tokens")

    @property
    def symbols(self) -> str:
        return self.name("_symbols")

    @property
    def files(self) -> str:
        return self.name("_files")

    @property
    def cache(self) -> str:
        return self.name("_embeddings")

    @property
    def label(self) -> str:
        return f"{self.schema}.{self.table}"


def redacted(url: str) -> str:
    """``url`` without its password (and without a ``password=`` query parameter)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<unparseable postgres url>"
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, host = netloc.rsplit("@", 1)
        user = userinfo.split(":", 1)[0]
        netloc = f"{user}:***@{host}" if ":" in userinfo else f"{user}@{host}"
    query = re.sub(r"(?i)(password=)[^&]*", r"\1***", parts.query)
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def connection_url(url: str, password: str | None) -> str:
    """``url`` with the password from (in order) the URL itself, ``password`` (the
    ``api_key``/``api_key_env`` setting) or PGPASSWORD (which libpq also reads itself)."""
    parts = urlsplit(url)
    if parts.scheme not in ("postgresql", "postgres"):
        raise ConfigError(f"vector_store.url {redacted(url)!r} is not a postgresql:// URL")
    if parts.password is not None or "password=" in parts.query.lower():
        return url
    password = password or os.environ.get("PGPASSWORD")
    if not password:
        return url
    netloc = parts.netloc
    userinfo, at, host = netloc.rpartition("@")
    user = userinfo if at else (parts.username or "")
    host = host if at else netloc
    netloc = f"{user}:{quote(password, safe='')}@{host}" if user else f":{quote(password, safe='')}@{host}"
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))
