"""``ragloom mcp`` on a project of 20,000 files, through the MCP SDK's client over stdio:
``resources/list`` comes in pages of at most 1,000 with a ``nextCursor`` for the rest, every
file exactly once; the server names itself with ragloom's version."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp", reason="the mcp extra is not installed")

from mcp import Client, StdioServerParameters  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402

import ragloom  # noqa: E402
from helpers import write  # noqa: E402
from ragloom import RAGEngine, load_config  # noqa: E402

FILES = 20_000


@pytest.fixture(scope="module")
def many_files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("many-files")
    write(root, "ragloom.toml", "[rag]\nembedding.provider = \"hash\"\nembedding.cache = false\n"
          "[rag.vector_store]\nprovider = \"turboquant\"\n")
    for number in range(FILES):  # 100 folders of 200 one-line files
        folder = root / "notes" / f"{number // 200:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{number:05d}.txt").write_text(f"note {number}\n", encoding="utf-8")
    with RAGEngine(load_config(root / "ragloom.toml"), root) as engine:
        engine.index_directory()
    return root


def test_resources_come_in_pages_with_a_cursor(many_files: Path) -> None:
    server = StdioServerParameters(command=sys.executable, args=["-m", "ragloom", "mcp"],
                                   cwd=str(many_files), env={**os.environ, "PYTHONWARNINGS": "ignore"})

    async def main() -> tuple[list[int], list[str], str, str]:
        async with Client(server, read_timeout_seconds=120) as client:
            sizes, uris, cursor = [], [], None
            while True:
                page = await client.list_resources(cursor=cursor)
                sizes.append(len(page.resources))
                uris += [resource.uri for resource in page.resources]
                cursor = page.next_cursor
                if cursor is None:
                    break
            with pytest.raises(MCPError, match="invalid cursor"):
                await client.list_resources(cursor="%%%not-a-cursor")
            info = client.server_info
            return sizes, uris, info.name, info.version

    sizes, uris, name, version = asyncio.run(main())
    assert sizes == [1000] * 20
    assert len(set(uris)) == FILES
    assert uris == sorted(uris) and uris[0] == "ragloom://file/notes/000/00000.txt"
    assert (name, version) == ("ragloom", ragloom.__version__) and version
