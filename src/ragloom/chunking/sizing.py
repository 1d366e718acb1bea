"""The chunk size an index uses: in the embedding model's tokens when the model's tokenizer
is at hand (so no chunk is longer than what the model reads), else in characters.

``chunk_unit`` unset means tokens, except that a config giving ``chunk_size`` without a
unit keeps meaning characters, as it did before token sizing existed.
"""

from __future__ import annotations

from dataclasses import dataclass

from ragloom.chunking.context import header_budget
from ragloom.chunking.measure import CHARACTERS, TextMeasure, TokenMeasure
from ragloom.config import RAGConfig
from ragloom.errors import ConfigError
from ragloom.prompt import CHARS_PER_TOKEN

DEFAULT_CHARACTER_SIZE = 1000
#: Overlap when none is configured: a fifth of the chunk.
DEFAULT_OVERLAP_SHARE = 0.2


@dataclass(frozen=True)
class ChunkSizing:
    """Resolved size, overlap and unit of every chunk, with the measure that counts them."""

    unit: str
    size: int
    overlap: int
    measure: TextMeasure

    @property
    def window_characters(self) -> int:
        """The chunk size in characters (a token taken as ``CHARS_PER_TOKEN`` of them)."""
        return self.size * CHARS_PER_TOKEN if self.unit == "tokens" else self.size

    def signature(self) -> list[object]:
        """What must match for chunks made earlier to still be valid."""
        return [self.unit, self.size, self.overlap, getattr(self.measure, "name", "")]


def resolve_chunk_sizing(config: RAGConfig, tokens: TokenMeasure | None) -> ChunkSizing:
    """The sizing ``config`` asks for, given the provider's token measure (None when the
    provider cannot count its tokens locally, e.g. Gemini or the hash embedder)."""
    unit = config.chunk_unit or ("characters" if config.chunk_size is not None else "tokens")
    if unit == "tokens" and tokens is None:
        if config.chunk_unit == "tokens":
            raise ConfigError(
                f"key 'chunk_unit' = 'tokens': embedding provider {config.embedding.provider!r} "
                f"has no local tokenizer to count tokens with; set chunk_unit = 'characters'")
        unit = "characters"
    if unit == "characters":
        size = config.chunk_size or DEFAULT_CHARACTER_SIZE
        return ChunkSizing(unit, size, _overlap(config, size), CHARACTERS)
    assert tokens is not None
    room = tokens.window - (header_budget(tokens) if config.chunking.embed_header else 0)
    size = config.chunk_size or room
    if size > room:
        header = f" minus {tokens.window - room} for the chunk header" if room < tokens.window else ""
        raise ConfigError(
            f"key 'chunk_size' = {size}: longer than the {tokens.window} tokens embedding model "
            f"{tokens.name!r} reads{header}; the rest of each chunk would never be embedded "
            f"(leave chunk_size unset to use the model's window)")
    return ChunkSizing(unit, size, _overlap(config, size), tokens)


def _overlap(config: RAGConfig, size: int) -> int:
    overlap = config.chunk_overlap if config.chunk_overlap is not None else int(size * DEFAULT_OVERLAP_SHARE)
    if overlap >= size:
        raise ConfigError(f"chunk_overlap ({overlap}) must be smaller than chunk_size ({size})")
    return overlap
