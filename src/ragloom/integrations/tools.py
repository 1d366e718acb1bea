"""The ``rag_search`` tool a model can call, for any function-calling API: its JSON schema,
the handler, and the text format of its results. Each integration in
``ragloom.integrations`` declares it in its API's terms and runs ``run_tool``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ragloom.prompt import one_line
from ragloom.types import SearchResult

if TYPE_CHECKING:
    from ragloom.engine import RAGEngine

TOOL_NAME = "rag_search"
MAX_TOOL_TOP_K = 20

#: JSON schema of the tool, usable with any function-calling API.
RAG_SEARCH_SCHEMA: dict[str, Any] = {
    "name": TOOL_NAME,
    "description": ("Search the project's indexed files and documents for passages relevant to "
                    "a question. Returns the best matching chunks with their file and lines."),
    "parameters": {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "What to look for, in natural language "
                      "or with exact identifiers."},
            "top_k": {"type": "integer", "minimum": 1, "maximum": MAX_TOOL_TOP_K,
                      "description": "How many results to return (default 5)."},
        },
        "required": ["query"],
    },
}


def format_tool_results(query: str, results: list[SearchResult]) -> str:
    """The text the model reads: one ``--- Result N ...`` header per chunk, then its text."""
    if not results:
        return f"No relevant documents found for: {query}"
    blocks = []
    for number, result in enumerate(results, start=1):
        meta = result.metadata
        source = str(meta.get("path") or meta.get("source_id") or result.id)
        if "start_line" in meta and "end_line" in meta:
            source += f":{meta['start_line']}-{meta['end_line']}"
        blocks.append(f"--- Result {number} (score: {result.score:.3f}, source: {one_line(source)}) ---\n"
                      f"{result.text.rstrip()}")
    return "\n\n".join(blocks)


def handle_rag_search(engine: RAGEngine, arguments: Mapping[str, Any]) -> str:
    """Run the tool call; bad arguments come back as text the model can correct."""
    query = arguments.get("query")
    if not isinstance(query, str) or not query.strip():
        return "Error: rag_search needs a non-empty string 'query'."
    top_k = arguments.get("top_k", 5)
    if isinstance(top_k, float) and top_k.is_integer():
        top_k = int(top_k)
    if not isinstance(top_k, int) or isinstance(top_k, bool) or not 1 <= top_k <= MAX_TOOL_TOP_K:
        return f"Error: rag_search 'top_k' must be an integer from 1 to {MAX_TOOL_TOP_K}."
    return format_tool_results(query, engine.search(query, top_k=top_k))


def run_tool(engine: RAGEngine, name: str | None, arguments: Mapping[str, Any]) -> str:
    """Run a tool call by name; an unknown name comes back as text the model can read."""
    if name != TOOL_NAME:
        return f"Error: unknown tool {name!r}; the only tool is {TOOL_NAME!r}."
    return handle_rag_search(engine, arguments)

