"""The examples run as documented (hash embedder, so no model is loaded here)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
DOCS = Path(__file__).resolve().parent.parent / "docs"


def run(script: str, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k not in ("GEMINI_API_KEY", "GOOGLE_API_KEY")}
    environment.update({"RAGLOOM_EXAMPLE_PROVIDER": "hash", "PYTHONWARNINGS": "ignore"}, **(env or {}))
    return subprocess.run([sys.executable, str(EXAMPLES / script), *args], capture_output=True,
                          text=True, timeout=180, env=environment)


def copy_docs(source: Path, target: Path) -> Path:
    """The checked-in documents of ``source`` (its ``*.md`` files), nothing a previous
    command left beside them: running ``python examples/quickstart.py`` first leaves
    ``docs/.ragloom`` built with the local model, which the hash embedder must not meet."""
    target.mkdir(parents=True)
    for page in sorted(source.glob("*.md")):
        shutil.copy2(page, target / page.name)
    return target


def check_quickstart(source: Path, tmp_path: Path) -> None:
    docs = copy_docs(source, tmp_path / "docs")
    result = run("quickstart.py", str(docs), "fusion of BM25 and dense retrieval")
    assert result.returncode == 0, result.stderr
    assert "[RETRIEVED CONTEXT]" in result.stdout
    again = run("quickstart.py", str(docs))
    assert "indexed 0 files" in again.stdout


def test_quickstart_indexes_docs_and_prints_context(tmp_path: Path) -> None:
    check_quickstart(DOCS, tmp_path)


def test_quickstart_test_ignores_an_index_a_previous_run_left_in_docs(tmp_path: Path) -> None:
    """The README's two commands in order: the quickstart leaves ``docs/.ragloom`` (another
    embedding model), and the test above must pass beside it."""
    from ragloom import RAGConfig, RAGEngine

    left = copy_docs(DOCS, tmp_path / "left")
    config = RAGConfig(embedding={"provider": "hash", "dim": 48})  # the quickstart's store
    with RAGEngine(config, base_dir=left) as engine:
        engine.index_directory()
    assert (left / ".ragloom").is_dir()
    check_quickstart(left, tmp_path / "run")


@pytest.mark.parametrize("script", ["chat_with_repo.py", "tool_calling.py"])
def test_gemini_examples_exit_cleanly_without_a_key(script: str) -> None:
    result = run(script, "question")
    assert result.returncode == 0
    assert "set GEMINI_API_KEY" in result.stdout


def test_turboquant_example(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("def lloyd_max():\n    return 'codebook'\n")
    result = run("turboquant_store.py", str(tmp_path), "codebook")
    assert result.returncode == 0, result.stderr
    assert "bytes per vector" in result.stdout and "a.py" in result.stdout


def test_local_llm_example_talks_to_an_openai_compatible_server(tmp_path: Path) -> None:
    pytest.importorskip("openai")
    from fakes.openai_server import FakeOpenAIServer, text_message

    (tmp_path / "orbit.md").write_text("# Orbit\nRockets carry satellites into orbit.\n")
    assert "set OPENAI_BASE_URL" in run("local_llm.py", str(tmp_path), "q",
                                        env={"OPENAI_BASE_URL": ""}).stdout
    with FakeOpenAIServer() as server:
        server.reply_next(text_message("They ride rockets."))
        result = run("local_llm.py", str(tmp_path), "how do satellites reach orbit?",
                     env={"OPENAI_BASE_URL": server.base_url + "/v1", "RAGLOOM_LLM_MODEL": "tiny"})
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("They ride rockets.\n")
    assert "sources: orbit.md (" in result.stdout
    [request] = server.calls("chat.completions")
    assert request.body["model"] == "tiny"
    assert "File: orbit.md" in request.body["messages"][0]["content"]


def test_postgres_example_indexes_into_the_database_and_reads_it_back(
        tmp_path: Path, postgres_server: Any, postgres_schema: str) -> None:
    """The Postgres example on the test server (the same pgserver the Postgres tests start):
    chunks land in the schema's table, a second engine elsewhere reads them, a second run
    skips every unchanged file, and nothing is written beside the files."""
    pytest.importorskip("psycopg")
    (tmp_path / "orbit.md").write_text("# Orbit\nRockets carry satellites into orbit.\n")
    (tmp_path / "fuel.md").write_text("# Fuel\nKerosene and liquid oxygen feed the engines.\n")
    env = {"RAGLOOM_POSTGRES_URL": postgres_server.url, "RAGLOOM_POSTGRES_SCHEMA": postgres_schema}
    result = run("postgres_store.py", str(tmp_path), "rockets carry satellites", env=env)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == f"indexed 2 files (0 unchanged), 2 chunks in table {postgres_schema}.ragloom_example"
    assert lines[1].endswith("  orbit.md:1-2  Orbit")
    [(rows,)] = postgres_server.execute(f'SELECT count(*) FROM "{postgres_schema}".ragloom_example')
    assert rows == 2
    again = run("postgres_store.py", str(tmp_path), "rockets", env=env)
    assert again.stdout.startswith("indexed 0 files (2 unchanged), 2 chunks"), again.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fuel.md", "orbit.md"]


def test_service_example_keeps_collections_within_their_limits(tmp_path: Path) -> None:
    result = run("service.py", str(tmp_path))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[:6] == ["handbook: added 'vacation' (1 chunks)", "handbook: added 'expenses' (1 chunks)",
                         "tickets: added 't-1' (1 chunks)", "tickets: added 't-2' (1 chunks)",
                         "tickets: added 't-3' (1 chunks)", "tickets: refused 't-4': max_files 3 + 1 > 3"]
    assert lines[6].startswith("handbook, 'how many vacation days': ['vacation'")
    assert lines[7:] == ["handbook usage: max_chunks 2/50, max_files 2/3, max_bytes 112/20000",
                         "tickets usage: max_chunks 3/50, max_files 3/3, max_bytes 125/20000",
                         "collection handbook: 2 chunks, 2 files, hash/feature-hash-v1"]


def test_tenants_service_example_keeps_each_customer_to_itself(tmp_path: Path) -> None:
    result = run("tenants_service.py", str(tmp_path))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    acme = [line for line in lines if line.startswith("acme: 2 chunks; best:")]
    globex = [line for line in lines if line.startswith("globex: 2 chunks; best:")]
    assert len(acme) == len(globex) == 1
    assert "rocket" in acme[0] or "Invoices" in acme[0]
    assert "banana" in globex[0] or "mangoes" in globex[0]
    assert "acme: refused: filters may not name 'tenant'" in result.stdout
    assert ("acme: refused: max_files_per_tenant of tenant 'acme' in collection 'ragloom' would "
            "be exceeded: 2 now + 1 from this call = 3 > limit 2; nothing of this call was "
            "written ([rag.limits] max_files_per_tenant)") in lines
    assert "acme: 2 of 2 tickets" in lines and "globex: 2 of 2 tickets" in lines
