"""API keys never reach logs, errors, reprs or anything written to disk."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

pytest.importorskip("google.genai")

from fakes.gemini_server import FakeGeminiServer  # noqa: E402
from helpers import write  # noqa: E402
from ragloom import EmbeddingError, RAGConfig, RAGEngine  # noqa: E402

KEY = "AIzaSy-THIS-IS-THE-SECRET-KEY-0042"
STORE_TOKEN = "chroma-token-SECRET-0043"


def test_keys_never_leak(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                         caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setenv("MY_KEY", KEY)
    write(tmp_path, "a.md", "# Doc\nrockets and orbits\n")
    with FakeGeminiServer() as server, caplog.at_level(logging.DEBUG):
        config = RAGConfig.model_validate({
            "embedding_provider": "gemini", "embedding_dim": 64, "api_key_env": "MY_KEY",
            "embedding_base_url": server.base_url, "embedding_max_retries": 1,
            "vector_store": {"provider": "turboquant", "api_key": STORE_TOKEN}})
        with RAGEngine(config, tmp_path) as engine:
            engine.index_directory()
            engine.search("orbit")
            server.fail_next(401, "API key not valid", times=5)
            with pytest.raises(EmbeddingError) as failure:
                engine.search("fails now")
            texts = [repr(engine), repr(engine.config), str(engine.config.model_dump()),
                     str(failure.value), repr(failure.value), caplog.text,
                     str(engine.status().to_dict())]
    for text in texts:
        assert KEY not in text and STORE_TOKEN not in text
    for path in tmp_path.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert KEY.encode() not in data and STORE_TOKEN.encode() not in data, path
