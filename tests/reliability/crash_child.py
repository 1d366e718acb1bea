"""Run by test_crash.py in a child process: index a folder (as the tenant named by an
optional fifth argument); RAGLOOM_CRASH_AT (set by the test) makes the process die
(os._exit, as after kill -9) at a named crash point."""

import json
import sys

sys.path.insert(0, sys.argv[3])

import ragloom.indexing.indexer as indexer  # noqa: E402
from helpers import hash_config  # noqa: E402
from ragloom import RAGEngine  # noqa: E402

indexer.EMBED_WINDOW_CHUNKS = int(sys.argv[2])  # many small windows: every point is reached often
store = json.loads(sys.argv[4]) if sys.argv[4].startswith("{") else {"provider": sys.argv[4]}
config = hash_config(chunk_size=200, chunk_overlap=20, vector_store=store)
with RAGEngine(config, sys.argv[1], tenant=sys.argv[5] if len(sys.argv) > 5 else None) as engine:
    engine.index_directory()
print("finished", flush=True)
