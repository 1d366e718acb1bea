"""Fixtures shared by the store tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from chroma_server import ChromaServer


@pytest.fixture(scope="module")
def chroma_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ChromaServer]:
    """A Chroma server (``chroma run``) on 127.0.0.1 for the tests of one module."""
    if not ChromaServer.available():
        pytest.skip("the 'chroma' command is not installed (pip install 'ragloom[chroma]')")
    with ChromaServer(tmp_path_factory.mktemp("chroma-server")) as server:
        yield server
