"""Run by test_crash.py in a child process: ingest one text (argv: base dir, tests dir,
store, source id, file holding the text); RAGLOOM_CRASH_AT makes the process die
(os._exit, as after kill -9) at a named crash point."""

import sys
from pathlib import Path

sys.path.insert(0, sys.argv[2])

from helpers import hash_config  # noqa: E402
from ragloom import RAGEngine  # noqa: E402

config = hash_config(chunk_size=200, chunk_overlap=20, vector_store={"provider": sys.argv[3]})
with RAGEngine(config, sys.argv[1]) as engine:
    engine.ingest_text(sys.argv[4], Path(sys.argv[5]).read_text(), language="markdown")
print("finished", flush=True)
