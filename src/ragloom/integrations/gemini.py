"""Gemini through the google-genai SDK: ``send``, ``send_detailed`` and ``send_with_tools``.

``md_content`` (the application's markdown prompt) becomes the system instruction, with
the ``[RETRIEVED CONTEXT]`` block appended when the engine finds something for the user's
message; the user's message is the turn's content. With no engine, an empty index or no
result above ``min_score``, the request is exactly the one made without ragloom.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from ragloom.embeddings.gemini_client import build_client, genai_module
from ragloom.integrations.base import ChatIntegration, SendResult, Turn
from ragloom.integrations.tools import RAG_SEARCH_SCHEMA, TOOL_NAME, run_tool

if TYPE_CHECKING:
    from ragloom.engine import RAGEngine

DEFAULT_MODEL = "gemini-2.5-flash"


def resolve_client(client: Any, rag_engine: RAGEngine | None) -> Any:
    """The given client, else one built from the engine's config (``[rag.embedding]``
    api_key, api_key_env, base_url) or GEMINI_API_KEY / GOOGLE_API_KEY."""
    if client is not None:
        return client
    config = rag_engine.config if rag_engine is not None else None
    return build_client(config.embedding.resolved_api_key() if config else None,
                        config.embedding.base_url if config else None, "ragloom.send")


def rag_search_declaration() -> Any:
    """The tool as a google-genai ``FunctionDeclaration``."""
    types = genai_module("the rag_search tool").types
    return types.FunctionDeclaration(
        name=TOOL_NAME, description=RAG_SEARCH_SCHEMA["description"],
        parameters_json_schema=RAG_SEARCH_SCHEMA["parameters"])


class GeminiChat(ChatIntegration):
    """A google-genai client and a model name."""

    def __init__(self, client: Any, model: str = DEFAULT_MODEL) -> None:
        self.client = client
        self.model = model

    def complete_turns(self, system: str, turns: Sequence[Turn]) -> str:
        response = self.client.models.generate_content(
            model=self.model, contents=self._contents(turns), config=self._config(system))
        return response.text or ""

    def stream_turns(self, system: str, turns: Sequence[Turn]) -> Iterator[str]:
        for chunk in self.client.models.generate_content_stream(
                model=self.model, contents=self._contents(turns), config=self._config(system)):
            if chunk.text:
                yield chunk.text

    @staticmethod
    def _config(system: str) -> Any:
        types = genai_module("ragloom.send").types
        return types.GenerateContentConfig(system_instruction=system) if system else None

    @staticmethod
    def _contents(turns: Sequence[Turn]) -> Any:
        """One user turn as a plain string (the request an app makes without ragloom);
        several as Contents with Gemini's roles ("user", "model")."""
        if len(turns) == 1 and turns[0].role == "user":
            return turns[0].text
        types = genai_module("ragloom.send").types
        return [types.Content(role="model" if turn.role == "assistant" else "user",
                              parts=[types.Part.from_text(text=turn.text)]) for turn in turns]

    def complete_with_tools(self, system: str, user_message: str, rag_engine: RAGEngine,
                            max_rounds: int) -> str:
        types = genai_module("send_with_tools").types
        tools = [types.Tool(function_declarations=[rag_search_declaration()])]
        contents: list[Any] = [types.Content(role="user",
                                             parts=[types.Part.from_text(text=user_message)])]
        for _ in range(max_rounds):
            config = types.GenerateContentConfig(system_instruction=system or None, tools=tools)
            response = self.client.models.generate_content(model=self.model, contents=contents,
                                                           config=config)
            calls = response.function_calls or []
            if not calls:
                return response.text or ""
            contents.append(response.candidates[0].content)
            contents.append(types.Content(role="user", parts=[
                types.Part.from_function_response(name=call.name, response={"result": run_tool(
                    rag_engine, call.name, call.args or {})}) for call in calls]))
        no_calls = types.ToolConfig(function_calling_config=types.FunctionCallingConfig(mode="NONE"))
        config = types.GenerateContentConfig(system_instruction=system or None, tools=tools,
                                             tool_config=no_calls)
        return self.client.models.generate_content(model=self.model, contents=contents,
                                                   config=config).text or ""


def send_detailed(md_content: str, user_message: str, *, rag_engine: RAGEngine | None = None,
                  client: Any = None, model: str = DEFAULT_MODEL, top_k: int | None = None,
                  token_budget: int | None = None, system_prompt: str | None = None) -> SendResult:
    """Like ``send``, returning which chunks were injected and the full system instruction."""
    chat = GeminiChat(resolve_client(client, rag_engine), model)
    return chat.send_detailed(md_content, user_message, rag_engine=rag_engine, top_k=top_k,
                              token_budget=token_budget, system_prompt=system_prompt)


def send(md_content: str, user_message: str, *, rag_engine: RAGEngine | None = None,
         client: Any = None, model: str = DEFAULT_MODEL, top_k: int | None = None,
         token_budget: int | None = None, system_prompt: str | None = None) -> str:
    """Ask ``model`` the user's message with ``md_content`` (plus retrieved context) as the
    system instruction; returns the answer's text."""
    return send_detailed(md_content, user_message, rag_engine=rag_engine, client=client, model=model,
                         top_k=top_k, token_budget=token_budget, system_prompt=system_prompt).text


def send_with_tools(md_content: str, user_message: str, *, rag_engine: RAGEngine, client: Any = None,
                    model: str = DEFAULT_MODEL, max_rounds: int = 4,
                    system_prompt: str | None = None) -> str:
    """Let the model call ``rag_search`` up to ``max_rounds`` times, then return its answer.
    If it still asks for the tool after the last round, one more call with function calling
    switched off makes it answer from what it has."""
    chat = GeminiChat(resolve_client(client, rag_engine), model)
    return chat.send_with_tools(md_content, user_message, rag_engine=rag_engine,
                                max_rounds=max_rounds, system_prompt=system_prompt)
