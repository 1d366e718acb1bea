"""``status`` tells the truth (issue 38, item 3): pending counts only files the next run
will index, skipped files are counted apart by reason, a store in a server shows the
server (credentials redacted), its table and the server's sizes, and the CLI, its JSON,
the API and MCP give the same fields in the same formats."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest

from helpers import hash_config, write
from ragloom import RAGEngine
from ragloom.indexing.disk_status import read_status


def project(base: Path) -> None:
    write(base, "src/fruit.py", "def peel(banana):\n    return banana.skin\n")
    write(base, "docs/guide.md", "# Guide\n\nPeel the banana first.\n")
    (base / "assets").mkdir()
    (base / "assets/logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" * 20)
    (base / "assets/icon.ico").write_bytes(b"\x00\x00\x01\x00" * 50)
    write(base, ".env", "TOKEN=abc\n")


@pytest.mark.parametrize("store", ["turboquant", "memory"])
def test_skipped_files_are_not_pending_and_are_counted_by_reason(tmp_path: Path, store: str) -> None:
    project(tmp_path)
    config = hash_config(vector_store={"provider": store})
    with RAGEngine(config, tmp_path) as engine:
        report = engine.index_directory()
        assert report.files_skipped == 3  # two binaries, one secret file
        status = engine.status()
        assert status.files_pending == 0
        assert status.files_skipped == {"binary file": 2, "secret file": 1}
        write(tmp_path, "docs/new.md", "# New\n\nNot indexed yet.\n")
        (tmp_path / "assets/logo.png").write_bytes(b"\x00changed")  # to be read again: pending
        assert (engine.status().files_pending, engine.status().files_skipped) == (
            2, {"binary file": 1, "secret file": 1})
    if store == "turboquant":  # the quick path (no store opened) agrees
        quick = read_status(config, tmp_path)
        assert quick is not None
        assert (quick.files_pending, quick.files_skipped) == (2, {"binary file": 1, "secret file": 1})


def test_the_quick_status_walks_by_the_engine_rules(tmp_path: Path) -> None:
    """A file whose name holds a token is skipped by the indexer: the quick status (which
    used to leave out that rule) does not count it as pending either."""
    config = hash_config(vector_store={"provider": "turboquant"})
    write(tmp_path, "src/fruit.py", "def peel(banana):\n    return banana.skin\n")
    write(tmp_path, "notes/ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8" + ".txt", "a note\n")
    with RAGEngine(config, tmp_path) as engine:
        engine.index_directory()
        opened = engine.status()
    quick = read_status(config, tmp_path)
    assert quick is not None
    assert opened.files_pending == quick.files_pending == 0
    assert opened.files_skipped == quick.files_skipped == {"its path holds a secret": 1}


def test_the_cli_json_and_api_give_one_format(tmp_path: Path) -> None:
    project(tmp_path)
    write(tmp_path, "ragloom.toml", '[rag]\nembedding.provider = "hash"\n\n'
          '[rag.vector_store]\nprovider = "turboquant"\n')
    run = [sys.executable, "-m", "ragloom"]
    subprocess.run([*run, "index"], cwd=tmp_path, check=True, capture_output=True)
    printed = subprocess.run([*run, "status"], cwd=tmp_path, check=True, capture_output=True,
                             text=True).stdout
    record = json.loads(subprocess.run([*run, "status", "--json"], cwd=tmp_path, check=True,
                                       capture_output=True, text=True).stdout)
    assert isinstance(record["last_indexed"], str)
    assert datetime.fromisoformat(record["last_indexed"]).utcoffset().total_seconds() == 0
    assert f"last indexed: {record['last_indexed']}\n" in printed
    assert ("files pending: 0\nfiles skipped: 4 (binary file: 2, secret file: 1, the ragloom "
            "config file: 1)\n") in printed
    with RAGEngine.from_toml(tmp_path / "ragloom.toml") as engine:
        api = engine.status()
    assert api.to_dict()["last_indexed"] == record["last_indexed"] == api.last_indexed_iso
    assert (record["files_pending"], record["files_skipped"]) == (
        0, {"binary file": 2, "secret file": 1, "the ragloom config file": 1})


def test_mcp_status_is_the_cli_record(tmp_path: Path) -> None:
    pytest.importorskip("mcp")
    from ragloom.apps.mcp_server import build_server

    project(tmp_path)
    config = hash_config(vector_store={"provider": "turboquant"})
    with RAGEngine(config, tmp_path) as engine:
        engine.index_directory()
        expected = engine.status().to_dict()
        server = build_server(engine)
        tool = server._tool_manager.get_tool("rag_status")
        got = tool.fn()
    for record in (expected, got):
        record.pop("bytes_by_part"), record.pop("index_bytes"), record.pop("bytes_per_chunk")
    assert got == expected | {"writes_allowed": False}
    assert isinstance(got["last_indexed"], str)


def with_password(url: str, password: str) -> str:
    parts = urlsplit(url)
    user, _, host = parts.netloc.rpartition("@")
    netloc = f"{(user or 'postgres').split(':')[0]}:{password}@{host}"
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def test_a_postgres_index_shows_its_server_table_and_sizes(tmp_path: Path, postgres_schema: str,
                                                           postgres_server: Any) -> None:
    project(tmp_path)
    url = with_password(postgres_server.url, "hunter2-Secret")
    config = hash_config(vector_store={"provider": "postgres", "url": url,
                                       "postgres": {"schema": postgres_schema}})
    with RAGEngine(config, tmp_path) as engine:
        engine.index_directory()
        status = engine.status()
    assert "hunter2" not in json.dumps(status.to_dict())
    assert status.server.startswith("postgresql://") and ":***@" in status.server
    assert status.collection == f"{postgres_schema}.ragloom_ragloom"
    assert status.index_dir == "" and not (tmp_path / ".ragloom").exists()
    assert all(status.bytes_by_part[part] > 0 for part in ("store", "bm25", "manifest", "embedding_cache"))
    assert status.index_bytes == sum(status.bytes_by_part.values())
    assert (status.files_pending, status.files_skipped) == (0, {"binary file": 2, "secret file": 1})


@pytest.mark.slow
def test_a_chroma_server_index_answers_status_without_chromadb(tmp_path: Path) -> None:
    """``ragloom status`` of an index whose Chroma store is a server reads the manifest and
    BM25 index beside it: no chromadb import, no connection; it shows the server (a token
    in its URL redacted), the collection, and says the store's size is not known here."""
    pytest.importorskip("chromadb")
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "stores"))
    from chroma_server import ChromaServer

    if not ChromaServer.available():
        pytest.skip("the 'chroma' command is not installed")
    project(tmp_path / "app")
    with ChromaServer(tmp_path / "server") as server:
        url = server.url.replace("://", "://reader:ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8@")
        write(tmp_path / "app", "ragloom.toml", '[rag]\nembedding.provider = "hash"\n\n'
              f'[rag.vector_store]\nprovider = "chroma"\nurl = "{server.url}"\n')
        subprocess.run([sys.executable, "-m", "ragloom", "index"], cwd=tmp_path / "app", check=True,
                       capture_output=True)
        with RAGEngine.from_toml(tmp_path / "app" / "ragloom.toml") as engine:
            opened = engine.status().to_dict()
    code = ("import json, sys\nfrom pathlib import Path\nfrom ragloom.config import load_config\n"
            "from ragloom.indexing.disk_status import read_status\n"
            "config = load_config(Path('ragloom.toml'))\n"
            f"config.vector_store.url = {url!r}\n"
            "status = read_status(config, Path('.'))\n"
            "print(json.dumps({'status': status and status.to_dict(), "
            "'chromadb': 'chromadb' in sys.modules}))\n")
    run = subprocess.run([sys.executable, "-c", code], cwd=tmp_path / "app", check=True,
                         capture_output=True, text=True)
    answer = json.loads(run.stdout)
    assert answer["chromadb"] is False and answer["status"] is not None
    quick = answer["status"]
    assert "ghp_" not in quick["server"] and quick["server"].endswith(url.split("@")[1])
    assert (quick["collection"], quick["sizes_unknown"]) == ("ragloom", ["store"])
    assert quick["index_dir"] == opened["index_dir"] != ""
    for figures in (opened, quick):
        for key in ("bytes_by_part", "index_bytes", "bytes_per_chunk", "server"):
            figures.pop(key)
    assert quick == opened
