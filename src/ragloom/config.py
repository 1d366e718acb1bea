"""Configuration: pydantic models for the ``[rag]`` TOML table and ``load_config``.

Every model forbids unknown keys, so a typo in the TOML fails loudly with the key's name.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    SecretStr,
    ValidationError,
    field_validator,
    model_validator,
)

from ragloom.errors import ConfigError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib



class StrictModel(BaseModel):
    """Base for every config model: unknown keys are errors, assignments are validated, and
    a float is never NaN or infinite (``min_score = nan`` would silence every search)."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True, allow_inf_nan=False)


class TurboQuantSettings(StrictModel):
    """The ``[rag.vector_store.turboquant]`` table."""

    bits: int = Field(4, ge=1, le=8)
    residual: bool = False
    refine_bits: int = Field(0, ge=0, le=8)
    first_pass: int = Field(4000, ge=1)


class VectorStoreConfig(StrictModel):
    """The ``[rag.vector_store]`` table: which store keeps the vectors and where.

    Keys of one backend live in a sub-table named after it (``[rag.vector_store.turboquant]``),
    validated by that backend's own model; a plugin store declares its model as the
    ``settings_model`` attribute of its factory.
    """

    #: A built-in ("chroma", "turboquant", "postgres", "mock", "mcp"), an installed plugin, or
    #: "module:factory" (checked against the store registry when the engine is built).
    provider: str = Field("chroma", min_length=1)
    # Chroma's rule, applied to every store so a name works everywhere.
    collection_name: str = Field("ragloom", pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{1,510}[A-Za-z0-9]$")
    path: str | None = None
    url: str | None = None
    api_key: SecretStr | None = None
    api_key_env: str | None = None
    mcp_server: str | None = None
    mcp_tool: str | None = None
    turboquant: TurboQuantSettings = Field(default_factory=TurboQuantSettings)
    #: Sub-tables of plugin stores, by store name (validated by their ``settings_model``
    #: when the engine is built; ``stores.registry.store_settings`` gives them).
    plugin_settings: dict[str, dict[str, Any]] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _empty_means_unset(cls, data: Any) -> Any:
        """``url = ""``, ``api_key = ""`` ... (as the desktop client's config writes them)
        mean "not set"."""
        if isinstance(data, dict):
            return {key: None if key in _OPTIONAL_TEXT and value == "" else value
                    for key, value in data.items()}
        return data

    @model_validator(mode="before")
    @classmethod
    def _sub_tables(cls, data: Any) -> Any:
        """A moved key names its new table; any other sub-table is a plugin store's
        settings (checked against that store when the engine is built: ``check_config``)."""
        if not isinstance(data, dict):
            return data
        _refuse_moved_keys(data, _MOVED_FROM_VECTOR_STORE, "[rag.vector_store]")
        known = set(cls.model_fields)
        plugin_tables = {key: value for key, value in data.items()
                         if key not in known and isinstance(value, dict)}
        if not plugin_tables:
            return data
        data = {key: value for key, value in data.items() if key not in plugin_tables}
        data["plugin_settings"] = {**data.get("plugin_settings", {}), **plugin_tables}
        return data

    @field_validator("path")
    @classmethod
    def _path_usable(cls, path: str | None) -> str | None:
        return None if path is None else _usable_path(path)

    @model_validator(mode="after")
    def _mcp_keys_need_the_mcp_store(self) -> VectorStoreConfig:
        if self.provider == "mcp" and self.mcp_server is None:
            raise ValueError("provider 'mcp' (the MCP bridge store) needs mcp_server: a command "
                             "line that starts the server, or its http(s):// URL")
        for key in ("mcp_server", "mcp_tool"):
            if getattr(self, key) is not None and self.provider != "mcp":
                raise ValueError(f"{key} is set but provider is {self.provider!r}; {key} is for "
                                 f"the MCP bridge store (provider = \"mcp\")")
        return self

    def resolved_api_key(self) -> str | None:
        """The store API key from ``api_key`` or the environment variable ``api_key_env``."""
        return resolve_secret(self.api_key, self.api_key_env, "vector_store.api_key_env")


#: Keys that moved to a table: key -> where it lives now.
_MOVED_FROM_RAG = {key: "[rag.retrieval]" for key in ("hybrid", "mmr", "mmr_lambda")}
_MOVED_FROM_VECTOR_STORE = {key: "[rag.vector_store.turboquant]"
                            for key in ("bits", "residual", "refine_bits", "first_pass")}
_OPTIONAL_TEXT = frozenset({"path", "url", "api_key", "api_key_env", "mcp_server", "mcp_tool"})


class ChunkingConfig(StrictModel):
    """The ``[rag.chunking]`` table: how files are cut into chunks."""

    sentence_boundaries: bool = False
    ast_chunking: bool = True
    markdown_chunking: bool = True
    markdown_heading_level: int = Field(3, ge=1, le=6)
    #: Embed and BM25-index each file chunk with a "path: symbol" header line in front.
    embed_header: bool = True


class RetrievalConfig(StrictModel):
    """The ``[rag.retrieval]`` table: how dense and BM25 results are fused."""

    fusion: Literal["rrf", "score"] = "score"
    rrf_k: int = Field(60, ge=1)
    dense_weight: float = Field(0.6, ge=0.0)
    sparse_weight: float = Field(0.4, ge=0.0)
    candidate_k: int = Field(100, ge=1, le=10_000)
    feedback: bool = False
    feedback_docs: int = Field(10, ge=1, le=1000)
    feedback_terms: int = Field(10, ge=1, le=1000)
    feedback_weight: float = Field(1.0, ge=0.0)
    stemming: bool = True
    stopwords: bool = True
    split_identifiers: bool = True
    #: Fuse BM25 with dense retrieval (false: dense only).
    hybrid: bool = True
    #: Re-rank the candidates with Maximal Marginal Relevance for diversity.
    mmr: bool = False
    mmr_lambda: float = Field(0.5, ge=0.0, le=1.0)
    #: A query naming an identifier defined in the corpus ranks its definition first.
    exact_names: bool = True
    #: Adjacent parts of one function or section that both rank become one result.
    merge_parts: bool = True
    #: Chunks with identical text in several files take one slot (``metadata["paths"]``).
    collapse_duplicates: bool = True
    #: A reranker (from a plugin's ``ragloom.rerankers`` entry point, or a
    #: ``module:factory`` path) rescoring the best ``rerank_k`` fused candidates.
    reranker: str | None = Field(None, min_length=1)
    rerank_k: int = Field(50, ge=1, le=1000)


class RAGConfig(StrictModel):
    """The ``[rag]`` table: everything a RAGEngine needs to know."""

    enabled: bool = True
    #: A built-in ("local", "gemini", "hash"), an installed plugin, or "module:factory"
    #: (checked against the provider registry when the engine is built).
    embedding_provider: str = Field("local", min_length=1)
    embedding_model: str | None = None
    embedding_dim: int | None = Field(None, ge=1, le=65536)
    #: Texts per forward pass of the local model; None: 8 on a CPU (small batches pad least,
    #: which suits a CPU), 64 on an accelerator.
    embedding_batch_size: int | None = Field(None, ge=1, le=100_000)
    embedding_device: str | None = None
    embedding_max_seq_length: int | None = Field(None, ge=1)
    #: How the local model runs: "torch", ONNX Runtime "onnx" (fp32) or "onnx-int8", or
    #: "auto" (onnx-int8 when ONNX Runtime and onnx are installed, as ragloom[local] does,
    #: else torch). See bench/embedding_throughput.py.
    embedding_backend: Literal["torch", "onnx", "onnx-int8", "auto"] = "auto"
    embedding_base_url: str | None = None
    embedding_concurrency: int = Field(4, ge=1, le=64)
    embedding_max_retries: int = Field(5, ge=0, le=20)
    embedding_cache: bool = True
    api_key: SecretStr | None = None
    api_key_env: str | None = None
    #: Size unit: "tokens" of the embedding model (default when chunk_size is unset) or
    #: "characters" (default when chunk_size is given alone, as before token sizing).
    chunk_unit: Literal["tokens", "characters"] | None = None
    chunk_size: int | None = Field(None, ge=1)  # None: the model's window, or 1000 characters
    chunk_overlap: int | None = Field(None, ge=0)  # None: a fifth of chunk_size
    top_k: int = Field(5, ge=1, le=10_000)
    min_score: float | None = None
    #: No results at all when none reaches this cosine (None: the embedding model's
    #: measured gate, 0.35 for all-MiniLM-L6-v2; -1 turns the gate off).
    relevance_gate: float | None = Field(None, ge=-1.0, le=1.0)
    respect_gitignore: bool = True
    redact_secrets: bool = True
    include: list[str] = Field(default_factory=list)
    exclude: list[str] = Field(default_factory=list)
    max_file_bytes: int = Field(10_000_000, ge=1)
    index_dir: str = ".ragloom"
    auto_sync_interval_seconds: float | None = Field(None, gt=0)
    chunking: ChunkingConfig = Field(default_factory=ChunkingConfig)
    retrieval: RetrievalConfig = Field(default_factory=RetrievalConfig)
    vector_store: VectorStoreConfig = Field(default_factory=VectorStoreConfig)
    #: What goes in front of the model: search per message, whole files, or whichever fits.
    strategy: Literal["rag", "preload", "auto"] = "rag"
    #: Token budget of the context block (wins over context_budget).
    context_budget_tokens: int | None = Field(None, ge=1)
    #: Budget as a share of the model's context window (known for the default models).
    context_budget: float | None = Field(None, gt=0.0, le=1.0)
    #: Say in one line that nothing was retrieved, so the model does not invent sources.
    no_results_notice: bool = False
    no_results_notice_text: str = "No project documents were retrieved for this question."
    #: ``[rag.source_types]``: source type -> path globs, checked before the defaults.
    source_types: dict[str, list[str]] = Field(default_factory=dict)
    _source_file: Path | None = PrivateAttr(None)

    @property
    def source_file(self) -> Path | None:
        """The TOML file this config was read from (never indexed: it may hold keys)."""
        return self._source_file

    def resolved_api_key(self) -> str | None:
        """The Gemini API key from ``api_key`` or the variable named by ``api_key_env``."""
        return resolve_secret(self.api_key, self.api_key_env, "api_key_env")

    @field_validator("source_types")
    @classmethod
    def _source_type_names(cls, types: dict[str, list[str]]) -> dict[str, list[str]]:
        for name, globs in types.items():
            if not name.replace("_", "").replace("-", "").isalnum():
                raise ValueError(f"source type {name!r} must be letters, digits, '-' or '_'")
            _valid_globs(globs)
        return types

    @field_validator("include", "exclude")
    @classmethod
    def _globs_compile(cls, globs: list[str]) -> list[str]:
        return _valid_globs(globs)

    @field_validator("index_dir")
    @classmethod
    def _index_dir_usable(cls, path: str) -> str:
        return _usable_path(path)

    @model_validator(mode="before")
    @classmethod
    def _moved_keys(cls, data: Any) -> Any:
        if isinstance(data, dict):
            _refuse_moved_keys(data, _MOVED_FROM_RAG, "[rag]")
        return data

    @model_validator(mode="after")
    def _preloading_needs_a_budget(self) -> RAGConfig:
        if self.strategy != "rag" and self.context_budget_tokens is None and self.context_budget is None:
            raise ValueError(f"strategy {self.strategy!r} needs a budget: set context_budget_tokens "
                             f"(tokens) or context_budget (a share of the model's window)")
        return self

    @model_validator(mode="after")
    def _overlap_below_size(self) -> RAGConfig:
        if (self.chunk_overlap is not None and self.chunk_size is not None
                and self.chunk_overlap >= self.chunk_size):
            raise ValueError(
                f"chunk_overlap ({self.chunk_overlap}) must be smaller than "
                f"chunk_size ({self.chunk_size})"
            )
        return self


def _refuse_moved_keys(data: dict[str, Any], moved: dict[str, str], table: str) -> None:
    """A key written where it used to live says where it lives now."""
    for key in data:
        if key in moved:
            raise ValueError(f"'{key}' moved from {table} to {moved[key]}; write it there")


def _usable_path(path: str) -> str:
    """A path setting the file system can take (a NUL byte would fail deep in ``open``)."""
    if "\0" in path:
        raise ValueError("a path cannot contain a NUL byte")
    return path


def _valid_globs(globs: list[str]) -> list[str]:
    """``globs`` if each compiles (a reversed class range such as ``[z-a]`` does not)."""
    from ragloom.globs import GlobError, compile_glob

    for glob in globs:
        try:
            compile_glob(glob)
        except GlobError as exc:
            raise ValueError(str(exc)) from None
    return globs


def resolve_secret(value: SecretStr | None, env_var: str | None, key: str) -> str | None:
    """Return the secret given inline, else read it from ``env_var``; a named but unset
    variable is a ConfigError (naming the variable, never a value)."""
    if value is not None:
        return value.get_secret_value()
    if env_var is None:
        return None
    secret = os.environ.get(env_var)
    if not secret:
        raise ConfigError(f"key '{key}' names environment variable {env_var!r}, which is not set")
    return secret


#: Keys whose values are credentials or name where they are: shown as ``***`` in errors.
_SECRET_KEY = re.compile(r"(?i)key|token|secret|passw|credential|auth")


def _describe_errors(exc: ValidationError, source: str) -> str:
    """One line per pydantic error: where, which key, which value, what is wrong."""
    from ragloom.security import redact_secrets  # its patterns compile on import: only here

    lines = []
    for error in exc.errors():
        key = ".".join(str(part) for part in error["loc"])
        message = error["msg"].removeprefix("Value error, ")
        if not key:
            lines.append(f"{source}: {message}")
            continue
        if error["type"] == "extra_forbidden":
            lines.append(f"{source}: unknown key '{key}'")
            continue
        value = error.get("input")
        if isinstance(value, dict):
            lines.append(f"{source}: key '{key}': {message}")
        elif _SECRET_KEY.search(key):  # a key misplaced here must not reach a log or a terminal
            lines.append(f"{source}: key '{key}' = '***': {message}")
        else:
            lines.append(f"{source}: key '{key}' = {redact_secrets(repr(value)).text}: {message}")
    return "\n".join(lines)


def parse_config(data: dict[str, Any], source: str = "[rag]") -> RAGConfig:
    """Validate a ``[rag]`` table already parsed into a dict; errors name ``source`` and the key."""
    try:
        return RAGConfig.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(_describe_errors(exc, source)) from None


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
    section: Any = document
    for part in table.split("."):
        if not isinstance(section, dict) or part not in section:
            raise ConfigError(f"{file}: no [{table}] table")
        section = section[part]
    if not isinstance(section, dict):
        raise ConfigError(f"{file}: [{table}] must be a table, got {type(section).__name__}")
    config = parse_config(section, source=f"{file} [{table}]")
    config._source_file = file.resolve()
    return config
