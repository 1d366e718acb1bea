"""A small local HTTP server speaking the parts of the Gemini REST API ragloom uses.

Tests point the real google-genai SDK at it (``HttpOptions(base_url=...)``), so the SDK's
own request building, response parsing and error mapping run. Embeddings are deterministic
functions of the text (hash features at ``outputDimensionality``, scaled to half length:
like the real model below its full size, they are not unit vectors, so callers must
re-normalize). Failures can be scripted per call.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from fakes.json_server import FakeJsonServer
from ragloom.embeddings.hashing import HashEmbeddingProvider

FULL_DIMENSION = 3072
_ROUTE = re.compile(r"^/(?P<version>v1(?:beta)?)/models/(?P<model>[^:]+):(?P<method>\w+)")
_STATUS_NAMES = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED",
                 404: "NOT_FOUND", 429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE"}


class FakeGeminiServer(FakeJsonServer):
    """``generateContent`` answers queued replies (default "fake answer");
    ``batchEmbedContents`` answers hash embeddings."""

    def embedding_of(self, text: str, dimension: int | None = None) -> np.ndarray:
        return 0.5 * HashEmbeddingProvider(dimension or FULL_DIMENSION).embed([text])[0]

    def route(self, path: str, body: dict[str, Any]) -> tuple[str, str] | None:
        match = _ROUTE.match(path)
        return None if match is None else (match["method"], match["model"])

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        return {"error": {"code": status, "message": message,
                          "status": _STATUS_NAMES.get(status, "UNKNOWN")}}

    def answer(self, method: str, model: str,
               body: dict[str, Any]) -> tuple[int, dict[str, Any] | list[Any]]:
        if method == "batchEmbedContents":
            embeddings = []
            for request in body["requests"]:
                text = "".join(part.get("text", "") for part in request["content"]["parts"])
                vector = self.embedding_of(text, request.get("outputDimensionality"))
                embeddings.append({"values": [float(v) for v in vector]})
            return 200, {"embeddings": embeddings}
        if method == "generateContent":
            return 200, self.next_reply() or text_reply("fake answer")
        if method == "streamGenerateContent":  # the reply's text in pieces of a few words
            reply = self.next_reply() or text_reply("fake answer")
            text = reply["candidates"][0]["content"]["parts"][0]["text"]
            return 200, [text_reply(piece) for piece in stream_pieces(text)]
        return 404, self.error_body(404, f"no method {method}")


def text_reply(text: str) -> dict[str, Any]:
    """A generateContent response whose single candidate says ``text``."""
    return {"candidates": [{"content": {"role": "model", "parts": [{"text": text}]},
                            "finishReason": "STOP", "index": 0}]}


def stream_pieces(text: str, words: int = 2) -> list[str]:
    """``text`` cut after every ``words`` words (spaces kept), as a streamed answer arrives."""
    tokens = text.split(" ")
    return [" ".join(tokens[i:i + words]) + (" " if i + words < len(tokens) else "")
            for i in range(0, len(tokens), words)]
