"""Credentials never printed: URLs, DSNs and headers in error messages, log lines and the
CLI's output are redacted, whatever the password looks like."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import write
from ragloom.security.display import HIDDEN, RedactingFilter, redact_for_display


@pytest.mark.parametrize(("text", "secret"), [
    ("cannot connect to http://admin:pass@chroma:8000", "pass"),          # a stand-in in docs, not here
    ("postgresql://app:secret@db:5432/app?sslmode=require", "secret"),
    ("Server=sql01;User Id=sa;Password=hunter2;", "hunter2"),
    ("postgresql://db/app?user=app&password=x9", "x9"),
    ("GET /v1?api_key=abc123 failed", "abc123"),
    ("redis://:tiger@cache:6379/0", "tiger"),
])
def test_every_url_password_and_password_parameter_is_hidden(text: str, secret: str) -> None:
    shown = redact_for_display(text)
    assert secret not in shown and HIDDEN in shown


def test_tokens_and_headers_in_a_message_are_redacted_too() -> None:
    token = "ghp_" + "a1B2c3D4e5F6" * 3
    shown = redact_for_display(f"request failed: Authorization: Bearer {token} (401)")
    assert token not in shown and shown.startswith("request failed: Authorization: ")


def test_a_url_without_credentials_is_shown_as_it_is() -> None:
    assert redact_for_display("cannot connect to http://chroma:8000/api") == "cannot connect to http://chroma:8000/api"


def test_log_records_are_redacted_with_their_arguments() -> None:
    record = logging.LogRecord("ragloom", logging.WARNING, __file__, 1, "cannot reach %s: %s",
                               ("http://u:Pw9word@h:1", "refused"), None)
    assert RedactingFilter().filter(record)
    assert record.getMessage() == f"cannot reach http://u:{HIDDEN}@h:1: refused"


def _run(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ragloom", *args], cwd=project, capture_output=True,
                          text=True, timeout=120, env={**os.environ, "PYTHONWARNINGS": "ignore"})


@pytest.mark.parametrize("command", [["index"], ["status"], ["search", "rockets"]])
def test_the_cli_never_prints_a_chroma_servers_password(tmp_path: Path, command: list[str]) -> None:
    pytest.importorskip("chromadb")
    write(tmp_path, "ragloom.toml", '[rag]\nembedding.provider = "hash"\n[rag.vector_store]\n'
                                    'provider = "chroma"\nurl = "http://admin:pass@127.0.0.1:9"\n')
    write(tmp_path, "a.py", "x = 1\n")
    done = _run(tmp_path, *command)
    assert done.returncode == 1
    assert "pass@" not in done.stderr + done.stdout
    if command == ["index"]:  # status and search stop earlier here: no local index yet
        assert f"cannot connect to the Chroma server at http://admin:{HIDDEN}@127.0.0.1:9" in done.stderr


def test_the_chroma_store_location_is_redacted(monkeypatch: pytest.MonkeyPatch) -> None:
    """A server that answers but fails later: the message names the location, redacted."""
    pytest.importorskip("chromadb")
    from ragloom.errors import StoreError
    from ragloom.stores import chroma

    class Client:  # answers the batch-size probe, then fails to open the collection
        def get_max_batch_size(self) -> int:
            return 100

    monkeypatch.setattr(chroma, "http_client", lambda url, api_key=None: Client())
    with pytest.raises(StoreError) as failure:
        chroma.ChromaVectorStore.open_remote("https://bot:Hunter2pw@chroma.acme.io", "docs",
                                             chroma.EmbeddingSpec("m", 3))
    assert "Hunter2pw" not in str(failure.value)
    assert f"'docs' at https://bot:{HIDDEN}@chroma.acme.io: AttributeError" in str(failure.value)
