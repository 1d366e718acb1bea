"""Putting retrieved context in front of a model: ``send`` with google-genai.

``md_content`` (the application's markdown prompt) becomes the system instruction, with
the ``[RETRIEVED CONTEXT]`` block appended when the engine finds something for the user's
message; the user's message is the turn's content. With no engine, an empty index or no
result above ``min_score``, the request is exactly the one made without ragloom.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ragloom.gemini_client import build_client, genai_module
from ragloom.prompt import inject_context, results_in_context
from ragloom.types import SearchResult

if TYPE_CHECKING:
    from ragloom.engine import RAGEngine

DEFAULT_MODEL = "gemini-2.5-flash"


@dataclass
class SendResult:
    """The model's answer plus what ragloom put in the prompt: ``injected`` lists exactly
    the results the context block holds after the token budget."""

    text: str
    injected: list[SearchResult] = field(default_factory=list)
    system_instruction: str = ""

    @property
    def sources(self) -> list[tuple[str, float]]:
        """(path or id, score) of each injected chunk, in prompt order."""
        return [(str(r.metadata.get("path", r.id)), r.score) for r in self.injected]


def retrieve_for(rag_engine: RAGEngine | None, user_message: str, top_k: int | None) -> list[SearchResult]:
    """Search results to inject, or [] when there is no engine or nothing indexed."""
    if rag_engine is None or rag_engine.is_empty():
        return []
    return rag_engine.search(user_message, top_k=top_k)


def system_instruction(md_content: str, results: list[SearchResult], system_prompt: str | None,
                       token_budget: int | None) -> str:
    prompt = inject_context(md_content, results, token_budget)
    return "\n\n".join(part for part in (system_prompt, prompt) if part)


def resolve_client(client: Any, rag_engine: RAGEngine | None) -> Any:
    """The given client, else one built from the engine's config (api_key, api_key_env,
    embedding_base_url) or GEMINI_API_KEY / GOOGLE_API_KEY."""
    if client is not None:
        return client
    config = rag_engine.config if rag_engine is not None else None
    return build_client(config.resolved_api_key() if config else None,
                        config.embedding_base_url if config else None, "ragloom.llm.send")


def send_detailed(md_content: str, user_message: str, *, rag_engine: RAGEngine | None = None,
                  client: Any = None, model: str = DEFAULT_MODEL, top_k: int | None = None,
                  token_budget: int | None = None, system_prompt: str | None = None) -> SendResult:
    """Like ``send``, returning which chunks were injected and the full system instruction."""
    types = genai_module("ragloom.llm.send").types
    results = retrieve_for(rag_engine, user_message, top_k)
    instruction = system_instruction(md_content, results, system_prompt, token_budget)
    config = types.GenerateContentConfig(system_instruction=instruction) if instruction else None
    response = resolve_client(client, rag_engine).models.generate_content(
        model=model, contents=user_message, config=config)
    return SendResult(response.text or "", results_in_context(results, token_budget), instruction)


def send(md_content: str, user_message: str, *, rag_engine: RAGEngine | None = None,
         client: Any = None, model: str = DEFAULT_MODEL, top_k: int | None = None,
         token_budget: int | None = None, system_prompt: str | None = None) -> str:
    """Ask ``model`` the user's message with ``md_content`` (plus retrieved context) as the
    system instruction; returns the answer's text."""
    return send_detailed(md_content, user_message, rag_engine=rag_engine, client=client, model=model,
                         top_k=top_k, token_budget=token_budget, system_prompt=system_prompt).text
