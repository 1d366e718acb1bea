"""The Gemini provider through the real google-genai SDK against a local fake Gemini server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("google.genai", reason="the gemini extra is not installed")

from fakes.gemini_server import FULL_DIMENSION, FakeGeminiServer  # noqa: E402
from ragloom import ConfigError, EmbeddingError, RAGConfig, RAGEngine  # noqa: E402
from ragloom.embeddings.gemini import GeminiEmbeddingProvider  # noqa: E402
from ragloom.indexing import indexer  # noqa: E402
from ragloom.testing.embeddings import EmbedderConformance  # noqa: E402

API_KEY = "test-key-DO-NOT-LEAK-1234"


@pytest.fixture
def server() -> Iterator[FakeGeminiServer]:
    with FakeGeminiServer() as fake:
        yield fake


def provider(server: FakeGeminiServer, dimension: int | None = 768, **options) -> GeminiEmbeddingProvider:
    sleeps: list[float] = []
    built = GeminiEmbeddingProvider("gemini-embedding-001", dimension, api_key=API_KEY,
                                    base_url=server.base_url, sleep=sleeps.append, **options)
    built.sleeps = sleeps  # type: ignore[attr-defined]
    return built


def test_batches_split_at_the_api_limit_and_keep_order(server: FakeGeminiServer) -> None:
    texts = [f"text number {i}" for i in range(250)]
    vectors = provider(server).embed(texts)
    sizes = sorted(len(call.body["requests"]) for call in server.calls("batchEmbedContents"))
    assert sizes == [50, 100, 100]
    for row in (0, 99, 100, 249):
        expected = server.embedding_of(texts[row], 768)
        assert np.allclose(vectors[row], expected / np.linalg.norm(expected), atol=1e-5)


def test_task_types_and_dimension_are_sent(server: FakeGeminiServer) -> None:
    gemini = provider(server)
    gemini.embed_documents(["a document"])
    gemini.embed_query("a query")
    document_call, query_call = server.calls("batchEmbedContents")
    assert document_call.body["requests"][0]["taskType"] == "RETRIEVAL_DOCUMENT"
    assert query_call.body["requests"][0]["taskType"] == "RETRIEVAL_QUERY"
    assert document_call.body["requests"][0]["outputDimensionality"] == 768
    assert document_call.headers["x-goog-api-key"] == API_KEY


def test_reduced_dimension_is_renormalized(server: FakeGeminiServer) -> None:
    vectors = provider(server, dimension=256).embed(["one", "two words"])
    assert vectors.shape == (2, 256)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_full_dimension_by_default(server: FakeGeminiServer) -> None:
    gemini = provider(server, dimension=None)
    assert gemini.dimension == FULL_DIMENSION
    assert gemini.embed(["x"]).shape == (1, FULL_DIMENSION)
    assert "outputDimensionality" not in server.calls("batchEmbedContents")[0].body["requests"][0]


def test_429_then_success_retries_honouring_retry_after(server: FakeGeminiServer) -> None:
    server.fail_next(429, "quota", times=2, headers={"Retry-After": "3"})
    gemini = provider(server, initial_backoff=0.01)
    vectors = gemini.embed(["retry me"])
    assert vectors.shape == (1, 768)
    assert len(server.calls("batchEmbedContents")) == 3
    assert gemini.sleeps == [3.0, 3.0]  # type: ignore[attr-defined]


def test_500_and_503_are_retried_with_growing_backoff(server: FakeGeminiServer) -> None:
    server.fail_next(500)
    server.fail_next(503)
    gemini = provider(server, initial_backoff=1.0)
    gemini.embed(["x"])
    first, second = gemini.sleeps  # type: ignore[attr-defined]
    assert 0.5 <= first <= 1.0 and 1.0 <= second <= 2.0


def test_retries_give_up_with_a_clear_error(server: FakeGeminiServer) -> None:
    server.fail_next(503, "overloaded", times=10)
    with pytest.raises(EmbeddingError, match=r"'gemini-embedding-001' failed after 3 attempts with HTTP 503"):
        provider(server, max_retries=2, initial_backoff=0.0).embed(["x"])
    assert len(server.calls("batchEmbedContents")) == 3


@pytest.mark.parametrize("status", [400, 401, 403])
def test_client_errors_fail_fast_without_the_key(server: FakeGeminiServer, status: int) -> None:
    server.fail_next(status, "API key not valid or bad request")
    with pytest.raises(EmbeddingError) as info:
        provider(server).embed(["x"])
    message = str(info.value)
    assert f"HTTP {status}" in message and "'gemini-embedding-001'" in message
    assert "bad request" in message
    assert API_KEY not in message and API_KEY not in repr(info.value)
    assert len(server.calls("batchEmbedContents")) == 1


def test_unreachable_server_is_a_clear_error() -> None:
    gemini = GeminiEmbeddingProvider(api_key=API_KEY, base_url="http://127.0.0.1:9",
                                     max_retries=1, sleep=lambda s: None)
    with pytest.raises(EmbeddingError, match="unreachable after 2 attempt"):
        gemini.embed(["x"])


def test_missing_api_key_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in ("GEMINI_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.delenv(variable, raising=False)
    with pytest.raises(ConfigError, match="needs a Gemini API key"):
        GeminiEmbeddingProvider()


def test_unknown_model_needs_a_dimension() -> None:
    with pytest.raises(ConfigError, match="'embedding.dim' must be set"):
        GeminiEmbeddingProvider("my-tuned-model", api_key=API_KEY)


def test_ready_client_can_be_handed_in(server: FakeGeminiServer) -> None:
    from google import genai

    client = genai.Client(api_key=API_KEY, http_options=genai.types.HttpOptions(base_url=server.base_url))
    assert GeminiEmbeddingProvider(dimension=64, client=client).embed(["x"]).shape == (1, 64)


def test_engine_with_gemini_from_config(server: FakeGeminiServer, tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_GEMINI_KEY", API_KEY)
    config = RAGConfig.model_validate({
        "embedding": {"provider": "gemini", "dim": 128, "base_url": server.base_url,
                      "api_key_env": "MY_GEMINI_KEY"},
        "vector_store": {"provider": "memory"},
    })
    (tmp_path / "a.txt").write_text("rockets launch satellites into orbit")
    (tmp_path / "b.txt").write_text("apples and pears are fruit")
    with RAGEngine(config, tmp_path) as engine:
        engine.index_directory()
        assert engine.search("rockets orbit", top_k=1)[0].metadata["path"] == "a.txt"
        tasks = [c.body["requests"][0]["taskType"] for c in server.calls("batchEmbedContents")]
        assert tasks == ["RETRIEVAL_DOCUMENT", "RETRIEVAL_QUERY"]
    for written in tmp_path.rglob("*"):
        if written.is_file():
            assert API_KEY.encode() not in written.read_bytes(), written


def test_an_outage_keeps_every_batch_already_embedded(server: FakeGeminiServer, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """4 good batches, then HTTP 500s: the run fails, the first window (256 notes: batches of
    100, 100, 56) is stored whole, the next one not at all, and the rerun embeds only what no
    batch embedded (294 - 100 notes)."""
    monkeypatch.setenv("MY_GEMINI_KEY", API_KEY)
    monkeypatch.setattr(indexer, "FIRST_WINDOW_CHUNKS", 256)
    config = RAGConfig.model_validate({
        "embedding": {"provider": "gemini", "dim": 64, "base_url": server.base_url, "concurrency": 1,
                      "max_retries": 0, "api_key_env": "MY_GEMINI_KEY"},
        "vector_store": {"provider": "turboquant"},
    })
    for index in range(550):
        (tmp_path / f"note{index:03d}.txt").write_text(f"note number {index} about topic {index % 7}")
    server.succeed_next(4)
    server.fail_next(500, "backend unavailable", times=10)
    with RAGEngine(config, tmp_path) as engine:
        with pytest.raises(EmbeddingError, match="HTTP 500"):
            engine.index_directory()
        assert engine.count() == 256  # nothing half-written: the failed window never reached the store
    assert len(server.calls("batchEmbedContents")) == 5
    server.failures.clear()
    with RAGEngine(config, tmp_path) as engine:
        report = engine.index_directory()
        assert report.chunks_embedded == 194 and engine.count() == 550
        assert engine.verify().ok
    assert len(server.calls("batchEmbedContents")) == 5 + 3  # windows of 256 (156 new: 100 + 56) and 38


class TestGeminiEmbedderConformance(EmbedderConformance):
    """The SDK's real request/response path against the fake server."""

    @pytest.fixture
    def provider(self, server: FakeGeminiServer) -> GeminiEmbeddingProvider:
        return provider(server, 768)


def test_a_repeated_search_sends_no_request_and_a_document_never_answers_a_query(
        server: FakeGeminiServer, tmp_path: Path) -> None:
    """The query asked again, in this engine or the next, is not sent again; a query
    whose text equals an indexed chunk's is still sent with RETRIEVAL_QUERY."""
    config = RAGConfig.model_validate({
        "embedding": {"provider": "gemini", "dim": 128, "base_url": server.base_url, "api_key": API_KEY},
        "vector_store": {"provider": "turboquant"},
        "chunking": {"embed_header": False}})
    (tmp_path / "a.txt").write_text("rockets launch satellites into orbit")
    with RAGEngine(config, tmp_path) as engine:
        engine.index_directory()
        for _ in range(2):
            engine.search("rockets launch satellites into orbit")
    with RAGEngine(config, tmp_path) as engine:
        engine.search("rockets launch satellites into orbit")
    tasks = [c.body["requests"][0]["taskType"] for c in server.calls("batchEmbedContents")]
    assert tasks == ["RETRIEVAL_DOCUMENT", "RETRIEVAL_QUERY"]
