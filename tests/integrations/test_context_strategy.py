"""Context strategies through the real google-genai SDK and a fake server: preload small
corpora whole within a budget, search large ones (auto), budgets as shares of the model's
window, the optional no-results notice, and exactly what the prompt holds."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers import ASSISTANT_PROMPT, hash_config, write
from ragloom import ConfigError, RAGEngine
from ragloom.config import parse_config

genai = pytest.importorskip("google.genai")

from fakes.gemini_server import FakeGeminiServer  # noqa: E402
from ragloom.integrations.gemini import GeminiChat  # noqa: E402

FILES = {"docs/b.md": "# B\nSecond file about wings.\n", "docs/a.md": "# A\nFirst file about rockets.\n",
         "src/c.py": "def lift(angle):\n    return 2 * angle\n"}


@pytest.fixture
def chat() -> Iterator[tuple[FakeGeminiServer, GeminiChat]]:
    with FakeGeminiServer() as server:
        client = genai.Client(api_key="k", http_options=genai.types.HttpOptions(base_url=server.base_url))
        yield server, GeminiChat(client)


def engine_with(tmp_path: Path, **settings: object) -> RAGEngine:
    for path, text in FILES.items():
        write(tmp_path, path, text)
    engine = RAGEngine(hash_config(relevance_gate=0.0, **settings), tmp_path)
    engine.index_directory()
    return engine


def test_auto_preloads_a_corpus_that_fits_in_path_order(tmp_path: Path, chat) -> None:
    server, gemini = chat
    with engine_with(tmp_path, prompt={"strategy": "auto", "context_budget_tokens": 2000}) as engine:
        result = gemini.send_detailed(ASSISTANT_PROMPT, "anything at all", rag_engine=engine)
    assert [path for path, _ in result.sources] == ["docs/a.md", "docs/b.md", "src/c.py"]
    instruction = result.system_instruction
    assert instruction.index("File: docs/a.md") < instruction.index("File: docs/b.md") < \
        instruction.index("File: src/c.py")
    for text in FILES.values():
        assert text.rstrip() in instruction  # whole files
    assert server.calls("generateContent")[0].body["systemInstruction"]["parts"][0]["text"] == instruction


def test_auto_searches_when_the_corpus_is_larger_than_the_budget(tmp_path: Path, chat) -> None:
    _, gemini = chat
    write(tmp_path, "docs/big.md", "# Big\n" + "padding words here " * 200 + "\n")
    with engine_with(tmp_path, prompt={"strategy": "auto", "context_budget_tokens": 100}) as engine:
        assert engine.corpus_tokens() > 100
        result = gemini.send_detailed(ASSISTANT_PROMPT, "rockets", rag_engine=engine, top_k=1)
    assert [path for path, _ in result.sources] == ["docs/a.md"]


def test_preload_leaves_out_files_that_do_not_fit(tmp_path: Path, chat) -> None:
    _, gemini = chat
    write(tmp_path, "docs/big.md", "# Big\n" + "padding words here " * 200 + "\n")
    with engine_with(tmp_path, prompt={"strategy": "preload", "context_budget_tokens": 120}) as engine:
        result = gemini.send_detailed(ASSISTANT_PROMPT, "q", rag_engine=engine)
    assert [path for path, _ in result.sources] == ["docs/a.md", "docs/b.md", "src/c.py"]
    assert "padding words" not in result.system_instruction


def test_budget_as_a_share_of_the_models_window(tmp_path: Path, chat) -> None:
    _, gemini = chat
    write(tmp_path, "docs/big.md", "# Big\n" + "padding words here " * 200 + "\n")
    share = {"strategy": "auto", "context_budget": 0.0001}  # 104 tokens of 1M
    with engine_with(tmp_path, prompt=share) as engine:
        searched = gemini.send_detailed(ASSISTANT_PROMPT, "rockets", rag_engine=engine, top_k=1)
        gemini.model = "my-finetune"
        with pytest.raises(ConfigError, match="context window, which ragloom does not know for model "
                                              "'my-finetune'; set prompt.context_budget_tokens"):
            gemini.send_detailed(ASSISTANT_PROMPT, "rockets", rag_engine=engine)
    assert [path for path, _ in searched.sources] == ["docs/a.md"]  # 104 tokens: it searched


def test_the_notice_is_opt_in(tmp_path: Path, chat) -> None:
    server, gemini = chat
    with engine_with(tmp_path, min_score=0.99, prompt={"no_results_notice": True}) as engine:
        noticed = gemini.send_detailed(ASSISTANT_PROMPT, "quantum chromodynamics", rag_engine=engine)
    assert noticed.sources == []
    assert noticed.system_instruction == ASSISTANT_PROMPT.rstrip("\n") + \
        "\n\nNo project documents were retrieved for this question."
    with engine_with(tmp_path / "plain", min_score=0.99) as engine:
        plain = gemini.send_detailed(ASSISTANT_PROMPT, "quantum chromodynamics", rag_engine=engine)
    assert plain.system_instruction == ASSISTANT_PROMPT  # off: the request ragloom-free apps make


def test_preloading_needs_a_budget() -> None:
    with pytest.raises(ConfigError, match=r"^\[rag\]: key 'prompt': strategy 'auto' needs a budget: "
                                          r"set context_budget_tokens"):
        parse_config({"prompt": {"strategy": "auto"}})
