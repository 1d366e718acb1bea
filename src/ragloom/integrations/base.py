"""The provider-neutral part of talking to a model: what to retrieve, the system prompt
with its context block, and the ``rag_search`` tool loop's contract.

An integration subclasses ``ChatIntegration`` and implements its API calls (a
conversation, streamed or not, and the tool loop); ``send_detailed`` and
``send_with_tools`` are then the same for every provider. What goes into the prompt is
decided in ``integrations.context``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from ragloom.integrations.context import prepare
from ragloom.types import SearchResult

if TYPE_CHECKING:
    from ragloom.engine import RAGEngine


@dataclass
class SendResult:
    """The model's answer plus what ragloom put in the prompt: ``injected`` lists exactly
    the results the context block holds after the token budget."""

    text: str
    injected: list[SearchResult] = field(default_factory=list)
    system_instruction: str = ""
    #: What was searched (a conversation's standalone query; the message otherwise).
    query: str = ""

    @property
    def sources(self) -> list[tuple[str, float]]:
        """(path, else source id, else chunk id; score) of each injected chunk, in prompt order."""
        return [(str(r.metadata.get("path") or r.metadata.get("source_id") or r.id), r.score)
                for r in self.injected]


@dataclass(frozen=True)
class Turn:
    """One message of a conversation: ``role`` is "user" or "assistant"."""

    role: Literal["user", "assistant"]
    text: str


class ChatIntegration(ABC):
    """One chat API bound to one model (``model``). Implement ``complete_turns``,
    ``stream_turns`` and ``complete_with_tools``; the rest is shared."""

    model: str

    @abstractmethod
    def complete_turns(self, system: str, turns: Sequence[Turn]) -> str:
        """The model's answer to the conversation ``turns`` (the last one the user's) under
        the ``system`` instruction (``""`` = none, so a one-turn request is exactly the one
        made without ragloom)."""

    @abstractmethod
    def stream_turns(self, system: str, turns: Sequence[Turn]) -> Iterator[str]:
        """Like ``complete_turns``, yielding the answer's text as it arrives."""

    def complete(self, system: str, user_message: str) -> str:
        """The model's answer to one user message."""
        return self.complete_turns(system, [Turn("user", user_message)])

    @abstractmethod
    def complete_with_tools(self, system: str, user_message: str, rag_engine: RAGEngine,
                            max_rounds: int) -> str:
        """Answer while letting the model call ``rag_search`` (run with
        ``ragloom.integrations.tools.run_tool``) up to ``max_rounds`` times; after the last round, one
        more call with tools switched off makes it answer from what it has."""

    def send_detailed(self, md_content: str, user_message: str, *,
                      rag_engine: RAGEngine | None = None, top_k: int | None = None,
                      token_budget: int | None = None,
                      system_prompt: str | None = None) -> SendResult:
        """Retrieve for ``user_message``, put the results into the system instruction after
        ``md_content``, and ask the model; says which chunks the prompt held."""
        context = prepare(rag_engine, user_message, md_content=md_content, system_prompt=system_prompt,
                          top_k=top_k, token_budget=token_budget, model=getattr(self, "model", None))
        answer = self.complete(context.instruction, user_message)
        return SendResult(answer, context.injected, context.instruction, user_message)

    def send_with_tools(self, md_content: str, user_message: str, *, rag_engine: RAGEngine,
                        max_rounds: int = 4, system_prompt: str | None = None) -> str:
        """Let the model search the index itself (``rag_search``) while answering."""
        instruction = "\n\n".join(part for part in (system_prompt, md_content) if part)
        return self.complete_with_tools(instruction, user_message, rag_engine, max_rounds)
