"""Every MCP request gets an answer: malformed JSON, JSON nested past the SDK's parser, and
JSON that is no JSON-RPC message each get a JSON-RPC error reply, over stdio and HTTP
(the SDK's stdio transport dropped them without a word and the client waited forever)."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp", reason="the mcp extra is not installed")

from test_mcp_server import project, running_http_server  # noqa: E402, F401 - a fixture

from ragloom.apps.mcp_screen import INVALID_REQUEST, MAX_JSON_DEPTH, PARSE_ERROR, screen  # noqa: E402


def nested(depth: int, request_id: int = 7) -> str:
    """A tools/call whose filters nest ``depth`` lists deep."""
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                       "params": {"name": "rag_search", "arguments": {
                           "query": "rockets", "filters": {"n": {"$eq": "LEAF"}}}}}
                      ).replace('"LEAF"', "[" * depth + "]" * depth)


#: (request line, expected error code, expected id) for each kind of bad request.
BAD = [
    ("{not json", PARSE_ERROR, None),
    ('{"jsonrpc": "2.0", "id": 4, "method": "tools/list"', PARSE_ERROR, None),
    ("[" * 100_000, PARSE_ERROR, None),
    ('"' + '\\"' * 200_000, PARSE_ERROR, None),  # each quote opened an unclosed string
    (nested(300), INVALID_REQUEST, 7),
    (nested(100_000, 8), INVALID_REQUEST, 8),
    ('{"hello": 1, "id": 5}', INVALID_REQUEST, 5),
    ('{"jsonrpc": "2.0", "id": "nine"}', INVALID_REQUEST, "nine"),
    ("[1, 2]", INVALID_REQUEST, None),
    ('"just a string"', INVALID_REQUEST, None),
]


@pytest.mark.parametrize(("line", "code", "request_id"), BAD)
def test_screen_answers_each_bad_request(line: str, code: int, request_id: Any) -> None:
    reply = screen(line)
    assert reply is not None
    assert (reply["jsonrpc"], reply["id"], reply["error"]["code"]) == ("2.0", request_id, code)
    assert len(reply["error"]["message"]) <= 500


def test_screen_passes_good_requests_and_brackets_inside_strings() -> None:
    assert screen(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})) is None
    assert screen(nested(MAX_JSON_DEPTH - 6)) is None
    quoted = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                         "params": {"name": "rag_search", "arguments": {"query": "[" * 1000 + '\\"{'}}})
    assert screen(quoted) is None


INITIALIZE = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})


def test_stdio_answers_every_bad_line_then_serves_on(project: Path) -> None:  # noqa: F811
    server = subprocess.Popen([sys.executable, "-m", "ragloom", "mcp"], cwd=project,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              env={**os.environ, "PYTHONWARNINGS": "ignore"})
    assert server.stdin is not None and server.stdout is not None

    def ask(line: str) -> dict[str, Any]:
        server.stdin.write(line.encode() + b"\n")  # type: ignore[union-attr]
        server.stdin.flush()  # type: ignore[union-attr]
        ready, _, _ = select.select([server.stdout], [], [], 60)
        assert ready, f"no reply to {line[:80]!r}"
        return json.loads(server.stdout.readline())  # type: ignore[union-attr]

    try:
        assert ask(INITIALIZE)["id"] == 1
        server.stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
        for line, code, request_id in BAD:
            reply = ask(line)
            assert (reply["id"], reply["error"]["code"]) == (request_id, code), line[:80]
        listed = ask(json.dumps({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}))
        assert "rag_search" in {tool["name"] for tool in listed["result"]["tools"]}
    finally:
        server.kill()
        server.wait(timeout=30)


def post(url: str, body: str) -> tuple[int, str]:
    request = urllib.request.Request(url, data=body.encode(), method="POST", headers={
        "Content-Type": "application/json", "Accept": "application/json, text/event-stream"})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def test_http_answers_every_bad_body_with_a_json_rpc_error(project: Path) -> None:  # noqa: F811
    with running_http_server(project) as url:
        for body, code, request_id in BAD:
            status, text = post(url, body)
            reply = json.loads(text)
            assert (status, reply["id"], reply["error"]["code"]) == (400, request_id, code), body[:80]
        status, text = post(url, INITIALIZE)  # still serving (an event stream or JSON)
        assert status == 200 and '"serverInfo":{"name":"ragloom"' in text


def test_tool_arguments_of_the_wrong_type_are_tool_errors_naming_them(project: Path) -> None:  # noqa: F811
    from mcp import Client
    from test_mcp_server import stdio_server

    async def exercise() -> None:
        async with Client(stdio_server(project), read_timeout_seconds=60) as client:
            for arguments, named in (({"query": "rockets", "top_k": 2.5}, "top_k"),
                                     ({"query": "rockets", "top_k": "5"}, "top_k"),
                                     ({"query": "rockets", "top_k": True}, "top_k"),
                                     ({"query": None}, "query"), ({"query": 5}, "query"),
                                     ({"query": "rockets", "filters": [1]}, "filters"),
                                     ({"query": "rockets", "filters": {"$and": [{"a": 1}] * 0}},
                                      "$and")):
                result = await client.call_tool("rag_search", arguments)
                text = "".join(block.text for block in result.content)
                assert result.is_error and named in text, (arguments, text)

    import asyncio

    asyncio.run(exercise())
