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
            "embedding": {"provider": "gemini", "dim": 64, "base_url": server.base_url, "max_retries": 1,
                          "api_key_env": "MY_KEY"},
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


def test_secrets_in_project_files_never_reach_the_prompt_or_the_embedding_api(tmp_path: Path) -> None:
    """The new-user case: a key in app.toml, an OpenAI key in settings.py, a GitHub token in
    notes.md. None of them is embedded (sent to Gemini), stored, or put into the context."""
    from ragloom import format_context, load_config

    google = "AIza" + "SyD3" * 8 + "abc"
    openai = "sk-proj-" + "Ab3dEf6hIj9kLm2n" * 3
    github = "ghp_" + "a1B2c3D4e5F6" * 3
    with FakeGeminiServer() as server:
        write(tmp_path, "app.toml", f'[rag]\nembedding.provider = "gemini"\nembedding.dim = 64\n'
              f'embedding.api_key = "{google}"\nembedding.base_url = "{server.base_url}"\n'
              f'[rag.vector_store]\nprovider = "turboquant"\n')
        write(tmp_path, "settings.py", f'"""Settings."""\nOPENAI_API_KEY = "{openai}"\nTIMEOUT = 30\n')
        write(tmp_path, "notes.md", f"# Deploy notes\n\nThe api key for CI is {github}, rotate it.\n")
        with RAGEngine(load_config(tmp_path / "app.toml"), tmp_path) as engine:
            report = engine.index_directory()
            assert sorted(engine.get_all_indexed_paths()) == ["notes.md", "settings.py"]
            assert any(s.path == "app.toml" and "config file" in s.reason for s in report.skipped)
            assert any("settings.py: redacted 1 secret(s) (1 openai-key)" == w for w in report.warnings)
            context = format_context(engine.search("api key", top_k=5))
            assert "[REDACTED:github-token]" in context and "[REDACTED:openai-key]" in context
            lines = {r.metadata["path"]: (r.metadata["start_line"], r.metadata["end_line"])
                     for r in engine.search("api key", top_k=5)}
            assert lines["notes.md"] == (1, 3)
        sent = str([call.body for call in server.requests])
    for secret in (google, openai, github):
        assert secret not in context and secret not in sent
        for path in (tmp_path / ".ragloom").rglob("*"):
            if path.is_file():
                assert secret.encode() not in path.read_bytes(), path
