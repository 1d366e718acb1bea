"""How chunk sizes are counted: in characters, or in the embedding model's own tokens.

A chunk measured in the model's tokens can be held to the model's window, so no tail of
it is silently cut off before embedding. Line sizes are counted once per file and summed
(WordPiece and SentencePiece tokens never span a newline), so sizing a span is O(1).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Protocol


class TextMeasure(Protocol):
    """Counts the size of texts in one unit (``"characters"`` or ``"tokens"``)."""

    unit: str

    def count(self, text: str) -> int:
        """Size of ``text``."""
        ...

    def line_sizes(self, lines: Sequence[str]) -> list[int]:
        """Size of each line of a file split on ``"\\n"``, its newline included."""
        ...

    def fit(self, text: str, budget: int) -> int:
        """How many leading characters of ``text`` fit in ``budget`` (at least 1)."""
        ...


class CharacterMeasure:
    """Sizes in characters (newlines count)."""

    unit = "characters"

    def count(self, text: str) -> int:
        return len(text)

    def line_sizes(self, lines: Sequence[str]) -> list[int]:
        sizes = [len(line) + 1 for line in lines]
        if sizes:
            sizes[-1] -= 1  # the text after the last newline has none
        return sizes

    def fit(self, text: str, budget: int) -> int:
        return max(1, min(len(text), budget))


CHARACTERS = CharacterMeasure()

#: Texts -> for each, the end offsets (in characters) of its tokens, special tokens excluded.
TokenOffsets = Callable[[list[str]], list[list[int]]]


class TokenMeasure:
    """Sizes in the tokens of an embedding model's tokenizer (special tokens excluded).

    ``window`` is how many tokens of a text the model reads; ``name`` identifies the
    tokenizer (part of the index's chunking signature).
    """

    unit = "tokens"

    def __init__(self, token_ends: TokenOffsets, window: int, name: str,
                 lock: threading.Lock | None = None) -> None:
        self._token_ends = token_ends
        self.window = window
        self.name = name
        self._lock = lock or threading.Lock()

    def _ends(self, texts: list[str]) -> list[list[int]]:
        with self._lock:  # Hugging Face fast tokenizers are not thread-safe
            return self._token_ends(texts)

    def count(self, text: str) -> int:
        return len(self._ends([text])[0]) if text else 0

    def line_sizes(self, lines: Sequence[str]) -> list[int]:
        sizes = [0] * len(lines)
        non_blank = [i for i, line in enumerate(lines) if line.strip()]
        for start in range(0, len(non_blank), 4096):
            batch = non_blank[start:start + 4096]
            for index, ends in zip(batch, self._ends([lines[i] for i in batch])):
                sizes[index] = len(ends)
        return sizes

    def fit(self, text: str, budget: int) -> int:
        ends = self._ends([text])[0]
        if len(ends) <= budget:
            return len(text)
        return max(1, ends[budget - 1]) if budget > 0 else 1



def fit_prefix(measure: TextMeasure, text: str, start: int, end: int, budget: int) -> int:
    """``measure.fit`` of ``text[start:end]`` looking only at a prefix, doubled while the
    fit reaches past its first half: measuring (or even copying) the whole rest of a line
    for each window made one long line quadratic (an 8 MB line: 2.7 s, 24 MB: 185 s). A
    token never spans whitespace, so a cut in the first half of a prefix is the cut in
    the whole text."""
    span = 8 * budget + 64
    while True:
        stop = min(end, start + span)
        fitted = measure.fit(text[start:stop], budget)
        if stop == end or fitted <= (stop - start) // 2:
            return fitted
        span *= 2
