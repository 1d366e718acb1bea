"""Let Gemini call the ``rag_search`` tool itself while answering.

    GEMINI_API_KEY=... python examples/tool_calling.py [FOLDER] "your question"

Without a key it says so and exits cleanly.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from ragloom import RAGConfig, RAGEngine
from ragloom.embeddings.gemini_client import api_key_from_environment
from ragloom.integrations.gemini import send_with_tools

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def main() -> int:
    if not api_key_from_environment():
        print("tool_calling: set GEMINI_API_KEY (or GOOGLE_API_KEY) to talk to Gemini; exiting.")
        return 0
    folder = Path(sys.argv[1]) if len(sys.argv) > 2 else Path.cwd()
    question = sys.argv[-1] if len(sys.argv) > 1 else "Where is the configuration parsed?"
    config = RAGConfig(embedding={"provider": "local"}, vector_store={"provider": "chroma"})
    with RAGEngine(config, base_dir=folder) as engine:
        engine.index_directory()
        print(send_with_tools("You answer questions about this code base. Use rag_search.",
                              question, rag_engine=engine, max_rounds=3))
    return 0


if __name__ == "__main__":
    sys.exit(main())
