"""``ragloom status`` from the index's files alone (``indexing.disk_status``): the same
figures as the opened engine gives, for each store it reads, and None (the engine answers)
for any index it does not read."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import hash_config, write
from ragloom import RAGConfig, RAGEngine
from ragloom.indexing.disk_status import read_status
from ragloom.indexing.disk_usage import disk_usage
from ragloom.retrieval.bm25_files import FORMAT_VERSION, SEGMENT_LIST
from ragloom.stores.registry import store_path

STORES = ["turboquant", pytest.param("chroma", marks=pytest.mark.skipif(
    not __import__("importlib").util.find_spec("chromadb"), reason="chromadb is not installed"))]


def config_for(store: str, **overrides: object) -> RAGConfig:
    return hash_config(**{"vector_store": {"provider": store}, **overrides})


def build(base: Path, config: RAGConfig) -> None:
    """Files, an ingested text, caller-made documents, a removed file: every kind of chunk."""
    write(base, "docs/launch.md", "# Launch\n\nRockets launch satellites.\n\n## Orbit\n\nThey circle.\n")
    write(base, "src/fruit.py", "def peel(banana):\n    return banana.skin\n\n\ndef eat(x):\n    return x\n")
    write(base, "src/gone.py", "def vanish():\n    return None\n")
    with RAGEngine(config, base) as engine:
        engine.index_directory()
        engine.ingest_text("ticket-1", "The launch window opens at dawn.")
        engine.add_documents(["own-1", "own-2"], ["first text", "second text"])
        (base / "src/gone.py").unlink()
        engine.index_directory()  # the removal leaves tombstones in the BM25 index


def engine_status(config: RAGConfig, base: Path) -> dict[str, object]:
    with RAGEngine(config, base, read_only=True) as engine:
        return engine.status().to_dict()


@pytest.mark.parametrize("store", STORES)
def test_the_same_figures_as_the_opened_engine(tmp_path: Path, store: str) -> None:
    config = config_for(store)
    build(tmp_path, config)
    write(tmp_path, "docs/new.md", "# New\n\nNot indexed yet.\n")  # pending: 1
    opened = engine_status(config, tmp_path)
    quick = read_status(config, tmp_path)
    assert quick is not None
    got = quick.to_dict()
    # embedded Chroma writes to its database even to read it: sizes are compared to the disk
    for figures in (opened, got):
        figures.pop("bytes_by_part"), figures.pop("index_bytes"), figures.pop("bytes_per_chunk")
    assert got == opened
    assert (got["files"], got["chunks"], got["files_pending"]) == (5, 6, 1)  # 2 files, 3 texts
    assert got["embedding_model"] == "feature-hash-v1" and got["store"] == store


@pytest.mark.parametrize("store", STORES)
def test_bytes_per_part_and_per_chunk_come_from_the_files(tmp_path: Path, store: str) -> None:
    config = config_for(store)
    build(tmp_path, config)
    quick = read_status(config, tmp_path)
    assert quick is not None
    parts = disk_usage(tmp_path / ".ragloom", store_path(config, tmp_path))
    assert quick.bytes_by_part == parts and quick.index_bytes == sum(parts.values())
    assert all(parts[part] > 0 for part in ("store", "bm25", "manifest", "embedding_cache"))
    assert quick.bytes_per_chunk["store"] == parts["store"] / 6
    assert quick.bytes_per_chunk["total"] == sum(parts.values()) / 6


def test_a_segment_list_without_the_count_is_left_to_the_engine(tmp_path: Path) -> None:
    config = config_for("turboquant")
    build(tmp_path, config)
    listing = tmp_path / ".ragloom" / "bm25_turboquant_ragloom.segments" / SEGMENT_LIST
    header = json.loads(listing.read_text())
    assert header.pop("documents") == 6
    listing.write_text(json.dumps(header))
    assert read_status(config, tmp_path) is None


def test_an_index_of_an_older_format_is_left_to_the_engine(tmp_path: Path) -> None:
    config = config_for("turboquant")
    build(tmp_path, config)
    listing = tmp_path / ".ragloom" / "bm25_turboquant_ragloom.segments" / SEGMENT_LIST
    header = json.loads(listing.read_text())
    listing.write_text(json.dumps({**header, "version": FORMAT_VERSION - 1}))
    assert read_status(config, tmp_path) is None


def test_status_after_clearing_every_file_counts_zero(tmp_path: Path) -> None:
    config = config_for("turboquant")
    write(tmp_path, "a.md", "# A\n\nalpha\n")
    with RAGEngine(config, tmp_path) as engine:
        engine.index_directory()
        (tmp_path / "a.md").unlink()
        engine.index_directory()
    quick = read_status(config, tmp_path)
    assert quick is not None and (quick.files, quick.chunks) == (0, 0)
    assert quick.bytes_per_chunk["total"] == 0.0


@pytest.mark.parametrize("config", [
    config_for("memory"),  # in memory: nothing on disk to read
    config_for("chroma", vector_store={"provider": "chroma", "url": "http://localhost:1"}),
    config_for("turboquant", embedding={"dim": 64}),  # another model than the index's
    config_for("turboquant", embedding={"provider": "local"}),
], ids=["memory", "chroma-server", "other-dimension", "other-provider"])
def test_indexes_it_does_not_read_are_left_to_the_engine(tmp_path: Path, config: RAGConfig) -> None:
    build(tmp_path, config_for("turboquant"))
    assert read_status(config, tmp_path) is None


def test_no_index_is_left_to_the_engine(tmp_path: Path) -> None:
    assert read_status(config_for("turboquant"), tmp_path) is None
    assert not (tmp_path / ".ragloom").exists()


def test_disabled_rag_reports_disabled(tmp_path: Path) -> None:
    status = read_status(config_for("turboquant", enabled=False), tmp_path)
    assert status is not None and not status.enabled


#: Runs ``ragloom status`` in-process, then names the heavy modules it imported.
CLI = ("import sys\nfrom ragloom.apps.cli import main\ncode = main(sys.argv[1:])\n"
       "print('loaded:', ','.join(m for m in ('chromadb', 'torch', 'numpy', 'ragloom.engine') "
       "if m in sys.modules))\nsys.exit(code)\n")


@pytest.mark.parametrize("store", STORES)
def test_status_opens_no_store_and_imports_no_numpy(tmp_path: Path, store: str) -> None:
    build(tmp_path, config_for(store))
    write(tmp_path, "ragloom.toml", f"[rag]\nembedding.provider = 'hash'\n[rag.vector_store]\n"
                                    f"provider = '{store}'\n")
    for args in (["status"], ["status", "--json"]):
        result = subprocess.run([sys.executable, "-c", CLI, *args], cwd=tmp_path, capture_output=True,
                                text=True, timeout=120, env={**os.environ, "PYTHONWARNINGS": "ignore"})
        assert result.returncode == 0, result.stderr
        assert result.stdout.rstrip().endswith("loaded:"), result.stdout  # none of them
    assert "chunks: 6\n" in subprocess.run([sys.executable, "-c", CLI, "status"], cwd=tmp_path,
                                           capture_output=True, text=True, timeout=120).stdout


def test_status_of_an_index_built_by_another_model_says_so(tmp_path: Path) -> None:
    build(tmp_path, config_for("turboquant"))
    write(tmp_path, "ragloom.toml", "[rag]\nembedding.provider = 'hash'\nembedding.dim = 64\n"
                                    "[rag.vector_store]\nprovider = 'turboquant'\n")
    result = subprocess.run([sys.executable, "-m", "ragloom", "status"], cwd=tmp_path,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 1
    assert "was built with hash/feature-hash-v1 (384-d)" in result.stderr
