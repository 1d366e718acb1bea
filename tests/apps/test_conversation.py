"""Conversations through the real google-genai and openai SDKs against local fake servers:
history in every request, the standalone query searched, streamed answers assembled, the
history budget, the LLM rewrite, and the async forms."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers import ASSISTANT_PROMPT, write
from ragloom.apps.conversation import REWRITE_INSTRUCTION, Conversation, standalone_query
from ragloom.integrations.base import Turn

genai = pytest.importorskip("google.genai")
pytest.importorskip("openai")

from fakes.gemini_server import FakeGeminiServer, text_reply  # noqa: E402
from fakes.openai_server import FakeOpenAIServer, text_message  # noqa: E402
from ragloom.integrations.gemini import GeminiChat  # noqa: E402
from ragloom.integrations.openai_compatible import OpenAIChat  # noqa: E402


@pytest.fixture
def gemini() -> Iterator[tuple[FakeGeminiServer, GeminiChat]]:
    with FakeGeminiServer() as server:
        client = genai.Client(api_key="k", http_options=genai.types.HttpOptions(base_url=server.base_url))
        yield server, GeminiChat(client)


@pytest.fixture
def openai_chat() -> Iterator[tuple[FakeOpenAIServer, OpenAIChat]]:
    with FakeOpenAIServer() as server:
        yield server, OpenAIChat.connect("local-llama", base_url=server.base_url + "/v1", max_retries=0)


@pytest.fixture
def engine(make_engine, project: Path):
    write(project, "docs/launch.md", "# Launch\nRockets launch satellites into orbit from the pad.\n")
    write(project, "docs/testing.md", "# Testing rockets\nEngines are test-fired on a stand before launch.\n")
    write(project, "src/fruit.py", "def peel(banana):\n    return banana.skin\n")
    built = make_engine(relevance_gate=0.0)
    built.index_directory()
    return built


def test_standalone_query_adds_the_previous_questions_salient_words() -> None:
    turns = [Turn("user", "How do the rockets reach orbit?"), Turn("assistant", "They burn fuel.")]
    follow_up = "and how are they tested?"
    assert standalone_query(follow_up, turns) == "and how are they tested? rockets reach orbit"
    assert standalone_query("rockets again", turns) == "rockets again reach orbit"
    assert standalone_query("first question", []) == "first question"


def test_gemini_conversation_sends_the_history_and_searches_the_standalone_query(gemini, engine) -> None:
    server, chat = gemini
    conversation = Conversation(chat, ASSISTANT_PROMPT, rag_engine=engine, top_k=1)
    server.reply_next(text_reply("From the pad."))
    server.reply_next(text_reply("On a stand."))
    first = conversation.send("how do rockets reach orbit?")
    second = conversation.send("and how are they tested?")
    assert (first.text, second.text) == ("From the pad.", "On a stand.")
    assert second.query == "and how are they tested? rockets reach orbit"
    assert [path for path, _ in second.sources] == ["docs/testing.md"]
    request = server.calls("generateContent")[1].body
    assert [(c["role"], c["parts"][0]["text"]) for c in request["contents"]] == [
        ("user", "how do rockets reach orbit?"), ("model", "From the pad."),
        ("user", "and how are they tested?")]
    assert "File: docs/testing.md" in request["systemInstruction"]["parts"][0]["text"]
    assert conversation.turns == [
        Turn("user", "how do rockets reach orbit?"), Turn("assistant", "From the pad."),
        Turn("user", "and how are they tested?"), Turn("assistant", "On a stand.")]


def test_streamed_answers_are_assembled_and_remembered(gemini, openai_chat, engine) -> None:
    for server, chat in (gemini, openai_chat):
        conversation = Conversation(chat, ASSISTANT_PROMPT, rag_engine=engine, top_k=1)
        server.reply_next(text_reply("Rockets carry satellites to orbit.") if isinstance(
            server, FakeGeminiServer) else text_message("Rockets carry satellites to orbit."))
        pieces = list(conversation.stream("what do rockets carry?"))
        assert len(pieces) > 1 and "".join(pieces) == "Rockets carry satellites to orbit."
        assert conversation.last_result is not None
        assert conversation.last_result.text == "".join(pieces)
        assert conversation.turns[-1] == Turn("assistant", "Rockets carry satellites to orbit.")
    openai_request = openai_chat[0].calls("chat.completions")[-1].body
    assert openai_request["stream"] is True
    assert openai_request["messages"][0]["role"] == "system"
    assert gemini[0].calls("streamGenerateContent")


def test_openai_history_budget_drops_oldest_exchanges_first(openai_chat) -> None:
    server, chat = openai_chat
    conversation = Conversation(chat, ASSISTANT_PROMPT, history_budget_tokens=40)  # one exchange of ~32
    for index in range(4):
        server.reply_next(text_message(f"answer {index} " + "word " * 10))
        conversation.send(f"question {index} " + "word " * 10)
    messages = server.calls("chat.completions")[-1].body["messages"]
    assert messages[0] == {"role": "system", "content": ASSISTANT_PROMPT}  # never dropped
    assert [m["content"].split(" ")[:2] for m in messages[1:]] == [
        ["question", "2"], ["answer", "2"], ["question", "3"]]


def test_llm_rewrite_asks_the_model_for_a_standalone_query(openai_chat, engine) -> None:
    server, chat = openai_chat
    conversation = Conversation(chat, ASSISTANT_PROMPT, rag_engine=engine, top_k=1, rewrite="llm")
    server.reply_next(text_message("From the pad."))
    conversation.send("how do rockets reach orbit?")
    server.reply_next(text_message("how are rockets tested before launch"))
    server.reply_next(text_message("On a stand."))
    result = conversation.send("and how are they tested?")
    rewrite_call = server.calls("chat.completions")[1].body["messages"]
    assert rewrite_call[0] == {"role": "system", "content": REWRITE_INSTRUCTION}
    assert rewrite_call[-1] == {"role": "user", "content": "and how are they tested?"}
    assert result.query == "how are rockets tested before launch"
    assert result.text == "On a stand." and result.sources[0][0] == "docs/testing.md"


def test_async_send_and_stream(openai_chat, engine) -> None:
    server, chat = openai_chat
    conversation = Conversation(chat, ASSISTANT_PROMPT, rag_engine=engine, top_k=1)
    server.reply_next(text_message("From the pad."))
    server.reply_next(text_message("Engines are test fired."))

    async def main() -> tuple[str, list[str]]:
        first = await conversation.asend("how do rockets reach orbit?")
        pieces = [piece async for piece in conversation.astream("and how are they tested?")]
        return first.text, pieces

    text, pieces = asyncio.run(main())
    assert text == "From the pad." and "".join(pieces) == "Engines are test fired."
    assert len(conversation.turns) == 4


def test_a_question_asked_again_is_embedded_once(gemini, project: Path) -> None:
    """A new conversation asking what another asked searches the same standalone query: its
    vector comes from the engine's query cache, no embedding call."""
    from fakes.counting_embedder import TaskCountingProvider
    from helpers import hash_config
    from ragloom import RAGEngine

    server, chat = gemini
    write(project, "docs/launch.md", "# Launch\nRockets launch satellites into orbit from the pad.\n")
    provider = TaskCountingProvider()
    with RAGEngine(hash_config(relevance_gate=0.0), project, embedding_provider=provider) as engine:
        engine.index_directory()
        for answer in ("From the pad.", "From the pad, again."):
            server.reply_next(text_reply(answer))
            sent = Conversation(chat, ASSISTANT_PROMPT, rag_engine=engine, top_k=1).send(
                "how do rockets reach orbit?")
            assert sent.query == "how do rockets reach orbit?" and sent.text == answer
        assert provider.embedded["query"] == 1
