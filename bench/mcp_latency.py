"""``rag_search`` through the MCP bridge (a second process over stdio, or streamable HTTP)
vs ``engine.search()`` in process, on the same index and the same queries: p50/p95 per
query and what the bridge adds.

The index: the Cranfield abstracts, one file each, in a temporary project (hash embedder
by default so the figures show the bridge, not the model; ``--provider local`` for the
real model on both sides). Queries alternate between the two paths so machine noise hits
both alike.

    python bench/mcp_latency.py [--provider hash|local] [--queries 225] [--http]
"""

from __future__ import annotations

import argparse
import shlex
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _data import CRANFIELD, cranfield_texts

from ragloom import RAGEngine, load_config
from ragloom.config import parse_config


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(share * (len(ordered) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--provider", default="hash", choices=["hash", "local"])
    parser.add_argument("--queries", type=int, default=225)
    parser.add_argument("--http", action="store_true", help="bridge over streamable HTTP")
    args = parser.parse_args()
    import json

    queries = [json.loads(line)["text"] for line in (CRANFIELD / "queries.jsonl").open()][: args.queries]
    root = Path(tempfile.mkdtemp(prefix="ragloom-mcp-bench-"))
    (root / "ragloom.toml").write_text(f'[rag]\nembedding.provider = "{args.provider}"\n\n'
                                       '[rag.vector_store]\nprovider = "turboquant"\n')
    for doc_id, text in cranfield_texts():
        (root / "docs").mkdir(exist_ok=True)
        (root / "docs" / f"{doc_id}.txt").write_text(text + "\n")
    config = load_config(root / "ragloom.toml")
    with RAGEngine(config, root) as engine:
        report = engine.index_directory()
    print(f"index: {report.files_indexed} files, {report.chunks_added} chunks ({args.provider})")
    server = None
    if args.http:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        server = subprocess.Popen([sys.executable, "-m", "ragloom", "mcp", "--http", "--port", str(port)],
                                  cwd=root, stderr=subprocess.DEVNULL)
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.05)
        target = f"http://127.0.0.1:{port}/mcp"
    else:
        target = shlex.join([sys.executable, "-m", "ragloom", "--config", str(root / "ragloom.toml"), "mcp"])
    bridge_config = parse_config({"embedding": {"provider": "hash"},
                                  "vector_store": {"provider": "mcp", "mcp": {"server": target}}})
    direct_ms: list[float] = []
    bridge_ms: list[float] = []
    with RAGEngine(config, root, read_only=True) as direct, \
            RAGEngine(bridge_config, root / "client") as bridge:
        for query in queries[:10]:  # warm up: server start, first loads
            direct.search(query, top_k=5)
            bridge.search(query, top_k=5)
        same = 0
        for query in queries:
            started = time.perf_counter()
            expected = direct.search(query, top_k=5)
            direct_ms.append((time.perf_counter() - started) * 1000)
            started = time.perf_counter()
            got = bridge.search(query, top_k=5)
            bridge_ms.append((time.perf_counter() - started) * 1000)
            same += [r.id for r in got] == [r.id for r in expected]
    if server is not None:
        server.terminate()
    transport = "streamable HTTP" if args.http else "stdio"
    print(f"{len(queries)} queries, top_k 5, bridge over {transport}; identical ids and order: "
          f"{same}/{len(queries)}")
    print(f"{'':22} {'p50 ms':>8} {'p95 ms':>8}")
    print(f"{'engine.search()':22} {statistics.median(direct_ms):8.2f} {percentile(direct_ms, 0.95):8.2f}")
    print(f"{'bridge rag_search':22} {statistics.median(bridge_ms):8.2f} {percentile(bridge_ms, 0.95):8.2f}")
    added = [b - d for b, d in zip(bridge_ms, direct_ms)]
    print(f"{'added by the bridge':22} {statistics.median(added):8.2f} {percentile(added, 0.95):8.2f}")


if __name__ == "__main__":
    main()
