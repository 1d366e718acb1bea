"""The MCP bridge store (``vector_store.provider = "mcp"``): searches go to a ``rag_search``
tool on an MCP server (another ragloom, or anything offering that tool) instead of a local
index. ``[rag.vector_store.mcp] server`` is a command line (stdio) or an ``http(s)://`` URL
(streamable HTTP); ``tool`` names the tool (default ``rag_search``).

The bridge searches by text (``searches_text``): the server embeds and ranks. It holds no
vectors and refuses every write (the server owns its index). The SDK's client is async;
the bridge runs it on one background event loop and waits for each call at most
``timeout_seconds``; a server that hangs, dies, lacks the tool or answers in a form the
bridge cannot read raises StoreError naming the server (with any key in its command line
or URL hidden), never hangs.
"""

from __future__ import annotations

import asyncio
import os
import re
import shlex
import threading
from collections.abc import Coroutine, Sequence
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import numpy as np

from ragloom._optional import import_optional
from ragloom.errors import StoreError
from ragloom.filters import Filters
from ragloom.stores.base import StoreDefaults
from ragloom.types import Chunk, Metadata, SearchResult

DEFAULT_TOOL = "rag_search"
#: Longest wait for sessions to end on close (the SDK gives a stdio server 2 s, then kills it).
SHUTDOWN_SECONDS = 10.0
_RESULT_HEADER = re.compile(r"^--- Result \d+ \(score: (?P<score>-?[\d.]+), source: (?P<source>.*)\) ---$",
                            re.MULTILINE)
_LINES = re.compile(r"^(?P<path>.*):(?P<start>\d+)-(?P<end>\d+)$")
_SECRET_WORDS = ("key", "token", "secret", "password", "passwd", "auth")


class McpBridgeStore(StoreDefaults):
    """See the module docstring."""

    name = "mcp"
    concurrent_readers = True
    hands_out_vectors = False
    glob_filters = True  # filters go to the server as given
    searches_text = True

    def __init__(self, server: str, tool: str = DEFAULT_TOOL, timeout_seconds: float = 30.0) -> None:
        import_optional("mcp", "mcp", "the MCP bridge store")
        self.server = server
        self.tool = tool
        self.timeout_seconds = timeout_seconds
        self.location = describe_server(server)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="ragloom-mcp-bridge",
                                        daemon=True)
        self._thread.start()
        self._client: Any = None
        self._session_task: asyncio.Task[None] | None = None
        self._closing: asyncio.Event | None = None
        #: Sessions still running (a stdio server is stopped when its session ends).
        self._sessions: set[asyncio.Task[None]] = set()
        self._lock = threading.Lock()  # one connect at a time
        self._has_status = False

    # -- searching ---------------------------------------------------------------------------

    def query_text(self, text: str, top_k: int, filters: Filters | None = None) -> list[SearchResult]:
        """The server's results for ``text``, best first."""
        arguments: dict[str, Any] = {"query": text, "top_k": top_k}
        if filters:
            arguments["filters"] = dict(filters)
        answer = self._call(self.tool, arguments)
        return parse_answer(answer, self.location, self.tool)

    def count(self) -> int:
        """The server's chunk count when it offers ``rag_status``; a server without it is
        assumed to hold something (1), so searches are not skipped as "empty"."""
        self._connected()
        if not self._has_status:
            return 1
        status = self._call("rag_status", {})
        structured = getattr(status, "structured_content", None) or {}
        return int(structured.get("chunks", 1))

    # -- what a bridge cannot do -------------------------------------------------------------

    def query(self, vector: np.ndarray, top_k: int, filters: Filters | None = None) -> list[SearchResult]:
        raise StoreError(f"the MCP bridge store searches by text on {self.location}; it has no vectors")

    def upsert(self, ids: Sequence[str], vectors: np.ndarray, texts: Sequence[str],
               metadatas: Sequence[Metadata]) -> None:
        raise self.read_only_error()

    def delete(self, ids: Sequence[str]) -> None:
        raise self.read_only_error()

    def reset(self) -> None:
        raise self.read_only_error()

    def read_only_error(self) -> StoreError:
        return StoreError(f"the MCP bridge store cannot write: the MCP server {self.location} owns "
                          f"its index (index there, e.g. with its rag_index tool)")

    def get(self, ids: Sequence[str]) -> list[Chunk]:
        return []  # nothing is held here

    def get_vectors(self, ids: Sequence[str]) -> np.ndarray:
        raise StoreError(f"the MCP bridge store holds no vectors (server {self.location})")

    def ids(self) -> list[str]:
        return []

    def persist(self) -> None:
        """Nothing to write."""

    def close(self) -> None:
        """End every session (stopping stdio servers: the SDK closes stdin, waits 2 s, then
        kills) and the background loop."""
        if self._thread.is_alive():
            try:
                self._run(self._disconnect(), SHUTDOWN_SECONDS + 1)
            except StoreError:
                pass
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=SHUTDOWN_SECONDS)

    # -- the session -------------------------------------------------------------------------

    def _call(self, tool: str, arguments: dict[str, Any]) -> Any:
        client = self._connected()
        try:
            return self._run(client.call_tool(tool, arguments), self.timeout_seconds)
        except StoreError:
            self._end_session()  # start afresh next time
            raise

    def _end_session(self) -> None:
        """Ask the current session to end without waiting for it (close() waits)."""
        self._client = None
        closing = self._closing
        if closing is not None:
            self._loop.call_soon_threadsafe(closing.set)
        self._session_task = None

    def _connected(self) -> Any:
        with self._lock:
            if self._client is None:
                self._run(self._connect(), self.timeout_seconds)
            return self._client

    async def _connect(self) -> None:
        ready: asyncio.Future[Any] = self._loop.create_future()
        self._closing = asyncio.Event()
        self._session_task = self._loop.create_task(self._session(ready, self._closing))
        self._sessions.add(self._session_task)
        self._session_task.add_done_callback(self._sessions.discard)
        client = await ready
        listed = await client.list_tools()
        names = [tool.name for tool in listed.tools]
        if self.tool not in names:
            await self._disconnect()
            raise StoreError(f"MCP server {self.location} has no tool {self.tool!r} (it has: "
                             f"{', '.join(names) or 'none'}); set [rag.vector_store.mcp] tool")
        self._has_status = "rag_status" in names
        self._client = client

    async def _session(self, ready: asyncio.Future[Any], closing: asyncio.Event) -> None:
        """Holds the client open (the SDK's transports must be entered and left in one task)."""
        mcp = import_optional("mcp", "mcp", "the MCP bridge store")
        opened = None
        try:
            async with mcp.Client(self._target(mcp)) as client:  # waits are bounded in _run
                opened = client
                ready.set_result(client)
                await closing.wait()
        except BaseException as exc:  # noqa: BLE001 - reported to the waiting caller
            if not ready.done():
                ready.set_exception(exc)
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise
        finally:
            if opened is not None and self._client is opened:
                self._client = None  # the server went away: the next call reconnects

    def _target(self, mcp: Any) -> Any:
        if self.server.startswith(("http://", "https://")):
            return self.server
        words = shlex.split(self.server)
        if not words:
            raise StoreError("[rag.vector_store.mcp] server is empty")
        # A search is a few small matrix products: OpenBLAS threads spinning after each one
        # only compete with this process on a small machine (bench/mcp_latency.py).
        environment = {"OPENBLAS_NUM_THREADS": "1", **os.environ}
        return mcp.StdioServerParameters(command=words[0], args=words[1:], env=environment)

    async def _disconnect(self) -> None:
        """End the current session and wait for every session to finish shutting down."""
        if self._closing is not None:
            self._closing.set()
        self._session_task = None
        self._client = None
        if self._sessions:
            await asyncio.wait(set(self._sessions), timeout=SHUTDOWN_SECONDS)

    def _run(self, coroutine: Coroutine[Any, Any, Any], timeout: float) -> Any:
        """Run ``coroutine`` on the bridge's loop; errors become StoreErrors naming the server."""
        future = asyncio.run_coroutine_threadsafe(coroutine, self._loop)
        try:
            return future.result(timeout=timeout)
        except FutureTimeout:
            future.cancel()
            raise StoreError(f"MCP server {self.location} did not answer within "
                             f"{timeout:g} s") from None
        except StoreError:
            raise
        except Exception as exc:
            raise StoreError(f"MCP server {self.location} failed: {type(exc).__name__}: "
                             f"{hide_secrets(str(exc), self.server)}") from None


def parse_answer(answer: Any, location: str, tool: str) -> list[SearchResult]:
    """SearchResults from a ``rag_search`` answer: its structured results when present,
    else its ``--- Result N (score: ..., source: path:a-b) ---`` text blocks."""
    text = "".join(getattr(block, "text", "") for block in getattr(answer, "content", []) or [])
    if getattr(answer, "is_error", False):
        raise StoreError(f"MCP server {location}: tool {tool!r} failed: {text[:500]}")
    structured = getattr(answer, "structured_content", None)
    try:
        if isinstance(structured, dict) and "results" in structured:
            return [_from_record(record) for record in structured["results"]]
        if text.startswith("No relevant documents found"):
            return []
        return _from_text(text)
    except (KeyError, TypeError, ValueError) as exc:
        raise StoreError(f"MCP server {location}: tool {tool!r} answered in a form ragloom cannot "
                         f"read ({exc}): {text[:200]!r}") from None


def _from_record(record: dict[str, Any]) -> SearchResult:
    score = float(record["score"])
    text = str(record["text"])
    metadata: Metadata = {key: value for key, value in record.items()
                          if key not in ("id", "score", "text", "paths")
                          and isinstance(value, (str, int, float, bool))}
    result = SearchResult(str(record.get("id") or record.get("path") or ""), text, metadata, score,
                          1.0 - score)
    if isinstance(record.get("paths"), list):
        result.metadata["paths"] = [str(path) for path in record["paths"]]  # type: ignore[assignment]
    return result


def _from_text(text: str) -> list[SearchResult]:
    headers = list(_RESULT_HEADER.finditer(text))
    if not headers:
        raise ValueError("no '--- Result N (score: ..., source: ...) ---' blocks")
    results = []
    for index, header in enumerate(headers):
        end = headers[index + 1].start() if index + 1 < len(headers) else len(text)
        body = text[header.end() + 1:end].rstrip("\n") + "\n"
        source = header["source"]
        metadata: Metadata = {}
        lines = _LINES.match(source)
        if lines:
            metadata = {"path": lines["path"], "start_line": int(lines["start"]),
                        "end_line": int(lines["end"])}
        else:
            metadata = {"path": source}
        score = float(header["score"])
        results.append(SearchResult(source, body, metadata, score, 1.0 - score))
    return results


def describe_server(server: str) -> str:
    """The server as error messages show it: a URL without credentials or query, or a
    command line with values of key-like options hidden."""
    if server.startswith(("http://", "https://")):
        parts = urlsplit(server)
        host = parts.hostname or ""
        netloc = f"{host}:{parts.port}" if parts.port else host
        return urlunsplit((parts.scheme, netloc, parts.path, "", ""))
    try:
        words = shlex.split(server)
    except ValueError:
        return "(an unparsable command line)"
    shown: list[str] = []
    hide_next = False
    for word in words:
        lowered = word.lower()
        if hide_next:
            shown.append("***")
            hide_next = False
        elif "=" in word and any(s in lowered.split("=", 1)[0] for s in _SECRET_WORDS):
            shown.append(shlex.quote(word.split("=", 1)[0]) + "=***")
        else:
            shown.append(shlex.quote(word))
            hide_next = word.startswith("-") and any(s in lowered for s in _SECRET_WORDS)
    return " ".join(shown)


def hide_secrets(message: str, server: str) -> str:
    """``message`` with any word of the server command or URL that ``describe_server``
    hides replaced by ``***``."""
    shown = set(describe_server(server).replace("=", " ").split())
    for word in re.split(r"[\s=:@/?&]+", server):
        if len(word) >= 6 and word not in shown:
            message = message.replace(word, "***")
    return message
