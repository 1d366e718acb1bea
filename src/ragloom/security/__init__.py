"""Secret detection and redaction: indexed text never carries API keys, tokens or passwords.

Text is redacted before it is chunked, so the embedder (possibly a cloud API), the BM25
index, the store and every prompt see ``[REDACTED:<kind>]`` instead of the value. Lines
are never joined or split, so line numbers of chunks stay those of the file.

Rules chosen by measurement (``bench/secret_detection.py``, tests/data/secrets/,
docs/benchmarks.md): provider token formats recognisable by their shape (``formats``);
values written over several lines or pieces (``blocks``); values recognised by how they are
used: call arguments, lookup defaults, CLI flags, DSNs, ``expect`` scripts, device configs
(``usage``); secrets by where they stand: URL credentials, ``Authorization`` headers, values
under secret-named keys in any config or code syntax, Kubernetes Secret data (``structure``);
key material and long random literals (``material``). ``display`` hides credentials in
what ragloom prints.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ragloom.security.blocks import redact_blocks
from ragloom.security.formats import FORMATS, KEY_FORMATS
from ragloom.security.material import redact_material
from ragloom.security.structure import redact_structure
from ragloom.security.usage import NAMED_LINE_RULES, redact_usage
from ragloom.security.values import looks_like_password, looks_random, shannon_entropy
from ragloom.security.words import lowered

__all__ = ["KEY_FORMATS", "Redaction", "looks_like_password", "looks_random", "redact_secrets",
           "shannon_entropy"]


@dataclass
class Redaction:
    """Redacted text and what was taken out of it (kinds only, never values)."""

    text: str
    kinds: Counter[str] = field(default_factory=Counter)

    @property
    def count(self) -> int:
        return sum(self.kinds.values())


def redact_secrets(text: str) -> Redaction:
    """``text`` with every secret replaced by ``[REDACTED:<kind>]`` (newlines kept)."""
    kinds: Counter[str] = Counter()

    def placeholder(kind: str, secret: str) -> str:
        kinds[kind] += 1
        return f"[REDACTED:{kind}]" + "\n" * secret.count("\n")

    for kind, pattern, needles in FORMATS:
        if any(map(text.__contains__, needles)):
            text = pattern.sub(lambda match, kind=kind: placeholder(kind, match.group(0)), text)
    # multi-piece values before the one-line rules (which would see a piece alone), key
    # material and unnamed random literals last (what a named rule took is already gone)
    text = redact_blocks(text, lowered(text), placeholder)
    text = redact_usage(text, lowered(text), placeholder)
    text = redact_structure(text, placeholder, NAMED_LINE_RULES)
    text = redact_material(text, lowered(text), placeholder)
    return Redaction(text, kinds)

