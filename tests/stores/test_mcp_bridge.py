"""The MCP bridge store against real server processes: a second ragloom serving an index
gives the same results (ids, order) through the bridge as searching it directly, send()
works unchanged, writes are refused, and hanging, dying, tool-less or garbled servers
raise a StoreError naming the server, never a hang or a leaked key."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("mcp", reason="the mcp extra is not installed")

from helpers import write  # noqa: E402
from ragloom import RAGEngine, StoreError, load_config  # noqa: E402
from ragloom.config import parse_config  # noqa: E402

FAKES = Path(__file__).resolve().parents[1] / "fakes"
SERVED_CONFIG = """
[rag]
embedding.provider = "hash"
relevance_gate = 0.0

[rag.vector_store]
provider = "turboquant"
"""
QUERIES = ["rockets orbit", "parse configuration text", "gliders thermals", "drag near the speed of sound",
           "split on equals"]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("served")
    write(root, "ragloom.toml", SERVED_CONFIG)
    write(root, "docs/launch.md", "# Launch\n\nRockets launch satellites into orbit.\n")
    write(root, "docs/gliders.md", "# Gliders\n\nSailplanes ride thermals.\n\n## Drag\n\n"
                                   "Drag rises near the speed of sound.\n")
    write(root, "src/parser.py", "def parse_config(text):\n    return text.split('=')\n")
    with RAGEngine(load_config(root / "ragloom.toml"), root) as engine:
        engine.index_directory()
    return root


def bridge_config(server: str, **settings: object) -> dict:
    table: dict = {"provider": "mcp", "mcp": {"server": server, **settings}}
    return {"embedding": {"provider": "hash"}, "vector_store": table}


def ragloom_command(root: Path, *extra: str) -> str:
    return shlex.join([sys.executable, "-m", "ragloom", "--config", str(root / "ragloom.toml"), "mcp",
                       *extra])


@pytest.fixture
def bridge(served: Path, tmp_path: Path) -> Iterator[RAGEngine]:
    with RAGEngine(parse_config(bridge_config(ragloom_command(served))), tmp_path) as engine:
        yield engine


def test_bridge_gives_the_same_results_as_the_index_itself(served: Path, bridge: RAGEngine) -> None:
    with RAGEngine(load_config(served / "ragloom.toml"), served, read_only=True) as direct:
        for query in QUERIES:
            expected = direct.search(query, top_k=3)
            got = bridge.search(query, top_k=3)
            assert [r.id for r in got] == [r.id for r in expected], query
            assert [r.score for r in got] == pytest.approx([r.score for r in expected], abs=1e-6)
            assert [r.text for r in got] == [r.text for r in expected]
            assert [r.metadata["path"] for r in got] == [r.metadata["path"] for r in expected]
        code = bridge.search("parse", top_k=5, filters={"source_type": "code"})
        assert [r.path for r in code] == ["src/parser.py"]
    assert bridge.search_detailed("rockets").mode == "remote"
    assert not bridge.is_empty() and bridge.count() == 4


def test_writes_are_refused(bridge: RAGEngine, tmp_path: Path) -> None:
    write(tmp_path, "a.txt", "local text\n")
    for write_call in (bridge.index_directory, lambda: bridge.ingest_text("t", "x"),
                       lambda: bridge.add_documents(["a"], ["x"])):
        with pytest.raises(StoreError, match=r"the MCP bridge store cannot write: the MCP server .* owns "
                                             r"its index"):
            write_call()


def test_send_works_unchanged_over_the_bridge(bridge: RAGEngine) -> None:
    pytest.importorskip("google.genai")
    from google import genai

    from fakes.gemini_server import FakeGeminiServer, text_reply
    from ragloom.integrations.gemini import send_detailed

    with FakeGeminiServer() as server:
        server.reply_next(text_reply("Rockets do."))
        client = genai.Client(api_key="k", http_options=genai.types.HttpOptions(base_url=server.base_url))
        result = send_detailed("# Assistant\n", "what carries satellites to orbit?", rag_engine=bridge,
                               client=client, top_k=1)
    assert result.text == "Rockets do." and result.sources[0][0] == "docs/launch.md"
    assert "File: docs/launch.md (docs, chunk 0, lines 1-3)" in result.system_instruction


def test_bridge_over_streamable_http(served: Path, tmp_path: Path) -> None:
    from test_mcp_server import running_http_server

    with running_http_server(served) as url, \
            RAGEngine(parse_config(bridge_config(url)), tmp_path) as bridge, \
            RAGEngine(load_config(served / "ragloom.toml"), served, read_only=True) as direct:
        for query in QUERIES:
            expected = [r.id for r in direct.search(query, top_k=3)]
            assert [r.id for r in bridge.search(query, top_k=3)] == expected


def misbehaving(mode: str, *extra: str) -> str:
    return shlex.join([sys.executable, str(FAKES / "mcp_misbehaving.py"), mode, *extra])


@pytest.mark.parametrize(("mode", "message"), [
    ("hang", r"MCP server .*mcp_misbehaving.py hang did not answer within 2 s"),
    ("die", r"MCP server .*mcp_misbehaving.py die failed: "),
    ("no-tool", r"MCP server .* has no tool 'rag_search' \(it has: web_search\); "
                r"set \[rag.vector_store.mcp\] tool"),
    ("garbage", r"tool 'rag_search' answered in a form ragloom cannot read \(no '--- Result N"),
    ("error", r"tool 'rag_search' failed: .*index is being rebuilt"),
])
def test_misbehaving_servers_raise_a_clear_store_error(tmp_path: Path, mode: str, message: str) -> None:
    # Only the hanging server needs the short wait; the others answer (or die) at once, and a
    # generous wait keeps a slow start on a loaded machine from reading as a hang.
    config = parse_config(bridge_config(misbehaving(mode), timeout_seconds=2 if mode == "hang" else 120))
    with RAGEngine(config, tmp_path) as engine:
        with pytest.raises(StoreError, match=message):
            engine.search("rockets", top_k=2)


def test_a_dead_server_is_restarted_on_the_next_call_and_keys_never_show(tmp_path: Path) -> None:
    server = misbehaving("die", "--api-key", "sk-live-0123456789", "TOKEN=tok-abcdefghij")
    with RAGEngine(parse_config(bridge_config(server, timeout_seconds=120)), tmp_path) as engine:
        for _ in range(2):  # the second call starts a new server process
            with pytest.raises(StoreError) as failure:
                engine.search("rockets")
            assert "sk-live-0123456789" not in str(failure.value)
            assert "tok-abcdefghij" not in str(failure.value)
            assert "--api-key *** TOKEN=***" in str(failure.value)


def test_config_needs_a_server_for_the_bridge(tmp_path: Path) -> None:
    from ragloom import ConfigError

    with pytest.raises(ConfigError, match=r"^\[rag.vector_store.mcp\]: the MCP bridge store \(provider = "
                                          r"\"mcp\"\) needs server: a command line"):
        RAGEngine(parse_config({"vector_store": {"provider": "mcp"}}), tmp_path)
    # A store's own table is checked against that store when the engine is built.
    with pytest.raises(ConfigError, match=r"\[rag.vector_store.mcp\]: key 'timeout_seconds' = 0: Input "
                                          r"should be greater than 0"):
        RAGEngine(parse_config(bridge_config("x", timeout_seconds=0)), tmp_path)
