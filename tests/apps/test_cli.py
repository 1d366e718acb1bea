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
embedding.provider = "hash"

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
    assert "2 indexed" in indexed.stdout  # ragloom.toml itself is never indexed
    assert "embedded 2/2 chunks (" in indexed.stderr and "files 2/2" in indexed.stderr
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
    (project / "src/parser.py").unlink()
    (project / "docs/guide.md").unlink()
    for command in ("index", "status"):
        result = subprocess.run([sys.executable, "-m", "ragloom", command], cwd=project,
                                capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stderr
    assert "chunks: 0" in result.stdout


def listing(folder: Path) -> list[str]:
    """Every path under ``folder`` except SQLite's shared-memory and WAL files, which a
    reader of a WAL database opens beside it (they hold no data of their own)."""
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*")
                  if not p.name.endswith(("-shm", "-wal")))


@pytest.mark.parametrize("command", [["status"], ["search", "parse"], ["context", "parse"]])
def test_reading_without_an_index_creates_nothing(project: Path, command: list[str]) -> None:
    before = listing(project)
    result = ragloom(project, *command)
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [
        f"ragloom: no index in {project / '.ragloom'}; run 'ragloom index' in {project} to build one"]
    assert result.stdout == ""
    assert listing(project) == before


def test_config_is_found_from_a_subfolder(project: Path) -> None:
    assert ragloom(project, "index").returncode == 0
    before = listing(project)
    found = ragloom(project / "src", "search", "parse config", "--json", "--top-k", "1")
    assert found.returncode == 0, found.stderr
    assert json.loads(found.stdout)[0]["metadata"]["path"] == "src/parser.py"
    assert not (project / "src" / ".ragloom").exists()
    assert listing(project) == before


@pytest.mark.parametrize("args", [["search", "q", "--top-k", "0"], ["context", "q", "--token-budget", "-5"],
                                  ["search", "q", "--top-k", "many"],
                                  ["eval", "--dataset", ".", "--modes", "bogus"]])
def test_usage_errors_exit_2_with_one_line(project: Path, args: list[str]) -> None:
    result = ragloom(project, *args)
    assert result.returncode == 2
    last = result.stderr.strip().splitlines()[-1]
    assert "error:" in last and "Traceback" not in result.stderr


def test_closed_pipe_exits_quietly(project: Path) -> None:
    assert ragloom(project, "index").returncode == 0
    command = shutil.which("ragloom") or f"{sys.executable} -m ragloom"
    for reader in ("head -1", "true"):
        result = subprocess.run(f"{command} search 'parse config' | {reader}", shell=True, cwd=project,
                                capture_output=True, text=True, timeout=120,
                                executable="/bin/bash")
        assert result.stderr == "", (reader, result.stderr)


def test_empty_index_and_no_results_print_a_hint(project: Path) -> None:
    (project / "src/parser.py").unlink()
    (project / "docs/guide.md").unlink()
    assert ragloom(project, "index").returncode == 0
    result = ragloom(project, "search", "anything")
    assert result.returncode == 3 and result.stdout == ""
    assert "the index is empty; run 'ragloom index'" in result.stderr


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
    write(tmp_path, "pyproject.toml", "[project]\nname='x'\n\n[tool.ragloom]\nembedding.provider='hash'\n"
          "[tool.ragloom.vector_store]\nprovider='chroma'\ncollection_name='fromproject'\n")
    assert ragloom(tmp_path, "index").returncode == 0
    result = ragloom(tmp_path, "status", "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["index_dir"].endswith(".ragloom")
    assert (tmp_path / ".ragloom" / "chroma_fromproject").is_dir()


@pytest.mark.slow
def test_model_loading_noise_is_silenced_unless_verbose(tmp_path: Path) -> None:
    pytest.importorskip("sentence_transformers")
    write(tmp_path, "ragloom.toml", "[rag]\n[rag.vector_store]\nprovider = 'turboquant'\n")
    write(tmp_path, "a.txt", "rockets launch satellites\n")
    quiet = ragloom(tmp_path, "index")
    assert quiet.returncode == 0, quiet.stderr
    assert "Loading weights" not in quiet.stderr
    assert quiet.stderr.strip().splitlines()[-1].startswith("embedded 1/1 chunks")
    verbose = ragloom(tmp_path, "-v", "search", "rockets")  # the cached ONNX export: no torch model
    assert verbose.returncode == 0 and "Loading weights" not in verbose.stderr


def test_a_query_below_the_relevance_gate_says_so(project: Path) -> None:
    write(project, "ragloom.toml", CONFIG.replace('embedding.provider = "hash"',
                                                  'embedding.provider = "hash"\nrelevance_gate = 0.9'))
    assert ragloom(project, "index").returncode == 0
    result = ragloom(project, "search", "weather tomorrow")
    assert result.returncode == 3 and result.stdout == ""
    assert "ragloom: nothing relevant: best score 0." in result.stderr
    assert ", below the relevance gate 0.9 (cosine); --no-gate shows these results anyway" in result.stderr


def test_ingest_given_files_says_what_happened_to_each(project: Path, tmp_path_factory) -> None:
    outside = tmp_path_factory.mktemp("downloads")
    write(outside, "paper.md", "# Paper\n\nSwept wings delay the drag rise near the speed of sound.\n")
    (outside / "scan.bin").write_bytes(b"\x00\x01\x02")
    first = ragloom(project, "ingest", "docs/guide.md", str(outside / "paper.md"), str(outside / "scan.bin"),
                    "nope.txt")
    assert first.returncode == 1  # one file skipped, one missing
    assert first.stdout.splitlines() == [
        "indexed docs/guide.md: 1 chunks (1 embedded, 0 replaced)",
        f"indexed {outside / 'paper.md'}: 1 chunks (1 embedded, 0 replaced)",
        f"skipped {outside / 'scan.bin'}: binary file (NUL bytes)",
        "missing nope.txt: not a file",
    ]
    again = ragloom(project, "ingest", "docs/guide.md")
    assert (again.returncode, again.stdout) == (0, "unchanged docs/guide.md\n")
    found = ragloom(project, "search", "swept wings drag rise", "--top-k", "1")
    assert f"../{outside.name}/paper.md:" in found.stdout  # named under its folder, not absolute
    assert str(outside) not in found.stdout
    walked = ragloom(project, "index")  # a walk of the project keeps files ingested from elsewhere
    assert "0 removed" in walked.stdout.splitlines()[0]


def test_paths_resolve_against_the_current_folder(project: Path) -> None:
    """``cd proj/src && ragloom index lib`` indexes proj/src/lib (the config lives above)."""
    write(project, "src/lib/engine.py", "def ignite():\n    return 'thrust'\n")
    write(project, "lib/decoy.py", "def decoy():\n    return 'not this one'\n")
    indexed = ragloom(project / "src", "index", "lib")
    assert indexed.returncode == 0, indexed.stderr
    assert "1 indexed" in indexed.stdout
    status = ragloom(project, "search", "ignite thrust", "--json", "--top-k", "5")
    assert [r["metadata"]["path"] for r in json.loads(status.stdout)] == ["src/lib/engine.py"]
    ingested = ragloom(project / "src", "ingest", "../lib/decoy.py")
    assert ingested.stdout.startswith("indexed ../lib/decoy.py:"), ingested.stdout
    found = ragloom(project, "search", "decoy", "--json", "--top-k", "1")
    assert json.loads(found.stdout)[0]["metadata"]["path"] == "lib/decoy.py"


def test_indexing_a_missing_path_exits_2_and_creates_nothing(project: Path) -> None:
    before = listing(project)
    missing = ragloom(project, "index", "does-not-exist")
    assert missing.returncode == 2 and "does-not-exist" in missing.stderr
    assert listing(project) == before and not (project / ".ragloom").exists()
    searched = ragloom(project, "search", "anything")
    assert searched.returncode == 1 and "no index" in searched.stderr


def test_status_shows_bytes_per_part_and_per_chunk(project: Path) -> None:
    assert ragloom(project, "index").returncode == 0
    payload = json.loads(ragloom(project, "status", "--json").stdout)
    parts = payload["bytes_by_part"]
    assert set(parts) == {"store", "bm25", "manifest", "embedding_cache", "other"}
    assert all(parts[p] > 0 for p in ("store", "bm25", "manifest", "embedding_cache"))
    assert sum(parts.values()) == payload["index_bytes"]
    per_chunk = payload["bytes_per_chunk"]
    assert per_chunk["total"] == pytest.approx(payload["index_bytes"] / payload["chunks"])
    assert per_chunk["bm25"] == pytest.approx(parts["bm25"] / payload["chunks"])
    text = ragloom(project, "status").stdout
    assert f"({per_chunk['total']:,.0f} B/chunk)" in text
    assert f"  embedding cache: {parts['embedding_cache'] / 1e6:.1f} MB" in text


def test_noise_skipped_summed_by_reason_listed_with_v_and_kept_with_keep_noise(project: Path) -> None:
    write(project, "composer.lock", '{"packages": []}\n')
    write(project, "yarn.lock", "# yarn lockfile v1\n")
    (project / "logo.png").write_bytes(b"\x89PNG\x00\x00")
    indexed = ragloom(project, "index")
    assert indexed.returncode == 0, indexed.stderr
    assert indexed.stdout.splitlines()[1:] == ["  skipped 2: lock file", "  skipped 1: binary file",
                                               "  skipped 1: the ragloom config file"]
    again = ragloom(project, "index")  # a no-op re-index: the same summary, no line per file
    assert again.stdout.startswith("0 indexed") and again.stdout.splitlines()[1:] == \
        indexed.stdout.splitlines()[1:]
    assert "logo.png" not in again.stdout + again.stderr and "composer.lock" not in again.stderr
    status = ragloom(project, "status").stdout.splitlines()
    assert status[-4:] == ["skipped: 4 files", "  2: lock file", "  1: binary file",
                           "  1: the ragloom config file"]
    listed = ragloom(project, "-v", "status").stdout
    assert "  composer.lock: lock file (rule lock-file)" in listed.splitlines()
    assert json.loads(ragloom(project, "status", "--json").stdout)["skipped"] == {
        "lock file": 2, "binary file": 1, "the ragloom config file": 1}
    kept = ragloom(project, "index", "--keep-noise")
    assert kept.stdout.startswith("2 indexed") and "lock file" not in kept.stdout
