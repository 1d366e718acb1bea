"""The ``rag_search`` tool a model can call: schema, google-genai declaration, handler, and
``send_with_tools`` running the function-calling loop with the real SDK."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ragloom.gemini_client import genai_module
from ragloom.llm import DEFAULT_MODEL, resolve_client
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


def rag_search_declaration() -> Any:
    """The tool as a google-genai ``FunctionDeclaration``."""
    types = genai_module("the rag_search tool").types
    return types.FunctionDeclaration(
        name=TOOL_NAME, description=RAG_SEARCH_SCHEMA["description"],
        parameters_json_schema=RAG_SEARCH_SCHEMA["parameters"])


def format_tool_results(query: str, results: list[SearchResult]) -> str:
    """The text the model reads: one ``--- Result N ...`` header per chunk, then its text."""
    if not results:
        return f"No relevant documents found for: {query}"
    blocks = []
    for number, result in enumerate(results, start=1):
        meta = result.metadata
        source = str(meta.get("path", result.id))
        if "start_line" in meta and "end_line" in meta:
            source += f":{meta['start_line']}-{meta['end_line']}"
        blocks.append(f"--- Result {number} (score: {result.score:.3f}, source: {source}) ---\n"
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


def send_with_tools(md_content: str, user_message: str, *, rag_engine: RAGEngine, client: Any = None,
                    model: str = DEFAULT_MODEL, max_rounds: int = 4,
                    system_prompt: str | None = None) -> str:
    """Let the model call ``rag_search`` up to ``max_rounds`` times, then return its answer.
    If it still asks for the tool after the last round, one more call with function calling
    switched off makes it answer from what it has."""
    types = genai_module("send_with_tools").types
    client = resolve_client(client, rag_engine)
    instruction = "\n\n".join(part for part in (system_prompt, md_content) if part) or None
    tools = [types.Tool(function_declarations=[rag_search_declaration()])]
    contents: list[Any] = [types.Content(role="user", parts=[types.Part.from_text(text=user_message)])]
    for _ in range(max_rounds):
        config = types.GenerateContentConfig(system_instruction=instruction, tools=tools)
        response = client.models.generate_content(model=model, contents=contents, config=config)
        calls = response.function_calls or []
        if not calls:
            return response.text or ""
        contents.append(response.candidates[0].content)
        contents.append(types.Content(role="user", parts=[
            types.Part.from_function_response(name=call.name, response={"result": _run_tool(
                rag_engine, call.name, call.args or {})}) for call in calls]))
    no_calls = types.ToolConfig(function_calling_config=types.FunctionCallingConfig(mode="NONE"))
    config = types.GenerateContentConfig(system_instruction=instruction, tools=tools, tool_config=no_calls)
    return client.models.generate_content(model=model, contents=contents, config=config).text or ""


def _run_tool(engine: RAGEngine, name: str | None, arguments: Mapping[str, Any]) -> str:
    if name != TOOL_NAME:
        return f"Error: unknown tool {name!r}; the only tool is {TOOL_NAME!r}."
    return handle_rag_search(engine, arguments)
