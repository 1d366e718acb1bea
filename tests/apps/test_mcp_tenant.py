"""``ragloom mcp`` serves one tenant per server: the tenant of its config. Its searches,
status (usage against its limits too) and resources are that tenant's, and a filter
naming another tenant is refused."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp", reason="the mcp extra is not installed")

from mcp import Client, StdioServerParameters  # noqa: E402

from helpers import write  # noqa: E402
from ragloom import RAGEngine, load_config  # noqa: E402

CONFIG = """
[rag]
embedding.provider = "hash"
relevance_gate = 0.0
tenant = "acme"

[rag.vector_store]
provider = "turboquant"

[rag.limits]
max_chunks = 10
max_chunks_per_tenant = 5
"""


def test_the_server_answers_for_its_configured_tenant_only(tmp_path: Path) -> None:
    root = tmp_path / "project"
    write(root, "ragloom.toml", CONFIG)
    service = load_config(root / "ragloom.toml").model_copy(update={"tenant": None})
    with RAGEngine(service, root) as engine:
        engine.ingest_text("orbit", "Rockets launch satellites into orbit.", tenant="acme")
        engine.ingest_text("orbit", "Bananas ripen on the plantation.", tenant="globex")
        engine.ingest_text("pump", "Rockets of globex need a pump.", tenant="globex")

    async def main() -> None:
        server = StdioServerParameters(command=sys.executable, args=["-m", "ragloom", "mcp"],
                                       cwd=str(root), env={**os.environ, "PYTHONWARNINGS": "ignore"})
        async with Client(server, read_timeout_seconds=60) as client:
            found = await client.call_tool("rag_search", {"query": "rockets bananas pump", "top_k": 10})
            results = found.structured_content["results"]
            assert [r["text"] for r in results] == ["Rockets launch satellites into orbit."]
            refused = await client.call_tool("rag_search", {"query": "rockets", "filters": {
                "$or": [{"tenant": "globex"}, {"source_id": "orbit"}]}})
            assert refused.is_error
            assert "filters may not name 'tenant'" in "".join(b.text for b in refused.content)
            status = await client.call_tool("rag_status", {})
            record = status.structured_content or json.loads(status.content[0].text)
            assert (record["chunks"], record["files"]) == (1, 1)
            assert record["limits"] == {"max_chunks": {"used": 3, "limit": 10},  # every tenant's
                                        "max_chunks_per_tenant": {"used": 1, "limit": 5}}

    asyncio.run(main())
