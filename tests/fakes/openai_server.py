"""A small local HTTP server speaking the OpenAI chat-completions API (``POST
/v1/chat/completions``), as OpenAI and local servers (llama.cpp, vLLM, Ollama) do.

Tests point the real ``openai`` SDK at it (``base_url=server.base_url + "/v1"``), so the
SDK's own request building, response parsing, retries and error mapping run.
"""

from __future__ import annotations

import json
from typing import Any

from fakes.json_server import FakeJsonServer

_ERROR_TYPES = {400: "invalid_request_error", 401: "authentication_error", 404: "not_found_error",
                429: "rate_limit_exceeded", 500: "server_error"}


class FakeOpenAIServer(FakeJsonServer):
    """``chat/completions`` answers queued replies (default "fake answer")."""

    def route(self, path: str, body: dict[str, Any]) -> tuple[str, str] | None:
        if path.rstrip("/") != "/v1/chat/completions":
            return None
        return "chat.completions", str(body.get("model", ""))

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        return {"error": {"message": message, "type": _ERROR_TYPES.get(status, "api_error"),
                          "param": None, "code": None}}

    def answer(self, method: str, model: str,
               body: dict[str, Any]) -> tuple[int, dict[str, Any] | list[Any]]:
        message = self.next_reply() or {"role": "assistant", "content": "fake answer"}
        if body.get("stream"):
            from fakes.gemini_server import stream_pieces

            chunk = {"id": "chatcmpl-s", "object": "chat.completion.chunk", "created": 0, "model": model}
            events: list[Any] = [chunk | {"choices": [{"index": 0, "delta": {"role": "assistant",
                                                                              "content": piece},
                                                        "finish_reason": None}]}
                                 for piece in stream_pieces(message.get("content") or "")]
            events.append(chunk | {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
            return 200, [*events, "[DONE]"]
        finish = "tool_calls" if message.get("tool_calls") else "stop"
        return 200, {"id": f"chatcmpl-{len(self.requests)}", "object": "chat.completion",
                     "created": 0, "model": model,
                     "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                     "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}


def text_message(text: str) -> dict[str, Any]:
    """An assistant message saying ``text``."""
    return {"role": "assistant", "content": text}


def tool_call_message(query: str, top_k: int | None = None, *, name: str = "rag_search",
                      raw_arguments: str | None = None, call_id: str = "call_1") -> dict[str, Any]:
    """An assistant message calling ``name`` (``raw_arguments`` overrides the JSON)."""
    arguments = raw_arguments if raw_arguments is not None else json.dumps(
        {"query": query} | ({"top_k": top_k} if top_k else {}))
    return {"role": "assistant", "content": None, "tool_calls": [
        {"id": call_id, "type": "function",
         "function": {"name": name, "arguments": arguments}}]}
