"""``import ragloom`` must stay light: no torch, chromadb, google.genai or openai until needed."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("torch", "chromadb", "google.genai", "openai", "psycopg", "pgvector", "sentence_transformers",
         "transformers")


def test_import_ragloom_pulls_no_heavy_dependency() -> None:
    code = (
        "import sys, ragloom\n"
        "from ragloom import RAGEngine, RAGConfig\n"
        "import ragloom.integrations.gemini, ragloom.integrations.tools\n"
        "import ragloom.integrations.openai_compatible\n"
        "import tempfile\n"
        "e = RAGEngine(RAGConfig(embedding={'provider': 'hash'}, vector_store={'provider': 'memory'}),"
        " base_dir=tempfile.mkdtemp())\n"
        "e.add_documents(['a'], ['hello']); e.search('hello'); e.close()\n"
        f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))\n"
    )
    output = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert output.stdout.strip() == ""
