"""``ragloom mcp`` as a real process, driven by the MCP SDK's own client over stdio and over
streamable HTTP: tools, structured results, bad arguments, read-only refusal, resources
and attempts to read outside the project."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp", reason="the mcp extra is not installed")

from mcp import Client, StdioServerParameters  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402

from helpers import write  # noqa: E402
from ragloom import RAGEngine, load_config  # noqa: E402

CONFIG = """
[rag]
embedding.provider = "hash"
relevance_gate = 0.0

[rag.vector_store]
provider = "turboquant"
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    write(root, "ragloom.toml", CONFIG)
    write(root, "docs/guide.md", "# Guide\n\nRockets launch satellites into orbit.\n")
    write(root, "src/parser.py", "def parse_config(text):\n    return text.split('=')\n")
    write(tmp_path, "secret.txt", "outside the project\n")
    with RAGEngine(load_config(root / "ragloom.toml"), root) as engine:
        engine.index_directory()
    return root


def stdio_server(project: Path, *extra: str) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=["-m", "ragloom", "mcp", *extra],
                                 cwd=str(project), env={**os.environ, "PYTHONWARNINGS": "ignore"})


def text_of(result: Any) -> str:
    return "".join(block.text for block in result.content)


async def exercise_read_only(client: Client) -> None:
    tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert set(tools) == {"rag_search", "rag_status", "rag_index"}
    assert tools["rag_search"].input_schema["required"] == ["query"]
    found = await client.call_tool("rag_search", {"query": "rockets orbit", "top_k": 1})
    assert not found.is_error
    assert text_of(found).startswith("--- Result 1 (score: ")
    assert "source: docs/guide.md:1-3) ---\n# Guide" in text_of(found)
    [record] = found.structured_content["results"]
    assert (record["path"], record["start_line"], record["end_line"], record["heading"]) == (
        "docs/guide.md", 1, 3, "Guide")
    code = await client.call_tool("rag_search", {"query": "parse config", "top_k": 5,
                                                  "filters": {"source_type": "code"}})
    assert [r["path"] for r in code.structured_content["results"]] == ["src/parser.py"]
    for arguments, message in [({"query": "x", "top_k": 99}, "'top_k' must be from 1 to 20"),
                               ({"query": "  "}, "needs a non-empty 'query'"),
                               ({"top_k": 2}, "query"),
                               ({"query": "x", "filters": {"path": {"$regex": "."}}},
                                "unknown operator '$regex'"),
                               ({"query": "x", "filters": {"path": "[z-a]*"}},
                                "glob '[z-a]*': the character range z-a is reversed")]:
        bad = await client.call_tool("rag_search", arguments)
        assert bad.is_error and message in text_of(bad), (arguments, text_of(bad))
    refused = await client.call_tool("rag_index", {})
    assert refused.is_error and "read-only" in text_of(refused)
    status = await client.call_tool("rag_status", {})
    assert (status.structured_content["files"], status.structured_content["writes_allowed"]) == (2, False)
    listed = {resource.uri for resource in (await client.list_resources()).resources}
    assert listed == {"ragloom://file/docs/guide.md", "ragloom://file/src/parser.py"}
    guide = await client.read_resource("ragloom://file/docs/guide.md")
    assert guide.contents[0].text == "# Guide\n\nRockets launch satellites into orbit.\n"
    escapes = ("ragloom://file/../secret.txt", "ragloom://file/%2E%2E/secret.txt",
               "ragloom://file/docs/../../secret.txt", "ragloom://file//etc/passwd")
    for uri in escapes:  # the SDK's path-safety checks refuse them before ragloom sees them
        with pytest.raises(MCPError, match="Unknown resource"):
            await client.read_resource(uri)
    with pytest.raises(MCPError, match="'ragloom.toml' is not an indexed file of this project"):
        await client.read_resource("ragloom://file/ragloom.toml")


def test_stdio_server_read_only(project: Path) -> None:
    async def main() -> None:
        async with Client(stdio_server(project), read_timeout_seconds=60) as client:
            await exercise_read_only(client)

    asyncio.run(main())


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def http_server(project: Path) -> Iterator[str]:
    with running_http_server(project, "--allow-writes") as url:
        yield url


@contextmanager
def running_http_server(project: Path, *extra: str) -> Iterator[str]:
    """``ragloom mcp --http`` on a free port in ``project``; yields its URL, stops it after."""
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "ragloom", "mcp", "--http", "--port", str(port),
                                *extra], cwd=project, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, env={**os.environ, "PYTHONWARNINGS": "ignore"})
    deadline = time.monotonic() + 60
    while True:  # wait until it accepts connections (or died)
        if process.poll() is not None:
            raise AssertionError(f"ragloom mcp --http exited: {process.stderr.read().decode()[-2000:]}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            if time.monotonic() > deadline:
                process.kill()
                raise AssertionError("ragloom mcp --http did not start listening in 60 s") from None
            time.sleep(0.05)
    yield f"http://127.0.0.1:{port}/mcp"
    process.terminate()
    process.wait(timeout=30)


def test_http_server_with_writes_indexes_inside_the_project_only(project: Path, http_server: str) -> None:
    write(project, "docs/new.md", "# Gliders\n\nSailplanes ride thermals without engines.\n")

    async def main() -> None:
        async with Client(http_server, read_timeout_seconds=60) as client:
            outside = await client.call_tool("rag_index", {"path": "../"})
            assert outside.is_error and "outside the project folder" in text_of(outside)
            indexed = await client.call_tool("rag_index", {"path": "docs/new.md"})
            assert not indexed.is_error
            assert indexed.structured_content["files_indexed"] == 1
            found = await client.call_tool("rag_search", {"query": "sailplanes thermals", "top_k": 1})
            assert found.structured_content["results"][0]["path"] == "docs/new.md"
            listed = {resource.uri for resource in (await client.list_resources()).resources}
            assert "ragloom://file/docs/new.md" in listed
            status = await client.call_tool("rag_status", {})
            assert status.structured_content["writes_allowed"] is True

    asyncio.run(main())


def test_the_server_answers_other_calls_while_a_search_is_in_flight(project: Path, tmp_path: Path) -> None:
    """A search held in the embedder (as a long one would run) must not keep the server from
    answering: rag_status and a second search are answered before it is released. The bound
    of 120 s only turns a hang into a failure."""
    gate = tmp_path / "gate"
    gate.mkdir()
    config = (project / "ragloom.toml").read_text(encoding="utf-8")
    (project / "ragloom.toml").write_text(config.replace(
        'embedding.provider = "hash"', 'embedding.provider = "gated_embedder:factory"'), encoding="utf-8")
    fakes = Path(__file__).resolve().parents[1] / "fakes"
    parameters = stdio_server(project)
    parameters.env = {**(parameters.env or {}), "RAGLOOM_TEST_GATE": str(gate),
                      "PYTHONPATH": os.pathsep.join(filter(None, [str(fakes), os.environ.get("PYTHONPATH")]))}

    async def main() -> None:
        async with Client(parameters, read_timeout_seconds=120) as client:
            held = asyncio.ensure_future(client.call_tool("rag_search", {"query": "hold rockets"}))
            while not (gate / "started").exists():
                assert not held.done(), held.result()
                await asyncio.sleep(0.01)
            status = await asyncio.wait_for(client.call_tool("rag_status", {}), 120)
            other = await asyncio.wait_for(client.call_tool("rag_search", {"query": "parse config"}), 120)
            assert not held.done()  # still held: the answers above came while it ran
            assert status.structured_content["files"] == 2
            assert [r["path"] for r in other.structured_content["results"]][:1] == ["src/parser.py"]
            (gate / "release").touch()
            found = await asyncio.wait_for(held, 120)
            assert not found.is_error and found.structured_content["results"][0]["path"] == "docs/guide.md"

    asyncio.run(main())


def test_rag_search_says_when_the_gate_left_nothing(tmp_path: Path) -> None:
    """In process: the text names the best score and the gate; structured says it too."""
    from helpers import hash_config
    from ragloom.apps.mcp_server import build_server

    write(tmp_path, "docs/rockets.md", "# Rockets\n\nRockets launch satellites into orbit.\n")

    async def call(engine: RAGEngine, query: str) -> Any:
        async with Client(build_server(engine)) as client:
            return await client.call_tool("rag_search", {"query": query})

    with RAGEngine(hash_config(relevance_gate=0.99), tmp_path) as engine:
        engine.index_directory()
        gated = asyncio.run(call(engine, "weather tomorrow"))
        best = gated.structured_content["best_score"]
        assert text_of(gated) == (f"No relevant documents found for: weather tomorrow (the best match "
                                  f"scored {best:.3f}, below the relevance gate 0.99: nothing in the "
                                  f"index is close enough)")
        assert gated.structured_content | {"best_score": 0} == {
            "query": "weather tomorrow", "results": [], "nothing_relevant": True, "best_score": 0,
            "relevance_gate": 0.99}
        engine.config.relevance_gate = False
        found = asyncio.run(call(engine, "rockets orbit"))
        assert found.structured_content["nothing_relevant"] is False
        assert found.structured_content["results"][0]["path"] == "docs/rockets.md"


def test_rag_search_compresses_when_asked(tmp_path: Path) -> None:
    """In process: ``compress`` true keeps the lines bearing on the query (``kept_lines`` in
    the structured record), false or absent the whole chunk; a non-flag is a tool error."""
    from helpers import hash_config
    from ragloom.apps.mcp_server import build_server

    body = "".join(f"    step_{i}()\n" for i in range(2, 30))
    write(tmp_path, "src/ledger.py", f"def ledger():\n{body}    reconcile_vat()\n")

    async def call(engine: RAGEngine, **arguments: Any) -> Any:
        async with Client(build_server(engine)) as client:
            return await client.call_tool("rag_search", {"query": "reconcile vat", "top_k": 1} | arguments)

    config = hash_config(relevance_gate=False, retrieval={  # spare none
        "compress_whole_share": 2.0, "compress_whole_top": 0, "compress_window": 2})
    with RAGEngine(config, tmp_path) as engine:
        engine.index_directory()
        small = asyncio.run(call(engine, compress=True))
        [record] = small.structured_content["results"]
        assert record["kept_lines"] == [[1, 1], [28, 30]]
        assert record["text"].startswith("def ledger():\n... (lines 2-27 omitted)\n")
        assert "... (lines 2-27 omitted)" in text_of(small)
        for arguments in ({}, {"compress": False}):
            [whole] = asyncio.run(call(engine, **arguments)).structured_content["results"]
            assert "kept_lines" not in whole and whole["text"].startswith("def ledger():\n    step_2()")
        bad = asyncio.run(call(engine, compress="yes"))
        assert bad.is_error and "compress" in text_of(bad)
