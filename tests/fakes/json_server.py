"""A small local HTTP server answering JSON POSTs, the base of the fake model APIs.

Requests are recorded; failures (status + message) and replies are scripted per call.
Subclasses say which paths they serve (``route``), how they answer (``answer``: a JSON body,
or a list of them sent as server-sent events) and what their API's error body looks like
(``error_body``).
"""

from __future__ import annotations

import json
import threading
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


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


class FakeJsonServer:
    """Start with ``with Server() as server:``; ``server.base_url`` for the SDK."""

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
        """Queue the body of the next model answer."""
        self.replies.append(response)

    def next_reply(self) -> dict[str, Any] | None:
        with self._lock:
            return self.replies.popleft() if self.replies else None

    def calls(self, method: str) -> list[RecordedRequest]:
        return [r for r in self.requests if r.method == method]

    def __enter__(self) -> FakeJsonServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    # -- what a subclass defines -------------------------------------------------------------

    def route(self, path: str, body: dict[str, Any]) -> tuple[str, str] | None:
        """(method, model) of a request path, or None for a path this API does not have."""
        raise NotImplementedError

    def answer(self, method: str, model: str,
               body: dict[str, Any]) -> tuple[int, dict[str, Any] | list[Any]]:
        raise NotImplementedError

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        raise NotImplementedError

    # ---------------------------------------------------------------------------------------

    def _respond(self, path: str, headers: dict[str, str],
                 body: dict[str, Any]) -> tuple[int, dict[str, str], dict[str, Any] | list[Any]]:
        routed = self.route(path, body)
        if routed is None:
            return 404, {}, self.error_body(404, f"no such path {path}")
        method, model = routed
        self.requests.append(RecordedRequest(method, model, headers, body))
        with self._lock:
            failure = self.failures.popleft() if self.failures else None
        if failure is not None:
            return failure.status, failure.headers, self.error_body(failure.status, failure.message)
        status, payload = self.answer(method, model, body)
        return status, {}, payload

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server naming
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                status, headers, payload = server._respond(self.path, dict(self.headers), body)
                if isinstance(payload, list):  # server-sent events, one per element
                    data = "".join(f"data: {event if isinstance(event, str) else json.dumps(event)}\n\n"
                                   for event in payload).encode()
                    content_type = "text/event-stream"
                else:
                    data = json.dumps(payload).encode()
                    content_type = "application/json"
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                pass

        return Handler
