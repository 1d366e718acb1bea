"""The inspector's HTTP server: the standard library's ThreadingHTTPServer on 127.0.0.1,
serving the page (files shipped in this package, no network) and the JSON API. It only
reads. A request naming another host (DNS rebinding: a web page's script reaching a local
server through a name it controls) gets 403; every refused request gets a JSON error with
its status: 400 bad parameters, 403 host or path refused, 404 nothing there, 405 method."""

from __future__ import annotations

import json
import logging
import math
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import TYPE_CHECKING, Any, TextIO
from urllib.parse import parse_qs, urlsplit

from ragloom.apps.inspector.api import ApiError, Inspector
from ragloom.errors import RagloomError
from ragloom.security.display import redact_for_display

if TYPE_CHECKING:
    from ragloom.engine import RAGEngine

logger = logging.getLogger("ragloom")
HOST = "127.0.0.1"
#: The page's files: URL path -> (file in this package, content type).
ASSETS = {"/": ("page.html", "text/html; charset=utf-8"),
          "/page.js": ("page.js", "text/javascript; charset=utf-8"),
          "/page.css": ("page.css", "text/css; charset=utf-8")}
#: Everything comes from this server; nothing is framed, nothing inline runs.
SECURITY_HEADERS = {"Content-Security-Policy": "default-src 'self'; img-src 'self' data:; "
                    "frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
                    "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer",
                    "Cache-Control": "no-store"}


def allowed_hosts(port: int) -> frozenset[str]:
    """The Host headers a local browser sends for this server, and no other."""
    return frozenset({f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}"})


class InspectorHandler(BaseHTTPRequestHandler):
    """One request: check the Host, then a page file or an API answer (GET and HEAD only)."""

    server: InspectorServer
    server_version = "ragloom-inspect"
    sys_version = ""

    def do_GET(self) -> None:  # noqa: N802 (the name http.server dispatches to)
        self._answer(body=True)

    def do_HEAD(self) -> None:  # noqa: N802
        self._answer(body=False)

    def _refuse_method(self) -> None:
        self._send_json(405, {"error": f"method {self.command} not allowed; the inspector only "
                              "reads (GET)", "status": 405}, extra={"Allow": "GET, HEAD"})

    do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = do_TRACE = do_CONNECT = _refuse_method

    def _answer(self, body: bool) -> None:
        self._with_body = body
        host = self.headers.get("Host", "")
        if host not in allowed_hosts(self.server.server_port):
            self._error(403, f"Host {host!r} refused: open the page as http://127.0.0.1:"
                        f"{self.server.server_port}/ (or localhost)")
            return
        url = urlsplit(self.path)
        if url.path in ASSETS:
            name, content_type = ASSETS[url.path]
            data = resources.files(__package__).joinpath(name).read_bytes()
            self._send(200, data, content_type)
            return
        endpoint = {"/api/search": self.server.inspector.search, "/api/index": self.server.inspector.index,
                    "/api/file": self.server.inspector.file}.get(url.path)
        if endpoint is None:
            self._error(404, f"nothing at {url.path!r}; the API is /api/search, /api/index, /api/file")
            return
        try:
            params = parse_qs(url.query, keep_blank_values=True, strict_parsing=False, max_num_fields=100)
            self._send_json(200, endpoint(params))
        except ApiError as refused:
            self._error(refused.status, str(refused))
        except ValueError as exc:  # too many fields, or a value the engine refused
            self._error(400, str(exc))
        except (RagloomError, OSError) as exc:  # a damaged index, a store's server gone
            logger.warning("inspect: %s failed: %s", url.path, exc)
            self._error(500, f"{url.path} failed: {type(exc).__name__}: {exc}")

    def _error(self, status: int, message: str) -> None:
        self._send_json(status, {"error": redact_for_display(message), "status": status})

    def _send_json(self, status: int, payload: dict[str, Any], extra: dict[str, str] | None = None) -> None:
        data = json.dumps(_finite(payload), ensure_ascii=False).encode("utf-8")
        self._send(status, data, "application/json; charset=utf-8", extra)

    def _send(self, status: int, data: bytes, content_type: str, extra: dict[str, str] | None = None) -> None:
        self.send_response(status)
        for key, value in {"Content-Type": content_type, "Content-Length": str(len(data)),
                           **SECURITY_HEADERS, **(extra or {})}.items():
            self.send_header(key, value)
        self.end_headers()
        if getattr(self, "_with_body", True):
            self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (the base's name)
        logger.info("inspect: " + format, *args)


def _finite(value: Any) -> Any:
    """JSON has no NaN or infinity: such a number (a score of an empty candidate) is null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return value


class InspectorServer(ThreadingHTTPServer):
    """A ThreadingHTTPServer holding the Inspector its handlers answer from."""

    daemon_threads = True

    def __init__(self, engine: RAGEngine, port: int = 0) -> None:
        self.inspector = Inspector(engine)
        super().__init__((HOST, port), InspectorHandler)

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.server_port}/"


def serve(engine: RAGEngine, port: int = 0, out: TextIO | None = None) -> None:
    """Serve the page for ``engine`` on 127.0.0.1 (``port`` 0: a free one) until stopped,
    printing its address first; the model, the index and its make-up load meanwhile."""
    with InspectorServer(engine, port) as server:
        threading.Thread(target=server.inspector.warm, name="ragloom-inspect-warm", daemon=True).start()
        if out is not None:
            print(f"ragloom inspect: {server.url} (Ctrl-C stops)", file=out, flush=True)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
