"""Configuration: the ``[rag]`` TOML table (``RAGConfig``) and reading it (``load_config``).

Its sub-tables are in ``config.tables`` and the rules every model shares in ``config.rules``.
Every model forbids unknown keys, so a typo in the TOML fails loudly with the key's name.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, PrivateAttr, ValidationError, field_validator, model_validator

from ragloom.config.embedding import EmbeddingConfig
from ragloom.config.limits import LimitsConfig
from ragloom.config.messages import describe_errors
from ragloom.config.rules import (
    StrictModel,
    usable_path,
    valid_globs,
)
from ragloom.config.tables import ChunkingConfig, PromptConfig, RetrievalConfig, VectorStoreConfig
from ragloom.errors import ConfigError
from ragloom.tenancy import check_tenant

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

#: The rules of ``indexing.noise.NOISE_RULES`` by name (a test keeps the two equal).
NoiseRuleName = Literal["lock-file", "minified", "source-map", "build-output", "snapshot",
                        "vendored", "rendered-docs", "symlink-copy", "long-lines", "translations",
                        "svg-image", "postscript", "app-storage", "generated", "editor-syntax",
                        "nested-license", "dependency-licenses", "ignore-files", "hashed-copy", "agent-files",
                        "collected-static", "reverse-migration", "data-fixtures"]

class RAGConfig(StrictModel):
    """The ``[rag]`` table: everything a RAGEngine needs to know."""

    enabled: bool = True
    #: ``[rag.embedding]``: the embedding model and how it runs.
    embedding: EmbeddingConfig = Field(default_factory=EmbeddingConfig)
    #: Size unit: "tokens" of the embedding model (default when chunk_size is unset) or
    #: "characters" (default when chunk_size is given alone, as before token sizing).
    chunk_unit: Literal["tokens", "characters"] | None = None
    chunk_size: int | None = Field(None, ge=1, le=1_000_000)  # None: the model's window, or 1000 characters
    chunk_overlap: int | None = Field(None, ge=0, le=1_000_000)  # None: a fifth of chunk_size
    top_k: int = Field(5, ge=1, le=10_000)
    #: A cosine: results below it are dropped.
    min_score: float | None = Field(None, ge=-1.0, le=1.0)
    #: No results at all when none reaches this cosine (None: the embedding model's
    #: measured gate, 0.35 for all-MiniLM-L6-v2; false: no gate).
    relevance_gate: float | Literal[False] | None = None
    respect_gitignore: bool = True
    redact_secrets: bool = True
    include: list[str] = Field(default_factory=list)
    exclude: list[str] = Field(default_factory=list)
    max_file_bytes: int = Field(10_000_000, ge=1, le=10_000_000_000)
    #: Index to BM25 first and embed behind, so searches answer from the first seconds
    #: (indexing.backfill); false: each window is searchable once embedded.
    progressive_indexing: bool = True
    #: The noise rules (lock files, minified and compiled files, ...) that skip files;
    #: None: every rule, []: none.
    skip_noise: list[NoiseRuleName] | None = None
    index_dir: str = ".ragloom"
    #: The one tenant this engine reads and writes (``ragloom.tenancy``); None: no tenant.
    tenant: str | None = None
    auto_sync_interval_seconds: float | None = Field(None, gt=0, le=604_800)
    chunking: ChunkingConfig = Field(default_factory=ChunkingConfig)
    retrieval: RetrievalConfig = Field(default_factory=RetrievalConfig)
    vector_store: VectorStoreConfig = Field(default_factory=VectorStoreConfig)
    #: ``[rag.limits]``: chunks, files and bytes per collection, turns per session.
    limits: LimitsConfig = Field(default_factory=LimitsConfig)
    #: ``[rag.prompt]``: what ``send()`` and conversations put in front of the model.
    prompt: PromptConfig = Field(default_factory=PromptConfig)
    #: ``[rag.source_types]``: source type -> path globs, checked before the defaults.
    source_types: dict[str, list[str]] = Field(default_factory=dict)
    _source_file: Path | None = PrivateAttr(None)
    _source_table: str = PrivateAttr("rag")

    @property
    def source_file(self) -> Path | None:
        """The TOML file this config was read from (never indexed: it may hold keys)."""
        return self._source_file

    @property
    def source(self) -> str | None:
        """Where this config was read, as errors name it (``/app/ragloom.toml [rag]``);
        None for a config built in code."""
        return None if self._source_file is None else f"{self._source_file} [{self._source_table}]"

    @field_validator("source_types")
    @classmethod
    def _source_type_names(cls, types: dict[str, list[str]]) -> dict[str, list[str]]:
        for name, globs in types.items():
            if not name.replace("_", "").replace("-", "").isalnum():
                raise ValueError(f"source type {name!r} must be letters, digits, '-' or '_'")
            valid_globs(globs)
        return types

    @field_validator("include", "exclude")
    @classmethod
    def _globs_compile(cls, globs: list[str]) -> list[str]:
        return valid_globs(globs)

    @field_validator("relevance_gate", mode="before")
    @classmethod
    def _gate_is_a_cosine_or_false(cls, gate: Any) -> Any:
        if gate is None or gate is False:
            return gate
        if isinstance(gate, bool) or not isinstance(gate, (int, float)) or not -1 <= gate <= 1:
            raise ValueError("must be a cosine in [-1, 1], or false for no gate")
        return gate

    @field_validator("tenant")
    @classmethod
    def _tenant_name(cls, tenant: str | None) -> str | None:
        return None if tenant is None else check_tenant(tenant)

    @field_validator("index_dir")
    @classmethod
    def _index_dir_usable(cls, path: str) -> str:
        return usable_path(path)

    @model_validator(mode="after")
    def _overlap_below_size(self) -> RAGConfig:
        if (self.chunk_overlap is not None and self.chunk_size is not None
                and self.chunk_overlap >= self.chunk_size):
            raise ValueError(
                f"chunk_overlap ({self.chunk_overlap}) must be smaller than "
                f"chunk_size ({self.chunk_size})"
            )
        return self


def parse_config(data: dict[str, Any], source: str = "[rag]") -> RAGConfig:
    """Validate a ``[rag]`` table already parsed into a dict; errors name ``source`` and the key."""
    try:
        return RAGConfig.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(describe_errors(exc, source, RAGConfig)) from None


def load_config(path: str | os.PathLike[str], table: str = "rag") -> RAGConfig:
    """Read the ``[rag]`` table (or a dotted ``table`` such as ``tool.ragloom``) of a TOML file."""
    file = Path(path)
    try:
        with file.open("rb") as handle:
            document = tomllib.load(handle)
    except FileNotFoundError:
        raise ConfigError(f"{file}: config file not found") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{file}: invalid TOML: {exc}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{file}: not UTF-8 text (byte {exc.start}), as TOML must be") from None
    except RecursionError:
        raise ConfigError(f"{file}: invalid TOML: tables or arrays nested too deep") from None
    except OSError as exc:
        raise ConfigError(f"{file}: cannot read the config file: {exc.strerror or exc}") from None
    section: Any = document
    for part in table.split("."):
        if not isinstance(section, dict) or part not in section:
            raise ConfigError(f"{file}: no [{table}] table")
        section = section[part]
    if not isinstance(section, dict):
        raise ConfigError(f"{file}: [{table}] must be a table, got {type(section).__name__}")
    config = parse_config(section, source=f"{file} [{table}]")
    config._source_file, config._source_table = file.resolve(), table
    return config
