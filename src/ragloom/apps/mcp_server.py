"""ragloom as an MCP server (``ragloom mcp``): one project's index for any MCP client.

Tools: ``rag_search(query, top_k?, filters?, compress?)`` (text blocks in the format of the Gemini
tool plus structured results), ``rag_status()``, and ``rag_index(path?)``, which is off
unless the server was started with writes allowed. Resources: each indexed file as
``ragloom://file/{path}``, read-only and inside base_dir, secrets redacted as search
redacts them, listed RESOURCES_PAGE at a time (``nextCursor`` for the rest). ``rag_index``
refuses what the directory walk excludes. Bad arguments come back as tool errors the model
can read; a request that is not JSON, nests too deep or is no JSON-RPC message gets a
JSON-RPC error reply (``ragloom.apps.mcp_screen``). The server reports ragloom's version.
Built on the official ``mcp`` SDK (extra ``ragloom[mcp]``).
"""

from __future__ import annotations

import base64
import bisect
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from pydantic import StrictBool, StrictInt

from ragloom._optional import import_optional
from ragloom.errors import RagloomError
from ragloom.integrations.tools import MAX_TOOL_TOP_K, RAG_SEARCH_SCHEMA, TOOL_NAME, format_tool_results
from ragloom.security.display import redact_for_display
from ragloom.types import SearchResult
from ragloom.version import __version__

if TYPE_CHECKING:
    from ragloom.engine import RAGEngine

FILE_URI_PREFIX = "ragloom://file/"
SERVER_NAME = "ragloom"
#: Files per ``resources/list`` page: clients cap what one message may carry.
RESOURCES_PAGE = 1000


def result_record(result: SearchResult) -> dict[str, Any]:
    """One result as structured content: where it is, what it is, how well it matched."""
    meta = result.metadata
    record: dict[str, Any] = {"id": result.id, "score": round(result.score, 6), "text": result.text}
    for key in ("path", "source_id", "chunk_index", "start_line", "end_line", "symbol", "heading",
                "heading_path", "page", "page_end", "source_type", "language"):
        if key in meta:
            record[key] = meta[key]
    if "paths" in meta:
        record["paths"] = list(meta["paths"])  # type: ignore[arg-type]
    if result.kept_lines is not None:  # compressed: the file lines ``text`` keeps
        record["kept_lines"] = [list(span) for span in result.kept_lines]
    return record


def build_server(engine: RAGEngine, allow_writes: bool = False) -> Any:
    """An ``MCPServer`` serving ``engine``'s index (writes only when ``allow_writes``)."""
    mcpserver = import_optional("mcp.server.mcpserver", "mcp", "ragloom mcp")
    types = import_optional("mcp.types", "mcp", "ragloom mcp")
    tool_error = mcpserver.exceptions.ToolError
    server = mcpserver.MCPServer(
        SERVER_NAME, version=__version__, instructions="Search this project's indexed files "
        "and documents with rag_search; each result names its file and lines.", log_level="WARNING")

    # A plain function: the SDK runs it on a worker thread, so a slow search (a long query
    # through a large index, a remote embedder) never keeps the server from answering other
    # calls, which the SDK handles concurrently.
    @server.tool(name=TOOL_NAME, description=RAG_SEARCH_SCHEMA["description"])
    def rag_search(query: str, top_k: StrictInt = 5, filters: dict[str, Any] | None = None,
                   compress: StrictBool | None = None) -> Any:
        if not query.strip():
            raise tool_error("rag_search needs a non-empty 'query'")
        if not 1 <= top_k <= MAX_TOOL_TOP_K:
            raise tool_error(f"'top_k' must be from 1 to {MAX_TOOL_TOP_K}, got {top_k}")
        try:
            response = engine.search_detailed(query, top_k=top_k, filters=filters, compress=compress)
        except (TypeError, ValueError, RagloomError) as exc:
            raise tool_error(redact_for_display(f"rag_search failed: {exc}")) from None
        results = response.results
        text = format_tool_results(query, results)
        gate = {"best_score": response.best_score, "relevance_gate": response.relevance_gate}
        if response.gated:  # say why, so the client does not take it for an empty index
            text += (f" (the best match scored {response.best_score:.3f}, below the relevance "
                     f"gate {response.relevance_gate}: nothing in the index is close enough)")
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)],
            structured_content={"query": query, "results": [result_record(r) for r in results],
                                "nothing_relevant": response.gated} | gate)

    @server.tool(name="rag_status", description="What the index holds: files, chunks, store, "
                 "embedding model, where it lives, sizes, when it was last indexed (ISO 8601 "
                 "UTC), files pending and skipped, usage against [rag.limits]; the record "
                 "'ragloom status --json' prints.")
    def rag_status() -> dict[str, Any]:
        return engine.status().to_dict() | {"writes_allowed": allow_writes}

    @server.tool(name="rag_index", description="Index new and changed files under a folder or "
                 "one file of the project (default: the whole project). Off unless the server "
                 "was started with --allow-writes.")
    def rag_index(path: str | None = None) -> dict[str, Any]:
        if not allow_writes:
            raise tool_error("rag_index is off: this server is read-only (start it with "
                             "'ragloom mcp --allow-writes' to let clients index)")
        target = inside_base_dir(engine, path or ".")
        refusal = engine.excluded_reason(target)
        if refusal is not None:
            raise tool_error(f"rag_index refused {path!r}: {refusal}; the directory walk never "
                             "indexes it (name it in [rag] include to index it on purpose)")
        try:
            report = engine.index_file(target) if target.is_file() else engine.index_directory(target)
        except (OSError, ValueError, RagloomError) as exc:
            raise tool_error(redact_for_display(f"rag_index failed: {exc}")) from None
        return {key: value for key, value in report.to_dict().items() if key != "skipped"} | {
            "skipped": [f"{s.path}: {s.reason}" for s in report.skipped]}

    @server.resource(FILE_URI_PREFIX + "{+path}", name="indexed file", mime_type="text/plain",
                     description="The text of a file in the index (as its reader read it).")
    def indexed_file(path: str) -> str:
        return read_indexed_file(engine, path)

    async def list_files(context: Any, params: Any) -> Any:
        """``resources/list``, RESOURCES_PAGE files at a time in path order; the cursor is the
        last path of the page before (so files indexed meanwhile shift no page)."""
        after = _decode_cursor(params.cursor) if params is not None and params.cursor else None
        paths = sorted(path for path in engine.get_all_indexed_paths()
                       if not (Path(path).is_absolute() or path.startswith("../")))  # outside base_dir
        start = bisect.bisect_right(paths, after) if after is not None else 0
        page = paths[start:start + RESOURCES_PAGE]
        more = start + RESOURCES_PAGE < len(paths)
        return types.ListResourcesResult(
            resources=[types.Resource(uri=file_uri(path), name=path, mime_type="text/plain")
                       for path in page],
            next_cursor=_encode_cursor(page[-1]) if more and page else None)

    # MCPServer lists registered resources in one message; the low-level server's own
    # handler hook takes the cursor.
    server._lowlevel_server.add_request_handler("resources/list", types.PaginatedRequestParams, list_files)
    return server


def _encode_cursor(path: str) -> str:
    return base64.urlsafe_b64encode(path.encode("utf-8")).decode("ascii")


def _decode_cursor(cursor: str) -> str:
    """The path a cursor continues after; a cursor this server did not hand out is refused."""
    try:
        return base64.urlsafe_b64decode(cursor.encode("ascii")).decode("utf-8")
    except (ValueError, UnicodeError):
        from mcp.shared.exceptions import MCPError

        raise MCPError(-32602, f"invalid cursor {cursor!r} for resources/list") from None


def file_uri(path: str) -> str:
    """``ragloom://file/<path>`` with the path percent-encoded (slashes kept)."""
    return FILE_URI_PREFIX + quote(path, safe="/")


def inside_base_dir(engine: RAGEngine, relative: str) -> Path:
    """``relative`` resolved against base_dir; a ToolError-worthy ValueError if it leaves it."""
    mcpserver = import_optional("mcp.server.mcpserver", "mcp", "ragloom mcp")
    base = engine.base_dir.resolve()
    target = (base / relative).resolve()
    if target != base and base not in target.parents:
        raise mcpserver.exceptions.ToolError(f"path {relative!r} is outside the project folder")
    return target


def read_indexed_file(engine: RAGEngine, relative: str) -> str:
    """The text of an indexed file; anything not indexed, or outside base_dir, is refused
    (``ragloom.apps.indexed_files``, the rules the inspector page follows too)."""
    mcpserver = import_optional("mcp.server.mcpserver", "mcp", "ragloom mcp")
    from ragloom.apps.indexed_files import FileRefused
    from ragloom.apps.indexed_files import read_indexed_file as read_confined

    try:
        return read_confined(engine, relative)
    except FileRefused as refused:
        raise mcpserver.exceptions.ResourceError(str(refused)) from None


def serve(engine: RAGEngine, http: bool = False, host: str = "127.0.0.1", port: int = 8765,
          allow_writes: bool = False) -> None:
    """Run until the client disconnects (stdio) or the process is stopped (HTTP)."""
    import anyio

    from ragloom.apps.mcp_screen import screened_http_app, serve_stdio

    server = build_server(engine, allow_writes)
    if not http:
        anyio.run(serve_stdio, server)
        return
    import uvicorn
    from mcp.server.transport_security import DEFAULT_MAX_REQUEST_BODY_SIZE

    app = screened_http_app(server.streamable_http_app(host=host), DEFAULT_MAX_REQUEST_BODY_SIZE)
    uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning")).run()
