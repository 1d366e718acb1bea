"""Ask a local LLM server (Ollama, llama.cpp, vLLM, LM Studio; anything speaking the OpenAI
chat-completions API) about a folder, with retrieved context in the system message.

    OPENAI_BASE_URL=http://127.0.0.1:11434/v1 RAGLOOM_LLM_MODEL=llama3.1 \\
        python examples/local_llm.py [FOLDER] "your question"

Without OPENAI_BASE_URL it says so and exits cleanly. A server on this machine needs no key;
for OpenAI itself set OPENAI_API_KEY and OPENAI_BASE_URL=https://api.openai.com/v1.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from ragloom import RAGConfig, RAGEngine
from ragloom.integrations.openai_compatible import OpenAIChat

os.environ.setdefault("HF_HUB_OFFLINE", "1")

SYSTEM = "# Repository assistant\nAnswer from the retrieved context; cite files and lines.\n"


def main() -> int:
    base_url = os.environ.get("OPENAI_BASE_URL")
    if not base_url:
        print("local_llm: set OPENAI_BASE_URL to your server's /v1 address; exiting.")
        return 0
    folder = Path(sys.argv[1]) if len(sys.argv) > 2 else Path.cwd()
    question = sys.argv[-1] if len(sys.argv) > 1 else "What does this project do?"
    provider = os.environ.get("RAGLOOM_EXAMPLE_PROVIDER", "local")
    config = RAGConfig(embedding={"provider": provider}, vector_store={"provider": "turboquant"})
    chat = OpenAIChat.connect(model=os.environ.get("RAGLOOM_LLM_MODEL", "llama3.1"), base_url=base_url)
    with RAGEngine(config, base_dir=folder) as engine:
        engine.index_directory()
        result = chat.send_detailed(SYSTEM, question, rag_engine=engine, token_budget=3000)
        print(result.text)
        print("\nsources:", ", ".join(f"{path} ({score:.3f})" for path, score in result.sources))
    return 0


if __name__ == "__main__":
    sys.exit(main())
