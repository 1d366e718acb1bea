"""Ask Gemini about a repository with retrieved context injected by ``send``.

    GEMINI_API_KEY=... python examples/chat_with_repo.py [FOLDER] "your question"

Without a key it says so and exits cleanly.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from ragloom import RAGConfig, RAGEngine
from ragloom.embeddings.gemini_client import api_key_from_environment
from ragloom.integrations.gemini import send_detailed

os.environ.setdefault("HF_HUB_OFFLINE", "1")

SYSTEM = "# Repository assistant\nAnswer from the retrieved context; cite files and lines.\n"


def main() -> int:
    if not api_key_from_environment():
        print("chat_with_repo: set GEMINI_API_KEY (or GOOGLE_API_KEY) to talk to Gemini; exiting.")
        return 0
    folder = Path(sys.argv[1]) if len(sys.argv) > 2 else Path.cwd()
    question = sys.argv[-1] if len(sys.argv) > 1 else "What does this project do?"
    config = RAGConfig(embedding={"provider": "local"}, vector_store={"provider": "chroma"})
    with RAGEngine(config, base_dir=folder) as engine:
        engine.index_directory()
        result = send_detailed(SYSTEM, question, rag_engine=engine, token_budget=3000)
        print(result.text)
        print("\nsources:", ", ".join(f"{path} ({score:.3f})" for path, score in result.sources))
    return 0


if __name__ == "__main__":
    sys.exit(main())
