"""``ragloom inspect``'s server over plain HTTP (no browser): each endpoint's answer, and
each refusal with its status and JSON error: foreign Host headers, paths leaving the
project, unknown paths, bad parameters, methods other than GET."""

from __future__ import annotations

import http.client
import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from inspector_project import make_project

from ragloom import RAGEngine, load_config
from ragloom.apps.inspector.server import InspectorServer


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[InspectorServer]:
    root = make_project(tmp_path_factory.mktemp("inspect"))
    with RAGEngine(load_config(root / "ragloom.toml"), root, read_only=True) as engine:
        with InspectorServer(engine) as running:
            thread = threading.Thread(target=running.serve_forever, daemon=True)
            thread.start()
            yield running
            running.shutdown()


def request(server: InspectorServer, target: str, method: str = "GET",
            host: str | None = None) -> tuple[int, dict[str, str], bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", server.server_port, timeout=30)
    connection.putrequest(method, target, skip_host=True)
    connection.putheader("Host", host if host is not None else f"127.0.0.1:{server.server_port}")
    connection.endheaders()
    response = connection.getresponse()
    body = response.read()
    connection.close()
    return response.status, dict(response.getheaders()), body


def get_json(server: InspectorServer, target: str, **kwargs: Any) -> tuple[int, dict[str, Any]]:
    status, headers, body = request(server, target, **kwargs)
    assert headers["Content-Type"] == "application/json; charset=utf-8"
    return status, json.loads(body)


def test_page_and_its_files_are_served_locally(server: InspectorServer) -> None:
    status, headers, body = request(server, "/?q=rockets")
    assert status == 200 and headers["Content-Type"] == "text/html; charset=utf-8"
    assert b'<script src="/page.js"' in body and b"http" not in body.lower().replace(b"http-equiv", b"")
    assert "default-src 'self'" in headers["Content-Security-Policy"]
    for asset, kind in (("/page.js", "text/javascript"), ("/page.css", "text/css")):
        status, headers, body = request(server, asset)
        assert status == 200 and headers["Content-Type"].startswith(kind) and body
        assert b"https://" not in body and b"cdn" not in body.lower()


def test_search_answers_as_the_cli_searches(server: InspectorServer) -> None:
    status, answer = get_json(server, "/api/search?q=launch+satellites+manifest&top_k=2&mode=hybrid")
    assert status == 200 and answer["mode"] == "hybrid" and len(answer["results"]) == 2
    first = answer["results"][0]
    meta = first["metadata"]
    assert (first["path"], meta["start_line"], meta["end_line"]) == ("src/parser.py", 6, 9)
    assert first["metadata"]["symbol"] == "load_rockets" and first["metadata"]["source_type"] == "code"
    assert first["retrievers"]["dense"]["rank"] >= 1 and first["retrievers"]["sparse"]["rank"] == 1
    assert set(answer["timings_ms"]) >= {"embed_query", "dense", "sparse", "fuse"}
    assert answer["candidates"]["fused"] >= 2
    _, dense = get_json(server, "/api/search?q=rockets&mode=dense&top_k=5")
    assert dense["mode"] == "dense" and all(set(r["retrievers"]) == {"dense"} for r in dense["results"])


def test_search_filters_path_glob_and_min_score(server: InspectorServer) -> None:
    _, docs = get_json(server, "/api/search?q=orbit&where=source_type%3Ddocs&top_k=5")
    assert docs["filters"] == {"source_type": "docs"}
    assert {r["path"] for r in docs["results"]} == {"docs/guide.md"}
    _, code = get_json(server, "/api/search?q=orbit&path=src/**&top_k=5")
    assert {r["path"] for r in code["results"]} == {"src/parser.py"}
    _, high = get_json(server, "/api/search?q=orbit&min_score=0.99")
    assert high["results"] == []


def test_gate_off_lets_through_what_the_gate_cuts(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    config = load_config(root / "ragloom.toml").model_copy(update={"relevance_gate": 0.99})
    with RAGEngine(config, root, read_only=True) as engine, InspectorServer(engine) as gated:
        threading.Thread(target=gated.serve_forever, daemon=True).start()
        _, on = get_json(gated, "/api/search?q=rockets+orbit&top_k=3")
        _, off = get_json(gated, "/api/search?q=rockets+orbit&top_k=3&gate=off")
        gated.shutdown()
    assert on["results"] == [] and on["candidates"]["below_relevance_gate"] >= 1
    assert on["relevance_gate"] == 0.99 and off["gate"] == "off"
    assert len(off["results"]) == 3 and off["best_score"] == on["best_score"]


def test_index_make_up(server: InspectorServer) -> None:
    status, answer = get_json(server, "/api/index")
    assert status == 200
    made = answer["status"]
    assert (made["files"], made["chunks"], made["store"]) == (2, 5, "turboquant")
    assert answer["languages"] == {"python": {"files": 1, "chunks": 3}, "markdown": {"files": 1, "chunks": 2}}
    assert answer["source_types"] == {"code": {"files": 1, "chunks": 3}, "docs": {"files": 1, "chunks": 2}}
    assert answer["sizes"]["total"] == 5 and sum(answer["sizes"]["counts"]) == 5
    assert answer["status"]["files_skipped"] == {"the ragloom config file": 1}
    assert answer["status"]["files_pending"] == 0


def test_file_with_chunk_boundaries_and_secrets_redacted(server: InspectorServer) -> None:
    _, found = get_json(server, "/api/search?q=launch+satellites+manifest&top_k=1")
    chunk = found["results"][0]["id"]
    status, answer = get_json(server, f"/api/file?path=src/parser.py&id={chunk}")
    assert status == 200 and answer["text"].startswith("def parse_config(text):")
    assert [(c["start_line"], c["end_line"], c["symbol"]) for c in answer["chunks"]] == [
        (1, 3, "parse_config"), (6, 9, "load_rockets"), (12, 14, "count_orbits")]
    assert answer["selected"] == 1
    _, guide = get_json(server, "/api/file?path=docs/guide.md")
    assert "sk-abcdefghij" not in guide["text"] and "[REDACTED:openai-key]" in guide["text"]
    assert guide["selected"] is None


@pytest.mark.parametrize("host", ["evil.example:80", "evil.example", "127.0.0.1", "localhost",
                                  "127.0.0.1:1", "", "127.0.0.1.evil.example:{port}"])
def test_foreign_host_header_is_refused(server: InspectorServer, host: str) -> None:
    status, answer = get_json(server, "/api/index", host=host.format(port=server.server_port))
    assert status == 403 and "Host" in answer["error"] and answer["status"] == 403


@pytest.mark.parametrize("host", ["127.0.0.1:{port}", "localhost:{port}", "[::1]:{port}"])
def test_local_host_headers_are_served(server: InspectorServer, host: str) -> None:
    status, _, _ = request(server, "/", host=host.format(port=server.server_port))
    assert status == 200


@pytest.mark.parametrize(("path", "status", "words"), [
    ("../outside.txt", 403, "outside the project"),
    ("src/../../outside.txt", 403, "outside the project"),
    ("/etc/passwd", 403, "outside the project"),
    ("src%5C..%5C..%5Coutside.txt", 403, "outside the project"),
    ("src/missing.py", 404, "not an indexed file"),
    ("ragloom.toml", 404, "not an indexed file"),
    ("", 400, "'path' is missing"),
])
def test_file_paths_are_confined(server: InspectorServer, path: str, status: int, words: str) -> None:
    got, answer = get_json(server, f"/api/file?path={path}")
    assert got == status and words in answer["error"]


def test_symlink_swapped_in_after_indexing_is_refused(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    with RAGEngine(load_config(root / "ragloom.toml"), root, read_only=True) as engine, \
            InspectorServer(engine) as running:
        threading.Thread(target=running.serve_forever, daemon=True).start()
        (root / "docs/guide.md").unlink()
        os.symlink(tmp_path / "outside.txt", root / "docs/guide.md")
        status, answer = get_json(running, "/api/file?path=docs/guide.md")
        running.shutdown()
    assert status == 403 and "outside the project folder" in answer["error"]


@pytest.mark.parametrize(("target", "words"), [
    ("/api/search", "'q' (the query) is missing"),
    ("/api/search?q=%20", "'q' (the query) is missing"),
    ("/api/search?q=x&mode=fuzzy", "'mode': 'fuzzy' is not one of dense, sparse, hybrid"),
    ("/api/search?q=x&top_k=0", "'top_k': 0 is outside 1..200"),
    ("/api/search?q=x&top_k=ten", "'top_k': not a whole number: 'ten'"),
    ("/api/search?q=x&min_score=2", "'min_score': 2 is outside -1..1"),
    ("/api/search?q=x&min_score=nan", "'min_score'"),
    ("/api/search?q=x&gate=maybe", "'gate': 'maybe' is not 'on' or 'off'"),
    ("/api/search?q=x&where=novalue", "expected KEY=VALUE"),
    ("/api/search?q=x&path=a&where=path%3Db", "both filter the path"),
    ("/api/search?q=x&top_k=1&top_k=2", "'top_k' given 2 times"),
    ("/api/search?q=x&colour=red", "unknown parameter 'colour'"),
    ("/api/index?x=1", "unknown parameter 'x'"),
    ("/api/file?path=src/parser.py&id=nope", "no chunk 'nope' in 'src/parser.py'"),
])
def test_bad_parameters_get_a_clear_error(server: InspectorServer, target: str, words: str) -> None:
    status, answer = get_json(server, target)
    expected = 404 if "no chunk" in words else 400
    assert status == expected and words in answer["error"], answer


@pytest.mark.parametrize("target", ["/api/nothing", "/page.html", "/../etc/passwd", "/favicon.ico"])
def test_unknown_paths_are_404(server: InspectorServer, target: str) -> None:
    status, answer = get_json(server, target)
    assert status == 404 and "nothing at" in answer["error"]


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"])
def test_only_get_is_allowed(server: InspectorServer, method: str) -> None:
    status, headers, body = request(server, "/api/index", method=method)
    assert status == 405 and headers["Allow"] == "GET, HEAD"
    assert f"method {method} not allowed" in json.loads(body)["error"]


def test_chroma_serves_the_same_page(tmp_path: Path) -> None:
    pytest.importorskip("chromadb", reason="the chroma extra is not installed")
    check_store(tmp_path, 'provider = "chroma"', "chroma")


def test_postgres_serves_the_same_page(tmp_path: Path, postgres_server: Any, postgres_schema: str) -> None:
    table = (f'provider = "postgres"\nurl = "{postgres_server.url}"\n'
             f'postgres = {{ schema = "{postgres_schema}" }}')
    check_store(tmp_path, table, "postgres")


def check_store(tmp_path: Path, table: str, name: str) -> None:
    """Search, make-up and file view on an index in another store answer as on TurboQuant."""
    root = make_project(tmp_path, table)
    with RAGEngine(load_config(root / "ragloom.toml"), root, read_only=True) as engine, \
            InspectorServer(engine) as running:
        threading.Thread(target=running.serve_forever, daemon=True).start()
        _, found = get_json(running, "/api/search?q=launch+satellites+manifest&top_k=1")
        _, index = get_json(running, "/api/index")
        _, file = get_json(running, f"/api/file?path=src/parser.py&id={found['results'][0]['id']}")
        running.shutdown()
    assert found["results"][0]["metadata"]["symbol"] == "load_rockets"
    assert index["status"]["store"] == name and index["languages"]["python"] == {"files": 1, "chunks": 3}
    assert file["selected"] == 1 and len(file["chunks"]) == 3


def test_a_failing_index_is_a_500_naming_the_error(server: InspectorServer,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from ragloom.errors import CorruptIndexError

    def damaged(*args: Any, **kwargs: Any) -> None:
        raise CorruptIndexError("segment 00000001.seg: checksum mismatch")

    monkeypatch.setattr(server.inspector.engine, "search_detailed", damaged)
    status, answer = get_json(server, "/api/search?q=rockets")
    assert status == 500
    assert answer["error"] == ("/api/search failed: CorruptIndexError: segment 00000001.seg: "
                               "checksum mismatch")


def test_every_page_file_is_package_data() -> None:
    """A page file missing from pyproject's package-data would be absent once installed."""
    from ragloom.apps.inspector.server import ASSETS
    from ragloom.config import tomllib

    repo = Path(__file__).resolve().parents[2]
    listed = tomllib.loads((repo / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"][
        "package-data"]["ragloom"]
    folder = repo / "src" / "ragloom" / "apps" / "inspector"
    shipped = {path.name for path in folder.iterdir() if path.suffix != ".py" and path.is_file()}
    assert shipped == {name for name, _ in ASSETS.values()}
    assert {f"apps/inspector/{name}" for name in shipped} <= set(listed)
