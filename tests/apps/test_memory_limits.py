"""[rag.limits] max_memory_turns: a session's turn past the limit is refused with
QuotaExceededError naming the session and figures, and a conversation whose exchange would
not fit is refused before the model is called; nothing is written."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import ASSISTANT_PROMPT, hash_config
from ragloom import QuotaExceededError, RAGEngine
from ragloom.apps.conversation import Conversation
from ragloom.apps.memory import MEMORY_FILE, MemoryStore
from ragloom.embeddings.hashing import HashEmbeddingProvider


def test_a_turn_past_the_limit_is_refused_and_not_written(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path / MEMORY_FILE, HashEmbeddingProvider(), turn_limit=3)
    for text in ("one", "two", "three"):
        store.add("s1", "user", text)
    with pytest.raises(QuotaExceededError) as caught:
        store.add("s1", "assistant", "four")
    assert (caught.value.limit, caught.value.scope, caught.value.current, caught.value.adding,
            caught.value.maximum) == ("max_memory_turns", "session 's1'", 3, 1, 3)
    assert str(caught.value).startswith("max_memory_turns of session 's1' would be exceeded: "
                                        "3 now + 1 from this call = 4 > limit 3")
    assert [t.text for t in store.recent("s1")] == ["one", "two", "three"]
    store.add("s2", "user", "another session has its own count")
    store.close()


def test_a_conversation_is_refused_before_the_model_is_called(tmp_path: Path) -> None:
    pytest.importorskip("openai")
    from fakes.openai_server import FakeOpenAIServer, text_message
    from ragloom.integrations.openai_compatible import OpenAIChat

    config = hash_config(vector_store={"provider": "turboquant"}, limits={"max_memory_turns": 3})
    with RAGEngine(config, tmp_path) as engine:
        memory = MemoryStore.for_engine(engine)
        assert memory.turn_limit == 3
        with FakeOpenAIServer() as server:
            chat = OpenAIChat.connect("m", base_url=server.base_url + "/v1", max_retries=0)
            conversation = Conversation(chat, ASSISTANT_PROMPT, memory=memory, session_id="u1")
            server.reply_next(text_message("First answer."))
            conversation.send("first question")
            with pytest.raises(QuotaExceededError, match="session 'u1'.*2 now \\+ 2 from this call"):
                conversation.send("second question")
            assert len(server.calls("chat.completions")) == 1
        assert [t.text for t in memory.recent("u1")] == ["first question", "First answer."]
        memory.close()
