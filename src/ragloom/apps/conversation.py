"""Conversations with any chat integration: turns kept within a budget, each message
searched as a standalone query, the context block in front of every answer.

A follow-up ("and how is it tested?") says little on its own. The rule-based default
(``rewrite="rules"``) searches the message plus the salient words of the previous user
turn (no LLM call); ``rewrite="llm"`` asks the model for a standalone query first (one
extra call); ``"none"`` searches the message as it is. ``bench/conversation.py`` measures
them on follow-up questions built from the Cranfield queries. With a ``MemoryStore`` and a
session id, a conversation resumes the session's recent turns and records new ones.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import TYPE_CHECKING, Literal

from ragloom.apps.memory import MemoryStore
from ragloom.integrations.base import ChatIntegration, SendResult, Turn
from ragloom.integrations.context import PromptContext, prepare
from ragloom.prompt import estimate_tokens
from ragloom.retrieval.tokenize import STOPWORDS

if TYPE_CHECKING:
    from ragloom.engine import RAGEngine

Rewrite = Literal["rules", "llm", "none"]
#: Words of the previous user turn added to a follow-up by the rule-based rewrite.
SALIENT_TERMS = 8
DEFAULT_HISTORY_BUDGET_TOKENS = 4000
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_'-]*")
REWRITE_INSTRUCTION = (
    "Rewrite the user's last message as one standalone search query that needs no earlier "
    "message to be understood. Answer with the query only.")


def standalone_query(message: str, turns: Sequence[Turn], max_terms: int = SALIENT_TERMS) -> str:
    """``message`` plus up to ``max_terms`` words of the previous user turn that are not
    stopwords and not already in the message (the message itself when there is none)."""
    previous = next((turn.text for turn in reversed(turns) if turn.role == "user"), None)
    if previous is None:
        return message
    present = {word.lower() for word in _WORD.findall(message)}
    salient: list[str] = []
    for word in _WORD.findall(previous):
        lowered = word.lower()
        if len(lowered) < 3 or lowered in STOPWORDS or lowered in present:
            continue
        present.add(lowered)
        salient.append(word)
    return f"{message} {' '.join(salient[:max_terms])}" if salient else message


class Conversation:
    """A chat with history and retrieval; ``send``/``stream`` (and ``asend``/``astream``)."""

    def __init__(self, chat: ChatIntegration, md_content: str = "", *,
                 rag_engine: RAGEngine | None = None, top_k: int | None = None,
                 token_budget: int | None = None, system_prompt: str | None = None,
                 history_budget_tokens: int = DEFAULT_HISTORY_BUDGET_TOKENS,
                 rewrite: Rewrite = "rules", memory: MemoryStore | None = None,
                 session_id: str | None = None, resume_turns: int = 50) -> None:
        if rewrite not in ("rules", "llm", "none"):
            raise ValueError(f"rewrite must be 'rules', 'llm' or 'none', got {rewrite!r}")
        self.chat = chat
        self.md_content = md_content
        self.rag_engine = rag_engine
        self.top_k = top_k
        self.token_budget = token_budget
        self.system_prompt = system_prompt
        self.history_budget_tokens = history_budget_tokens
        self.rewrite = rewrite
        if memory is not None and not session_id:
            raise ValueError("a Conversation with a memory store needs a session_id")
        self.memory = memory
        self.session_id = session_id
        #: The session so far: its last ``resume_turns`` remembered turns when resuming.
        self.turns: list[Turn] = []
        if memory is not None and session_id:
            self.turns = [Turn(t.role, t.text) for t in memory.recent(session_id, resume_turns)]
        #: What the last ``stream`` put in the prompt (``send`` returns it).
        self.last_result: SendResult | None = None

    def query_for(self, message: str) -> str:
        """The search query for ``message`` given the turns so far."""
        if self.rewrite == "none" or not self.turns:
            return message
        if self.rewrite == "rules":
            return standalone_query(message, self.turns)
        asked = [*self.history(), Turn("user", message)]
        rewritten = self.chat.complete_turns(REWRITE_INSTRUCTION, asked).strip()
        return rewritten or message

    def history(self) -> list[Turn]:
        """The latest turns that fit ``history_budget_tokens``, whole exchanges (a user turn
        and its answer) dropped oldest first."""
        kept = list(self.turns)
        while kept and sum(estimate_tokens(turn.text) for turn in kept) > self.history_budget_tokens:
            kept = kept[2:] if len(kept) > 1 and kept[1].role == "assistant" else kept[1:]
        return kept

    def send(self, message: str) -> SendResult:
        """The model's answer to ``message``, with retrieved context and the history."""
        context, turns, query = self._prepare(message)
        answer = self.chat.complete_turns(context.instruction, turns)
        return self._remember(message, answer, context, query)

    def stream(self, message: str) -> Iterator[str]:
        """``send``, yielding the answer as it arrives; ``last_result`` holds the rest."""
        context, turns, query = self._prepare(message)
        pieces: list[str] = []
        for piece in self.chat.stream_turns(context.instruction, turns):
            pieces.append(piece)
            yield piece
        self._remember(message, "".join(pieces), context, query)

    async def asend(self, message: str) -> SendResult:
        """``send`` on a worker thread."""
        return await asyncio.to_thread(self.send, message)

    async def astream(self, message: str) -> AsyncIterator[str]:
        """``stream`` with each piece fetched on a worker thread."""
        pieces = self.stream(message)
        while (piece := await asyncio.to_thread(next, pieces, None)) is not None:
            yield piece

    def _prepare(self, message: str) -> tuple[PromptContext, list[Turn], str]:
        if self.memory is not None and self.session_id:  # refused before the model is paid
            self.memory.check_room(self.session_id, 2)
        query = self.query_for(message)
        context = prepare(self.rag_engine, query, md_content=self.md_content,
                          system_prompt=self.system_prompt, top_k=self.top_k,
                          token_budget=self.token_budget, model=getattr(self.chat, "model", None))
        return context, [*self.history(), Turn("user", message)], query

    def _remember(self, message: str, answer: str, context: PromptContext, query: str) -> SendResult:
        self.turns += [Turn("user", message), Turn("assistant", answer)]
        if self.memory is not None and self.session_id:
            self.memory.add(self.session_id, "user", message)
            self.memory.add(self.session_id, "assistant", answer)
        self.last_result = SendResult(answer, context.injected, context.instruction, query)
        return self.last_result
