"""The ragloom console script, run as a user would: in a subprocess on a temp project."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import write

pytest.importorskip("chromadb", reason="the CLI tests use the embedded Chroma store")

CONFIG = """
[rag]
embedding_provider = "hash"

[rag.vector_store]
provider = "chroma"
"""


def ragloom(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = shutil.which("ragloom")
    argv = [command] if command else [sys.executable, "-m", "ragloom"]
    return subprocess.run([*argv, *args], cwd=project, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONWARNINGS": "ignore"})


@pytest.fixture
def project(tmp_path: Path) -> Path:
    write(tmp_path, "ragloom.toml", CONFIG)
    write(tmp_path, "src/parser.py", "def parse_config(text):\n    return text.split('=')\n")
    write(tmp_path, "docs/guide.md", "# Guide\n\nRockets launch satellites into orbit.\n")
    return tmp_path


def test_index_search_status_context(project: Path) -> None:
    indexed = ragloom(project, "index")
    assert indexed.returncode == 0, indexed.stderr
    assert "3 indexed" in indexed.stdout or "2 indexed" in indexed.stdout
    found = ragloom(project, "search", "parse config", "--json", "--top-k", "1")
    assert found.returncode == 0, found.stderr
    results = json.loads(found.stdout)
    assert results[0]["metadata"]["path"] == "src/parser.py"
    assert results[0]["metadata"]["symbol"] == "parse_config"
    status = ragloom(project, "status", "--json")
    assert json.loads(status.stdout)["files"] >= 2
    assert json.loads(status.stdout)["store"] == "chroma"
    context = ragloom(project, "context", "rockets orbit", "--top-k", "1")
    assert context.stdout.startswith("[RETRIEVED CONTEXT]\nFile: docs/guide.md")
    again = ragloom(project, "index")
    assert "0 indexed" in again.stdout


def test_python_dash_m_works(project: Path) -> None:
    result = subprocess.run([sys.executable, "-m", "ragloom", "status"], cwd=project,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "chunks: 0" in result.stdout


def test_bad_config_exits_2_with_one_line(project: Path) -> None:
    write(project, "ragloom.toml", "[rag]\nchunk_size = 'huge'\n")
    result = ragloom(project, "status")
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("ragloom: error:")
    assert "chunk_size" in lines[0] and "Traceback" not in result.stderr


def test_missing_config_file_and_bad_path_exit_2(project: Path) -> None:
    assert ragloom(project, "--config", "nope.toml", "status").returncode == 2
    missing = ragloom(project, "index", "no/such/dir")
    assert missing.returncode == 2 and "no/such/dir" in missing.stderr


def test_pyproject_tool_table_is_read(tmp_path: Path) -> None:
    write(tmp_path, "pyproject.toml", "[project]\nname='x'\n\n[tool.ragloom]\nembedding_provider='hash'\n"
          "[tool.ragloom.vector_store]\nprovider='chroma'\ncollection_name='fromproject'\n")
    result = ragloom(tmp_path, "status", "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["index_dir"].endswith(".ragloom")
    assert (tmp_path / ".ragloom" / "chroma_fromproject").is_dir()
