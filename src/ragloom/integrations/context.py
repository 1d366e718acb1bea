"""What goes in front of the model: the context strategy, its token budget, the notice.

``[rag.prompt] strategy``: ``"rag"`` searches for each message (the default); ``"preload"``
puts whole indexed files into the system prompt, in path order, within the budget;
``"auto"`` preloads when the whole indexed corpus fits the budget and searches otherwise.
The budget is ``token_budget`` when a call gives one, else ``context_budget_tokens``,
else ``context_budget`` (a share) of the model's context window. With
``no_results_notice``, a message that gets no context says so in one line, so the model
does not pretend to cite project documents.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ragloom.errors import ConfigError
from ragloom.prompt import inject_context, results_in_context
from ragloom.types import SearchResult

if TYPE_CHECKING:
    from ragloom.config import RAGConfig
    from ragloom.engine import RAGEngine

#: Context windows (tokens) of the models the integrations default to, and their kin.
CONTEXT_WINDOWS: dict[str, int] = {
    "gemini-2.5-flash": 1_048_576, "gemini-2.5-pro": 1_048_576, "gemini-2.5-flash-lite": 1_048_576,
    "gemini-2.0-flash": 1_048_576, "gpt-4o-mini": 128_000, "gpt-4o": 128_000,
    "gpt-4.1": 1_047_576, "gpt-4.1-mini": 1_047_576, "gpt-4.1-nano": 1_047_576,
}


@dataclass
class PromptContext:
    """The system instruction for one message and what it holds."""

    instruction: str
    injected: list[SearchResult] = field(default_factory=list)
    budget_tokens: int | None = None
    strategy: str = "rag"


def resolve_budget(config: RAGConfig | None, explicit: int | None, model: str | None) -> int | None:
    """The context block's token budget (see the module docstring); None = no limit."""
    if explicit is not None:
        return explicit
    if config is None:
        return None
    prompt = config.prompt
    if prompt.context_budget_tokens is not None:
        return prompt.context_budget_tokens
    if prompt.context_budget is not None:
        window = CONTEXT_WINDOWS.get(model or "")
        if window is None:
            raise ConfigError(f"prompt.context_budget = {prompt.context_budget} is a share of the "
                              f"model's context window, which ragloom does not know for model "
                              f"{model!r}; set prompt.context_budget_tokens instead")
        return int(window * prompt.context_budget)
    return None


def prepare(rag_engine: RAGEngine | None, query: str, *, md_content: str,
            system_prompt: str | None, top_k: int | None, token_budget: int | None,
            model: str | None) -> PromptContext:
    """Choose the context for ``query`` and build the system instruction around it."""
    config = rag_engine.config if rag_engine is not None else None
    budget = resolve_budget(config, token_budget, model)
    strategy = "rag"
    results: list[SearchResult] = []
    if rag_engine is not None and config is not None and config.enabled and not rag_engine.is_empty():
        strategy = config.prompt.strategy
        if strategy == "auto":
            fits = budget is not None and rag_engine.corpus_tokens() <= budget
            strategy = "preload" if fits else "rag"
        if strategy == "preload":
            results = rag_engine.preload_results(budget)
        else:
            results = rag_engine.search(query, top_k=top_k)
    notice = (config.prompt.no_results_notice_text
              if config is not None and config.prompt.no_results_notice else None)
    instruction = system_instruction(md_content, results, system_prompt, budget, notice)
    return PromptContext(instruction, results_in_context(results, budget), budget, strategy)


def system_instruction(md_content: str, results: list[SearchResult], system_prompt: str | None,
                       token_budget: int | None, notice: str | None = None) -> str:
    """``system_prompt``, then ``md_content`` with the context block of ``results`` (or,
    with no results, the ``notice`` line when one is given)."""
    prompt = inject_context(md_content, results, token_budget)
    if not results and notice:
        prompt = "\n\n".join(part for part in (prompt.rstrip("\n"), notice) if part)
    return "\n\n".join(part for part in (system_prompt, prompt) if part)
