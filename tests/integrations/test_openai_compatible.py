"""The OpenAI-compatible integration through the real ``openai`` SDK against a local fake
chat-completions server: context injection, the rag_search tool loop, errors and keys."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

openai = pytest.importorskip("openai", reason="the openai extra is not installed")

from fakes.openai_server import FakeOpenAIServer, text_message, tool_call_message  # noqa: E402
from helpers import ASSISTANT_PROMPT  # noqa: E402
from ragloom import ConfigError  # noqa: E402
from ragloom.integrations.openai_compatible import OpenAIChat, build_client  # noqa: E402

PROMPT = ASSISTANT_PROMPT


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as fake:
        yield fake


@pytest.fixture
def chat(server: FakeOpenAIServer) -> OpenAIChat:
    return OpenAIChat.connect(model="local-llama", base_url=server.base_url + "/v1", max_retries=0)


@pytest.fixture
def engine(launch_engine):
    return launch_engine


def test_send_puts_the_context_block_in_the_system_message(server: FakeOpenAIServer, chat: OpenAIChat,
                                                            engine) -> None:
    server.reply_next(text_message("Satellites go to orbit."))
    result = chat.send_detailed(PROMPT, "how do rockets reach orbit?", rag_engine=engine, top_k=1)
    assert result.text == "Satellites go to orbit."
    assert [path for path, _ in result.sources] == ["docs/launch.md"]
    [request] = server.calls("chat.completions")
    system, user = request.body["messages"]
    assert request.body["model"] == "local-llama"
    assert system["role"] == "system" and system["content"] == result.system_instruction
    assert system["content"].startswith(PROMPT + "\n[RETRIEVED CONTEXT]\nFile: docs/launch.md (docs, chunk 0")
    assert user == {"role": "user", "content": "how do rockets reach orbit?"}
    assert "tools" not in request.body


def test_without_engine_or_with_an_empty_index_the_request_is_unchanged(
        server: FakeOpenAIServer, chat: OpenAIChat, make_engine) -> None:
    chat.send_detailed(PROMPT, "hello")
    chat.send_detailed(PROMPT, "hello", rag_engine=make_engine())
    chat.send_detailed("", "hello")
    plain, empty, bare = server.calls("chat.completions")
    assert plain.body == empty.body
    assert plain.body["messages"][0] == {"role": "system", "content": PROMPT}
    assert bare.body["messages"] == [{"role": "user", "content": "hello"}]  # no empty system message


def test_tool_loop_searches_then_answers(server: FakeOpenAIServer, chat: OpenAIChat, engine) -> None:
    server.reply_next(tool_call_message("rockets orbit", 1, call_id="call_7"))
    server.reply_next(text_message("Rockets launch satellites."))
    answer = chat.send_with_tools(PROMPT, "what launches satellites?", rag_engine=engine)
    assert answer == "Rockets launch satellites."
    first, second = server.calls("chat.completions")
    [tool] = first.body["tools"]
    assert tool["type"] == "function" and tool["function"]["name"] == "rag_search"
    assert tool["function"]["parameters"]["required"] == ["query"]
    asked, returned = second.body["messages"][-2:]
    assert asked["role"] == "assistant" and asked["tool_calls"][0]["id"] == "call_7"
    assert returned["role"] == "tool" and returned["tool_call_id"] == "call_7"
    assert returned["content"].startswith("--- Result 1 (score: ")
    assert "source: docs/launch.md:1-2) ---\n# Launch" in returned["content"]


def test_tool_loop_stops_at_the_round_limit(server: FakeOpenAIServer, chat: OpenAIChat, engine) -> None:
    for round_number in range(2):
        server.reply_next(tool_call_message("again", call_id=f"call_{round_number}"))
    server.reply_next(text_message("best effort answer"))
    answer = chat.send_with_tools(PROMPT, "loop forever", rag_engine=engine, max_rounds=2)
    assert answer == "best effort answer"
    calls = server.calls("chat.completions")
    assert len(calls) == 3
    assert calls[-1].body["tool_choice"] == "none"
    assert "tool_choice" not in calls[0].body


@pytest.mark.parametrize(("raw_arguments", "name", "error"), [
    ("{not json", "rag_search", "Error: the arguments of 'rag_search' are not valid JSON"),
    ('["rockets"]', "rag_search", "Error: the arguments of 'rag_search' must be a JSON object."),
    ('{"query": ""}', "rag_search", "Error: rag_search needs a non-empty string 'query'."),
    ('{"query": "x"}', "web_search", "Error: unknown tool 'web_search'; the only tool is 'rag_search'."),
])
def test_bad_tool_calls_come_back_as_errors_the_model_can_read(
        server: FakeOpenAIServer, chat: OpenAIChat, engine, raw_arguments: str, name: str,
        error: str) -> None:
    server.reply_next(tool_call_message("", name=name, raw_arguments=raw_arguments))
    server.reply_next(text_message("sorry"))
    assert chat.send_with_tools(PROMPT, "q", rag_engine=engine) == "sorry"
    returned = server.calls("chat.completions")[1].body["messages"][-1]
    assert returned["role"] == "tool" and returned["content"].startswith(error)


def test_api_errors_surface_from_the_sdk(server: FakeOpenAIServer, chat: OpenAIChat) -> None:
    server.fail_next(400, "context length exceeded")
    with pytest.raises(openai.BadRequestError, match="context length exceeded"):
        chat.send_detailed(PROMPT, "hi")
    server.fail_next(500, "model crashed")
    with pytest.raises(openai.InternalServerError):
        chat.send_detailed(PROMPT, "hi")


def test_a_rate_limit_is_retried_by_the_sdk(server: FakeOpenAIServer) -> None:
    retrying = OpenAIChat.connect(model="m", base_url=server.base_url + "/v1", max_retries=2)
    server.fail_next(429, "slow down", headers={"retry-after-ms": "1"})
    server.reply_next(text_message("after the wait"))
    assert retrying.send_detailed(PROMPT, "hi").text == "after the wait"
    assert len(server.calls("chat.completions")) == 2


def test_keys(server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(ConfigError, match="needs an API key: pass api_key or set OPENAI_API_KEY"):
        build_client("https://api.example.com/v1")
    assert build_client(server.base_url + "/v1").api_key == "not-needed"  # a local server
    server.reply_next(text_message("ok"))
    keyed = OpenAIChat(build_client(server.base_url + "/v1", api_key="sk-secret-123"), "m")
    assert keyed.send_detailed(PROMPT, "hi").text == "ok"
    headers = {name.lower(): value for name, value in server.requests[-1].headers.items()}
    assert headers["authorization"] == "Bearer sk-secret-123"
