"""Fixtures shared by the store tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from chroma_server import ChromaServer


@pytest.fixture(scope="session")
def chroma_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ChromaServer]:
    """One Chroma server (``chroma run``) on 127.0.0.1 for the whole run, started on first
    use: every test names its own collections (unique, or used by that test alone), and a
    test listing the server's collections looks only for its own."""
    if not ChromaServer.available():
        pytest.skip("the 'chroma' command is not installed (pip install 'ragloom[chroma]')")
    with ChromaServer(tmp_path_factory.mktemp("chroma-server")) as server:
        yield server
