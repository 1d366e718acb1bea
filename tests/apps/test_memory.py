"""Conversation memory: turns per session in SQLite beside the index, searched by meaning,
capped per session, shared by processes, and resumed by a restarted app's Conversation."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from helpers import ASSISTANT_PROMPT, hash_config
from ragloom import RAGEngine
from ragloom.apps.conversation import Conversation
from ragloom.apps.memory import MEMORY_FILE, MemoryStore
from ragloom.embeddings.hashing import HashEmbeddingProvider
from ragloom.integrations.base import Turn

ADD_TURNS = """
import sys
from pathlib import Path
from ragloom.embeddings.hashing import HashEmbeddingProvider
from ragloom.apps.memory import MemoryStore
store = MemoryStore(Path(sys.argv[1]), HashEmbeddingProvider())
for index in range(int(sys.argv[3])):
    store.add(sys.argv[2], "user" if index % 2 == 0 else "assistant", f"{sys.argv[4]} turn {index}")
store.close()
"""


def test_add_recent_search_forget_and_the_cap(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path / MEMORY_FILE, HashEmbeddingProvider(), max_turns_per_session=4)
    store.add("s1", "user", "how do rockets reach orbit?")
    store.add("s1", "assistant", "they burn fuel and climb")
    store.add("s1", "user", "what about gliders and thermals?")
    store.add("s2", "user", "pasta needs salted water")
    assert [t.text for t in store.recent("s1", 2)] == ["they burn fuel and climb",
                                                      "what about gliders and thermals?"]
    [best] = store.search("s1", "gliders riding thermals", top_k=1)
    assert best.text == "what about gliders and thermals?" and best.score is not None
    assert [t.session_id for t in store.search("s2", "rockets", top_k=5)] == ["s2"]  # no leak across sessions
    for index in range(3):
        store.add("s1", "assistant", f"later {index}")
    assert [t.text for t in store.recent("s1", 10)] == [
        "what about gliders and thermals?", "later 0", "later 1", "later 2"]  # capped at 4
    assert store.forget("s1") == 4 and store.recent("s1") == [] and store.sessions() == ["s2"]
    with pytest.raises(ValueError, match="role must be 'user' or 'assistant', got 'system'"):
        store.add("s2", "system", "x")
    with pytest.raises(ValueError, match="session_id must be a non-empty string"):
        store.add("", "user", "x")
    store.close()


def test_processes_share_one_memory(tmp_path: Path) -> None:
    path = tmp_path / MEMORY_FILE
    MemoryStore(path, HashEmbeddingProvider()).close()
    writers = [subprocess.Popen([sys.executable, "-c", ADD_TURNS, str(path), "shared", "60", name])
               for name in ("a", "b")]
    assert [writer.wait(timeout=120) for writer in writers] == [0, 0]
    store = MemoryStore(path, HashEmbeddingProvider())
    texts = [t.text for t in store.recent("shared", 500)]
    assert len(texts) == 120 and len(set(texts)) == 120
    assert [t for t in texts if t.startswith("a ")] == [f"a turn {i}" for i in range(60)]  # in order
    store.close()


def test_a_restarted_app_continues_the_session(tmp_path: Path) -> None:
    pytest.importorskip("openai")
    from fakes.openai_server import FakeOpenAIServer, text_message
    from ragloom.integrations.openai_compatible import OpenAIChat

    config = hash_config(vector_store={"provider": "turboquant"})
    with RAGEngine(config, tmp_path) as engine:
        subprocess.run([sys.executable, "-c", ADD_TURNS, str(engine.index_dir / MEMORY_FILE), "chat-7",
                        "2", "earlier"], check=True, timeout=120)
        memory = MemoryStore.for_engine(engine)
        assert memory.path == engine.index_dir / MEMORY_FILE
        with FakeOpenAIServer() as server:
            chat = OpenAIChat.connect("m", base_url=server.base_url + "/v1", max_retries=0)
            conversation = Conversation(chat, ASSISTANT_PROMPT, memory=memory, session_id="chat-7")
            assert conversation.turns == [Turn("user", "earlier turn 0"), Turn("assistant", "earlier turn 1")]
            server.reply_next(text_message("Continuing."))
            conversation.send("and then?")
            messages = server.calls("chat.completions")[0].body["messages"]
        assert [m["content"] for m in messages[1:]] == ["earlier turn 0", "earlier turn 1", "and then?"]
        assert [t.text for t in memory.recent("chat-7")] == [
            "earlier turn 0", "earlier turn 1", "and then?", "Continuing."]
        memory.close()
    with pytest.raises(ValueError, match="needs a session_id"):
        Conversation(chat, memory=MemoryStore(None, HashEmbeddingProvider()))
