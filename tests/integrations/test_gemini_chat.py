"""send(), send_with_tools() and the rag_search handler through the real google-genai SDK
against a local fake Gemini REST server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("google.genai", reason="the gemini extra is not installed")

from google import genai  # noqa: E402

from fakes.gemini_server import FakeGeminiServer, text_reply  # noqa: E402
from helpers import ASSISTANT_PROMPT, write  # noqa: E402
from ragloom import send  # noqa: E402
from ragloom.integrations.gemini import send_detailed, send_with_tools  # noqa: E402
from ragloom.integrations.tools import (  # noqa: E402
    RAG_SEARCH_SCHEMA,
    format_tool_results,
    handle_rag_search,
)

PROMPT = ASSISTANT_PROMPT


@pytest.fixture
def server() -> Iterator[FakeGeminiServer]:
    with FakeGeminiServer() as fake:
        yield fake


@pytest.fixture
def client(server: FakeGeminiServer):
    return genai.Client(api_key="test-key", http_options=genai.types.HttpOptions(base_url=server.base_url))


@pytest.fixture
def engine(launch_engine):
    return launch_engine


def function_call(query: str, top_k: int | None = None) -> dict:
    args = {"query": query} | ({"top_k": top_k} if top_k else {})
    return {"candidates": [{"content": {"role": "model", "parts": [
        {"functionCall": {"name": "rag_search", "args": args}}]}, "finishReason": "STOP"}]}


def system_text(request) -> str:
    return "".join(p.get("text", "") for p in request.body["systemInstruction"]["parts"])


def test_send_injects_context(server: FakeGeminiServer, client, engine) -> None:
    server.reply_next(text_reply("Satellites go to orbit."))
    result = send_detailed(PROMPT, "how do rockets reach orbit?", rag_engine=engine, client=client,
                           top_k=1)
    assert result.text == "Satellites go to orbit."
    assert [path for path, _ in result.sources] == ["docs/launch.md"]
    request = server.calls("generateContent")[0]
    instruction = system_text(request)
    assert instruction.startswith(PROMPT)
    assert "[RETRIEVED CONTEXT]\nFile: docs/launch.md (docs, chunk 0, lines 1-2)" in instruction
    assert request.body["contents"][0]["parts"][0]["text"] == "how do rockets reach orbit?"


def test_without_engine_or_with_empty_index_request_is_unchanged(
        server: FakeGeminiServer, client, make_engine) -> None:
    send(PROMPT, "hello", client=client)
    send(PROMPT, "hello", rag_engine=make_engine(), client=client)
    plain, empty = server.calls("generateContent")
    assert plain.body == empty.body
    assert system_text(plain) == PROMPT and "[RETRIEVED CONTEXT]" not in str(plain.body)


def test_no_results_above_min_score_leaves_request_unchanged(server: FakeGeminiServer, client,
                                                             make_engine, project: Path) -> None:
    write(project, "a.txt", "zebra crossing")
    strict = make_engine(min_score=0.99)
    strict.index_directory()
    send(PROMPT, "quantum chromodynamics", rag_engine=strict, client=client)
    send(PROMPT, "quantum chromodynamics", client=client)
    with_engine, without = server.calls("generateContent")
    assert with_engine.body == without.body


def test_tool_schema_and_handler(engine) -> None:
    assert RAG_SEARCH_SCHEMA["name"] == "rag_search"
    assert RAG_SEARCH_SCHEMA["parameters"]["required"] == ["query"]
    text = handle_rag_search(engine, {"query": "rockets orbit", "top_k": 1})
    assert text.startswith("--- Result 1 (score: ")
    assert "source: docs/launch.md:1-2) ---\n# Launch" in text
    assert handle_rag_search(engine, {"query": ""}).startswith("Error:")
    assert handle_rag_search(engine, {"query": "x", "top_k": 99}).startswith("Error:")
    assert format_tool_results("nothing", []) == "No relevant documents found for: nothing"


def test_tool_loop_runs_search_then_stops_at_final_answer(server: FakeGeminiServer, client, engine) -> None:
    server.reply_next(function_call("rockets orbit", 1))
    server.reply_next(text_reply("Rockets launch satellites."))
    answer = send_with_tools(PROMPT, "what launches satellites?", rag_engine=engine, client=client)
    assert answer == "Rockets launch satellites."
    first, second = server.calls("generateContent")
    declaration = first.body["tools"][0]["functionDeclarations"][0]
    assert declaration["name"] == "rag_search"
    returned = second.body["contents"][-1]["parts"][0]["functionResponse"]
    assert returned["name"] == "rag_search"
    assert "source: docs/launch.md:1-2" in returned["response"]["result"]
    assert second.body["contents"][-2]["parts"][0]["functionCall"]["args"]["query"] == "rockets orbit"


def test_tool_loop_stops_at_round_limit(server: FakeGeminiServer, client, engine) -> None:
    for _ in range(3):
        server.reply_next(function_call("again"))
    server.reply_next(text_reply("best effort answer"))
    answer = send_with_tools(PROMPT, "loop forever", rag_engine=engine, client=client, max_rounds=3)
    assert answer == "best effort answer"
    calls = server.calls("generateContent")
    assert len(calls) == 4
    assert calls[-1].body["toolConfig"]["functionCallingConfig"]["mode"] == "NONE"


def test_send_errors_surface_from_the_sdk(server: FakeGeminiServer, client) -> None:
    server.fail_next(400, "bad request")
    with pytest.raises(genai.errors.ClientError):
        send(PROMPT, "hi", client=client)


def test_sources_list_exactly_what_the_budget_let_into_the_prompt(server: FakeGeminiServer, client,
                                                                 make_engine, project: Path) -> None:
    for index in range(5):
        write(project, f"docs/part{index}.md", f"# Part {index}\n" + "rockets and orbits " * 40 + "\n")
    engine = make_engine()
    engine.index_directory()
    result = send_detailed(PROMPT, "rockets orbits", rag_engine=engine, client=client, top_k=5,
                           token_budget=300)
    instruction = system_text(server.calls("generateContent")[0])
    in_prompt = [line.split(" (")[0].removeprefix("File: ") for line in instruction.splitlines()
                 if line.startswith("File: ")]
    assert 1 <= len(in_prompt) < 5  # the budget keeps only some of the five results
    assert [path for path, _ in result.sources] == in_prompt
    full = send_detailed(PROMPT, "rockets orbits", rag_engine=engine, client=client, top_k=5)
    assert len(full.sources) == 5


@pytest.mark.slow
def test_small_talk_injects_nothing_with_the_real_model(server: FakeGeminiServer, client,
                                                        tmp_path: Path) -> None:
    """The relevance gate of all-MiniLM-L6-v2 keeps unrelated code out of the prompt, while a
    question about the code still gets it."""
    pytest.importorskip("sentence_transformers")
    import os
    import sysconfig

    from ragloom import RAGConfig, RAGEngine

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    write(tmp_path, "textwrap.py", (stdlib / "textwrap.py").read_text(encoding="utf-8"))
    config = RAGConfig(embedding={"provider": "local"}, vector_store={"provider": "memory"})
    with RAGEngine(config, tmp_path) as engine:
        engine.index_directory()
        for reply in ("Hi!", "Hi!", "Use wrap()."):
            server.reply_next(text_reply(reply))
        greeted = send_detailed(PROMPT, "hello", rag_engine=engine, client=client)
        send(PROMPT, "hello", client=client)
        asked = send_detailed(PROMPT, "how do I wrap a paragraph to 40 columns?", rag_engine=engine,
                              client=client)
    with_engine, without, question = server.calls("generateContent")
    assert greeted.sources == [] and with_engine.body == without.body
    assert asked.sources and asked.sources[0][0] == "textwrap.py"
    assert "[RETRIEVED CONTEXT]" in system_text(question)
