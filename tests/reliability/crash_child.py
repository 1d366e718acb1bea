"""Run by test_crash.py in a child process: index a folder; RAGLOOM_CRASH_AT (set by the
test) makes the process die (os._exit, as after kill -9) at a named crash point."""

import sys

sys.path.insert(0, sys.argv[3])

import ragloom.indexing.indexer as indexer  # noqa: E402
from helpers import hash_config  # noqa: E402
from ragloom import RAGEngine  # noqa: E402

indexer.EMBED_WINDOW_CHUNKS = int(sys.argv[2])  # many small windows: every point is reached often
config = hash_config(chunk_size=200, chunk_overlap=20, vector_store={"provider": sys.argv[4]})
with RAGEngine(config, sys.argv[1]) as engine:
    engine.index_directory()
print("finished", flush=True)
