"""Every MCP request gets an answer: what the SDK would drop without a word gets a JSON-RPC
error reply instead, the same over stdio and HTTP.

The SDK's stdio transport swallows a line that is not JSON, or nests deeper than its
parser's recursion limit (~200 levels), or is not a JSON-RPC message: the client waits
forever. ``screen`` looks at a request first, in time linear in its size: malformed JSON
is a parse error (-32700); JSON nested deeper than MAX_JSON_DEPTH, anything but one
object, or an object that is not a JSON-RPC message is an invalid request (-32600, with
the request's ``id`` when it has one). ``serve_stdio`` and ``screened_http_app`` put the
screen in front of the SDK's transports.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from io import TextIOWrapper
from typing import Any

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
#: Deepest JSON a request may nest: a filter at its deepest (32 levels of ``$and``, two
#: JSON levels each) inside the request envelope fits with room to spare.
MAX_JSON_DEPTH = 128
#: Strings (skipped: brackets inside them do not nest) and brackets, for the depth count.
#: An unclosed string runs to the end (its closing quote is optional): a string that could
#: fail would be retried from every later quote, which is quadratic in ``"\"\"\"...``.
_TOKENS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[\]{}]', re.DOTALL)

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


def screen(raw: str | bytes) -> dict[str, Any] | None:
    """None when ``raw`` is one JSON-RPC message the SDK can take, else the error reply."""
    text = raw.decode("utf-8", errors="replace") if isinstance(raw, bytes) else raw
    depth, open_at_end, shallow = _depth(text)
    if open_at_end:
        return _error(None, PARSE_ERROR, f"Parse error: {open_at_end} bracket(s) never closed")
    if depth > MAX_JSON_DEPTH:
        return _error(_id_of(shallow), INVALID_REQUEST, f"Invalid request: JSON nested {depth} "
                      f"levels deep; at most {MAX_JSON_DEPTH}")
    try:
        message = json.loads(text)
    except (ValueError, RecursionError) as exc:
        return _error(None, PARSE_ERROR, f"Parse error: {exc}")
    if not isinstance(message, dict):
        return _error(None, INVALID_REQUEST, "Invalid request: a request is one JSON-RPC object, "
                      f"not a JSON {type(message).__name__}")
    from mcp.types import jsonrpc_message_adapter
    from pydantic import ValidationError

    try:
        jsonrpc_message_adapter.validate_python(message, by_name=False)
    except ValidationError as exc:
        problem = exc.errors()[0]
        where = ".".join(str(part) for part in problem["loc"][1:]) or "message"
        return _error(_id_of(message), INVALID_REQUEST,
                      f"Invalid request: not a JSON-RPC 2.0 message ({where}: {problem['msg']})")
    return None


def _depth(text: str) -> tuple[int, int, str]:
    """How deep ``text`` nests, how many brackets it leaves open, and its top level with
    deeper containers emptied (where a too-deep request's ``id`` can still be read)."""
    depth = deepest = last = 0
    shallow: list[str] = []
    for token in _TOKENS.finditer(text):
        found = token.group()
        if depth <= 1:
            shallow.append(text[last:token.start()])
        if found in ("[", "{"):
            if depth <= 1:
                shallow.append(found)
            depth += 1
            deepest = max(deepest, depth)
        elif found in ("]", "}"):
            depth -= 1
            if depth <= 1:
                shallow.append(found)
        elif depth <= 1:
            shallow.append(found)
        last = token.end()
    if depth <= 1:
        shallow.append(text[last:])
    return deepest, depth, "".join(shallow)


def _id_of(message: Any) -> str | int | None:
    """The request's ``id`` when it has a usable one (JSON-RPC: null when unknown)."""
    if isinstance(message, str):
        try:
            message = json.loads(message)
        except ValueError:
            return None
    found = message.get("id") if isinstance(message, dict) else None
    return found if isinstance(found, (str, int)) and not isinstance(found, bool) else None


def _error(request_id: str | int | None, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message[:500]}}


async def serve_stdio(server: Any) -> None:
    """Run ``server`` (an ``MCPServer``) over stdio, answering screened-out lines itself."""
    import anyio
    from mcp.server.stdio import stdio_server
    from mcp.shared.message import SessionMessage
    from mcp.types import jsonrpc_message_adapter

    lines = anyio.wrap_file(TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace"))
    send_reply, replies = anyio.create_memory_object_stream[dict[str, Any]](64)

    async def screened() -> AsyncIterator[str]:
        async with send_reply:
            async for line in lines:
                if not line.strip():
                    continue
                reply = screen(line)
                if reply is None:
                    yield line
                else:
                    await send_reply.send(reply)

    lowlevel = server._lowlevel_server
    async with stdio_server(stdin=screened()) as (read_stream, write_stream):  # type: ignore[arg-type]
        async with anyio.create_task_group() as tasks:
            async def forward() -> None:
                async with replies:
                    async for reply in replies:
                        message = jsonrpc_message_adapter.validate_python(reply, by_name=False)
                        await write_stream.send(SessionMessage(message))

            tasks.start_soon(forward)
            await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())
            tasks.cancel_scope.cancel()


def screened_http_app(app: App, max_body: int) -> App:
    """``app`` (the SDK's streamable-HTTP app) behind the screen: a POST body it would
    refuse is answered here with HTTP 400 and a JSON-RPC error; one over ``max_body``
    bytes with 413."""

    async def screened(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await app(scope, receive, send)
            return
        received: list[MutableMapping[str, Any]] = []
        body = bytearray()
        while True:
            message = await receive()
            received.append(message)
            if message["type"] != "http.request":
                break
            body += message.get("body", b"")
            if len(body) > max_body:
                await _reply(send, 413, _error(None, INVALID_REQUEST, f"Invalid request: body over "
                                               f"{max_body} bytes"))
                return
            if not message.get("more_body", False):
                break
        reply = screen(bytes(body)) if received[-1]["type"] == "http.request" else None
        if reply is not None:
            await _reply(send, 400, reply)
            return
        pending = iter(received)

        async def replay() -> MutableMapping[str, Any]:
            return next(pending, None) or await receive()

        await app(scope, replay, send)

    return screened


async def _reply(send: Send, status: int, body: dict[str, Any]) -> None:
    data = json.dumps(body).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(data)).encode())]})
    await send({"type": "http.response.body", "body": data})
