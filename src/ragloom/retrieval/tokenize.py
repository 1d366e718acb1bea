"""The tokenizer BM25 sees, the same for documents and queries, suited to code and prose.

Lowercase Unicode words (one longer than ``MAX_TOKEN`` kept as its start and a hash);
identifiers also split on snake_case and camelCase with the whole identifier kept
(``parseHTTPHeader`` -> parsehttpheader, parse, http, header); English stopwords dropped;
every token reduced by the Snowball English stemmer (PyStemmer's C implementation when
installed, else the pure-Python ``snowballstemmer``: same output).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from functools import lru_cache

_WORD = re.compile(r"\w+", re.UNICODE)

#: Tokens longer than this (a base64 run, a minified line) are kept as their first
#: ``_KEPT`` characters, ``~`` and a hash of the whole token: the same on the write and the
#: query side, so BM25 still finds them, and short enough for any store's index (a Postgres
#: btree row holds at most 2,704 bytes). ``~`` is never part of a word: no clash.
MAX_TOKEN = 64
_KEPT = 40
_CAMEL_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")

#: Function words only (NLTK's English list): content words such as "system" or "call"
#: matter in code and technical prose, so broader lists are avoided.
STOPWORDS = frozenset("""
a about above after again against all am an and any are as at be because been before being
below between both but by can did do does doing don down during each few for from further had
has have having he her here hers herself him himself his how i if in into is it its itself
just me more most my myself no nor not now of off on once only or other our ours ourselves
out over own same she should so some such than that the their theirs them themselves then
there these they this those through to too under until up very was we were what when where
which while who whom why will with you your yours yourself yourselves
""".split())


def _load_stemmer() -> Callable[[str], str]:
    stem_word: Callable[[str], str]
    try:
        import Stemmer  # PyStemmer

        stem_word = Stemmer.Stemmer("english").stemWord
    except ImportError:
        import snowballstemmer

        stem_word = snowballstemmer.stemmer("english").stemWord
    return stem_word


_stem_word = _load_stemmer()


@lru_cache(maxsize=500_000)
def stem(token: str) -> str:
    return _stem_word(token)


def identifier_parts(word: str) -> list[str]:
    """snake_case and camelCase pieces of a word, lowercased; non-ASCII pieces stay whole."""
    parts: list[str] = []
    for piece in word.split("_"):
        if piece.isascii():
            parts.extend(p.lower() for p in _CAMEL_PART.findall(piece))
        elif piece:
            parts.append(piece.lower())
    return parts


def bounded(token: str) -> str:
    """A long token's stand-in: its start, ``~`` and 16 hex digits of its hash."""
    digest = hashlib.blake2b(token.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()
    return f"{token[:_KEPT]}~{digest}"


class Tokenizer:
    """Text to BM25 terms; each step can be switched off (to measure what it adds)."""

    def __init__(self, stem: bool = True, stopwords: bool = True,
                 split_identifiers: bool = True) -> None:
        self.stem = stem
        self.stopwords = stopwords
        self.split_identifiers = split_identifiers
        self._word_tokens = lru_cache(maxsize=200_000)(self._tokens_of_word)

    @property
    def signature(self) -> str:
        """Identifies the settings, so an index built with others is rebuilt."""
        flags = (self.stem, self.stopwords, self.split_identifiers)
        return "v2:" + "".join("1" if flag else "0" for flag in flags)

    def _tokens_of_word(self, word: str) -> tuple[str, ...]:
        lower = word.lower()
        parts = identifier_parts(word) if self.split_identifiers else []
        candidates = [lower] if len(parts) <= 1 else [lower, *parts]
        if self.stopwords:
            candidates = [token for token in candidates if token not in STOPWORDS]
        return tuple(bounded(token) if len(token) > MAX_TOKEN else stem(token) if self.stem
                     else token for token in candidates)

    def __call__(self, text: str) -> list[str]:
        """BM25 tokens of ``text``, in order (repeats kept: they are term frequencies)."""
        tokens: list[str] = []
        for word in _WORD.findall(text):
            tokens.extend(self._word_tokens(word))
        return tokens


#: The default tokenizer: identifiers split, stopwords dropped, Snowball-stemmed.
tokenize = Tokenizer()
