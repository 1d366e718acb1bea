"""The OpenAI chat-completions API through the ``openai`` SDK: OpenAI itself and the local
servers that speak it (llama.cpp's server, vLLM, Ollama, LM Studio), chosen by ``base_url``.

    chat = OpenAIChat.connect(model="llama3.1", base_url="http://127.0.0.1:11434/v1")
    answer = chat.send_detailed(prompt_md, question, rag_engine=engine)
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from ragloom._optional import import_optional
from ragloom.errors import ConfigError
from ragloom.integrations.base import ChatIntegration, Turn
from ragloom.integrations.tools import RAG_SEARCH_SCHEMA, run_tool

if TYPE_CHECKING:
    from ragloom.engine import RAGEngine

DEFAULT_MODEL = "gpt-4o-mini"
API_KEY_VARIABLE = "OPENAI_API_KEY"
#: Local servers ignore the key but the SDK wants one.
LOCAL_SERVER_KEY = "not-needed"

#: ``rag_search`` as a chat-completions tool.
RAG_SEARCH_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {"name": RAG_SEARCH_SCHEMA["name"], "description": RAG_SEARCH_SCHEMA["description"],
                 "parameters": RAG_SEARCH_SCHEMA["parameters"]},
}


def build_client(base_url: str | None = None, api_key: str | None = None, **options: Any) -> Any:
    """An ``openai.OpenAI`` client; the key comes from ``api_key`` or OPENAI_API_KEY, and a
    server on this machine (localhost, 127.0.0.1) needs none. The key is never logged."""
    openai = import_optional("openai", "openai", "the OpenAI-compatible integration")
    base_url = base_url or os.environ.get("OPENAI_BASE_URL")
    key = api_key or os.environ.get(API_KEY_VARIABLE)
    if not key:
        if base_url and _is_local(base_url):
            key = LOCAL_SERVER_KEY
        else:
            raise ConfigError(f"the OpenAI-compatible integration needs an API key: pass api_key or "
                              f"set {API_KEY_VARIABLE} (a server on this machine needs none)")
    return openai.OpenAI(api_key=key, base_url=base_url, **options)


def _is_local(url: str) -> bool:
    return (urlsplit(url).hostname or "") in ("localhost", "127.0.0.1", "::1")


class OpenAIChat(ChatIntegration):
    """An ``openai.OpenAI`` client (or any object with its ``chat.completions.create``) and a
    model name."""

    def __init__(self, client: Any, model: str = DEFAULT_MODEL) -> None:
        self.client = client
        self.model = model

    @classmethod
    def connect(cls, model: str = DEFAULT_MODEL, base_url: str | None = None,
                api_key: str | None = None, **options: Any) -> OpenAIChat:
        """A chat on a new client (see ``build_client``)."""
        return cls(build_client(base_url, api_key, **options), model)

    def complete_turns(self, system: str, turns: Sequence[Turn]) -> str:
        response = self.client.chat.completions.create(model=self.model,
                                                       messages=_messages(system, turns))
        return response.choices[0].message.content or ""

    def stream_turns(self, system: str, turns: Sequence[Turn]) -> Iterator[str]:
        stream = self.client.chat.completions.create(model=self.model, messages=_messages(system, turns),
                                                     stream=True)
        for chunk in stream:
            if chunk.choices and chunk.choices[0].delta.content:
                yield chunk.choices[0].delta.content

    def complete_with_tools(self, system: str, user_message: str, rag_engine: RAGEngine,
                            max_rounds: int) -> str:
        messages = _messages(system, [Turn("user", user_message)])
        for _ in range(max_rounds):
            response = self.client.chat.completions.create(model=self.model, messages=messages,
                                                           tools=[RAG_SEARCH_TOOL])
            message = response.choices[0].message
            if not message.tool_calls:
                return message.content or ""
            messages.append({"role": "assistant", "content": message.content, "tool_calls": [
                {"id": call.id, "type": "function",
                 "function": {"name": call.function.name, "arguments": call.function.arguments}}
                for call in message.tool_calls]})
            for call in message.tool_calls:
                messages.append({"role": "tool", "tool_call_id": call.id,
                                 "content": _run_call(rag_engine, call.function.name,
                                                      call.function.arguments)})
        response = self.client.chat.completions.create(model=self.model, messages=messages,
                                                       tools=[RAG_SEARCH_TOOL], tool_choice="none")
        return response.choices[0].message.content or ""


def _messages(system: str, turns: Sequence[Turn]) -> list[dict[str, Any]]:
    """The chat messages: the system instruction (left out when empty), then the turns."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
    messages += [{"role": turn.role, "content": turn.text} for turn in turns]
    return messages


def _run_call(engine: RAGEngine, name: str, arguments: str) -> str:
    """Run one tool call whose arguments arrive as a JSON string (the model may get it wrong)."""
    try:
        parsed = json.loads(arguments or "{}")
    except json.JSONDecodeError as exc:
        return f"Error: the arguments of {name!r} are not valid JSON ({exc.msg}); send an object."
    if not isinstance(parsed, dict):
        return f"Error: the arguments of {name!r} must be a JSON object."
    return run_tool(engine, name, parsed)
