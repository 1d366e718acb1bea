"""The sub-tables of ``[rag]``: ``[rag.vector_store]`` (with one table per store backend,
``[rag.vector_store.<name>]``), ``[rag.prompt]``, ``[rag.chunking]`` and ``[rag.retrieval]``."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, SecretStr, field_validator, model_validator

from ragloom.config.rules import StrictModel, resolve_secret, usable_path


class VectorStoreConfig(StrictModel):
    """The ``[rag.vector_store]`` table: which store keeps the vectors and where.

    Keys of one backend live in a sub-table named after it (``[rag.vector_store.turboquant]``,
    ``[rag.vector_store.postgres]``, ``[rag.vector_store.<plugin>]``), kept in ``settings``
    and validated by the ``settings_model`` of that backend (``stores.backend.StoreBackend``)
    when the engine is built: ``stores.registry.store_settings`` gives them.
    """

    #: A built-in ("chroma", "turboquant", "postgres", "memory", "mcp"), an installed plugin, or
    #: "module:Backend" (checked against the store registry when the engine is built).
    provider: str = Field("turboquant", min_length=1)
    # Chroma's rule, applied to every store so a name works everywhere.
    collection_name: str = Field("ragloom", pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{1,510}[A-Za-z0-9]$")
    path: str | None = None
    url: str | None = None
    api_key: SecretStr | None = None
    api_key_env: str | None = None
    #: The ``[rag.vector_store.<name>]`` sub-tables, by store name, as written.
    settings: dict[str, dict[str, Any]] = Field(default_factory=dict)

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
        """Every sub-table is one store's settings, gathered in ``settings``."""
        if not isinstance(data, dict):
            return data
        known = set(cls.model_fields)
        tables = {key: value for key, value in data.items()
                  if key not in known and isinstance(value, dict)}
        if not tables:
            return data
        data = {key: value for key, value in data.items() if key not in tables}
        data["settings"] = {**data.get("settings", {}), **tables}
        return data

    @field_validator("path")
    @classmethod
    def _path_usable(cls, path: str | None) -> str | None:
        return None if path is None else usable_path(path)

    def resolved_api_key(self) -> str | None:
        """The store API key from ``api_key`` or the environment variable ``api_key_env``."""
        return resolve_secret(self.api_key, self.api_key_env, "vector_store.api_key_env")


_OPTIONAL_TEXT = frozenset({"path", "url", "api_key", "api_key_env"})


class PromptConfig(StrictModel):
    """The ``[rag.prompt]`` table: what ``send()`` and conversations put in front of the model
    (``integrations.context``); the core engine never reads it."""

    #: What goes in front of the model: search per message, whole files, or whichever fits.
    strategy: Literal["rag", "preload", "auto"] = "rag"
    #: Token budget of the context block (wins over context_budget).
    context_budget_tokens: int | None = Field(None, ge=1, le=10_000_000)
    #: Budget as a share of the model's context window (known for the default models).
    context_budget: float | None = Field(None, gt=0.0, le=1.0)
    #: Say in one line that nothing was retrieved, so the model does not invent sources.
    no_results_notice: bool = False
    no_results_notice_text: str = "No project documents were retrieved for this question."

    @model_validator(mode="after")
    def _preloading_needs_a_budget(self) -> PromptConfig:
        if self.strategy != "rag" and self.context_budget_tokens is None and self.context_budget is None:
            raise ValueError(f"strategy {self.strategy!r} needs a budget: set context_budget_tokens "
                             f"(tokens) or context_budget (a share of the model's window)")
        return self


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
    rrf_k: int = Field(60, ge=1, le=100_000)
    dense_weight: float = Field(0.6, ge=0.0, le=100.0)
    sparse_weight: float = Field(0.4, ge=0.0, le=100.0)
    candidate_k: int = Field(200, ge=1, le=10_000)
    #: A query naming a part of the application (migrations, routes, config, ...) none of its
    #: first files is inside adds this many of the part's own best BM25 chunks to the
    #: candidates (0: none; ``retrieval.part_lookup``).
    part_lookup: int = Field(2, ge=0, le=100)
    feedback: bool = False
    feedback_docs: int = Field(10, ge=1, le=1000)
    feedback_terms: int = Field(10, ge=1, le=1000)
    feedback_weight: float = Field(1.0, ge=0.0, le=100.0)
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
    #: At most this many results from one file (one more for a close part of a file of
    #: definitions, ``retrieval.file_cap``), unless the other files' results match much less or
    #: run out (0: no cap).
    max_per_file: int = Field(1, ge=0, le=10_000)
    #: A reranker (from a plugin's ``ragloom.rerankers`` entry point, or a
    #: ``module:factory`` path) rescoring the best ``rerank_k`` fused candidates.
    reranker: str | None = Field(None, min_length=1)
    rerank_k: int = Field(50, ge=1, le=1000)
    #: Rank scores of test chunks are multiplied by this unless the query is about tests
    #: (``retrieval.test_prior``); 1 turns the prior off.
    test_weight: float = Field(0.2, gt=0.0, le=1.0)
    #: Rank scores of import-block chunks (``kind = "imports"``) are multiplied by this
    #: unless the query is about imports (``retrieval.import_prior``); 0 puts them last,
    #: 1 turns the prior off.
    import_weight: float = Field(0.0, ge=0.0, le=1.0)
    #: Rank scores of route, URL-conf, configuration, server-template and component chunks are
    #: multiplied by this for a question about how something works that names none of them
    #: (``retrieval.wiring_prior``); 1 turns the prior off.
    wiring_weight: float = Field(0.7, gt=0.0, le=1.0)
    #: false: test chunks are never returned (a ``source_type != test`` filter).
    include_tests: bool = True
    #: Contextual compression: each result keeps only the lines that bear on the query
    #: (``retrieval/compression.py``); ``search(compress=...)`` overrides it per call.
    compress: bool = False
    #: Lines kept either side of a kept line (one scoring ``compress_threshold``).
    compress_window: int = Field(1, ge=0, le=1000)
    #: A line is kept when its query-term score reaches this share of the best line's.
    compress_threshold: float = Field(0.7, gt=0.0, le=1.0)
    #: A result whose cosine is at least this share of the best result's stays whole
    #: (above 1: none is spared).
    compress_whole_share: float = Field(0.9, ge=0.0, le=10.0)
    #: The first this many results stay whole (0: none is spared by rank).
    compress_whole_top: int = Field(2, ge=0, le=1000)
    #: A result at least this share of whose lines score ``compress_dense_threshold`` of the
    #: best line's stays whole (above 1: none is spared so).
    compress_dense_share: float = Field(0.3, ge=0.0, le=10.0)
    #: The share of the best line's score a line needs to count for ``compress_dense_share``.
    compress_dense_threshold: float = Field(0.3, gt=0.0, le=1.0)
