"""A small local HTTP server speaking the parts of the Gemini REST API ragloom uses.

Tests point the real google-genai SDK at it (``HttpOptions(base_url=...)``), so the SDK's
own request building, response parsing and error mapping run. Embeddings are deterministic
functions of the text (hash features at ``outputDimensionality``, scaled to half length:
like the real model below its full size, they are not unit vectors, so callers must
re-normalize). Failures can be scripted per call.
"""

from __future__ import annotations

import json
import re
import threading
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np

from ragloom.embeddings.hashing import HashEmbeddingProvider

FULL_DIMENSION = 3072
_ROUTE = re.compile(r"^/(?P<version>v1(?:beta)?)/models/(?P<model>[^:]+):(?P<method>\w+)")


@dataclass
class Failure:
    status: int
    message: str
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class RecordedRequest:
    method: str
    model: str
    headers: dict[str, str]
    body: dict[str, Any]


class FakeGeminiServer:
    """Start with ``with FakeGeminiServer() as server:``; ``server.base_url`` for the SDK."""

    def __init__(self) -> None:
        self.requests: list[RecordedRequest] = []
        self.failures: deque[Failure | None] = deque()  # None: answer that call normally
        self.replies: deque[dict[str, Any]] = deque()
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_port}"

    def fail_next(self, status: int, message: str = "scripted failure", times: int = 1,
                  headers: dict[str, str] | None = None) -> None:
        for _ in range(times):
            self.failures.append(Failure(status, message, headers or {}))

    def succeed_next(self, times: int) -> None:
        """Answer the next ``times`` calls normally (before failures queued after this)."""
        self.failures.extend([None] * times)

    def reply_next(self, response: dict[str, Any]) -> None:
        """Queue a generateContent response body (a GenerateContentResponse as JSON)."""
        self.replies.append(response)

    def embedding_of(self, text: str, dimension: int | None = None) -> np.ndarray:
        return 0.5 * HashEmbeddingProvider(dimension or FULL_DIMENSION).embed([text])[0]

    def calls(self, method: str) -> list[RecordedRequest]:
        return [r for r in self.requests if r.method == method]

    def __enter__(self) -> FakeGeminiServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _answer(self, method: str, model: str, body: dict[str, Any]) -> tuple[int, dict, dict]:
        with self._lock:
            failure = self.failures.popleft() if self.failures else None
        if failure is not None:
            status_names = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED",
                            403: "PERMISSION_DENIED", 429: "RESOURCE_EXHAUSTED",
                            500: "INTERNAL", 503: "UNAVAILABLE"}
            error = {"error": {"code": failure.status, "message": failure.message,
                               "status": status_names.get(failure.status, "UNKNOWN")}}
            return failure.status, failure.headers, error
        if method == "batchEmbedContents":
            embeddings = []
            for request in body["requests"]:
                text = "".join(part.get("text", "") for part in request["content"]["parts"])
                vector = self.embedding_of(text, request.get("outputDimensionality"))
                embeddings.append({"values": [float(v) for v in vector]})
            return 200, {}, {"embeddings": embeddings}
        if method == "generateContent":
            with self._lock:
                reply = self.replies.popleft() if self.replies else None
            return 200, {}, reply or text_reply("fake answer")
        return 404, {}, {"error": {"code": 404, "message": f"no method {method}",
                                   "status": "NOT_FOUND"}}

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server naming
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                match = _ROUTE.match(self.path)
                if match is None:
                    status, headers, payload = 404, {}, {"error": {"code": 404, "message": self.path}}
                else:
                    server.requests.append(RecordedRequest(
                        match["method"], match["model"], dict(self.headers), body))
                    status, headers, payload = server._answer(match["method"], match["model"], body)
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                pass

        return Handler


def text_reply(text: str) -> dict[str, Any]:
    """A generateContent response whose single candidate says ``text``."""
    return {"candidates": [{"content": {"role": "model", "parts": [{"text": text}]},
                            "finishReason": "STOP", "index": 0}]}
