"""Secret detection and redaction: indexed text never carries API keys, tokens or passwords.

Text is redacted before it is chunked, so the embedder (possibly a cloud API), the BM25
index, the store and every prompt see ``[REDACTED:<kind>]`` instead of the value. Lines
are never joined or split, so line numbers of chunks stay those of the file.

Two kinds of rules: well-known key formats (each provider's own prefix and length), and
values assigned to secret-sounding names (``api_key = "..."``, ``PASSWORD=...``) when they
look random enough to be real (Shannon entropy and length), which keeps ``token = "abc"``
and ``password = get_password()`` in code untouched.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field

#: Key formats recognisable by their shape alone; kind -> pattern of the whole value.
KEY_FORMATS: dict[str, str] = {
    "private-key": r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----.*?"
                   r"(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\Z)",
    "anthropic-key": r"\bsk-ant-[A-Za-z0-9_-]{20,}",
    "openai-key": r"\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,}",
    "google-api-key": r"\bAIza[0-9A-Za-z_-]{35}",
    "github-token": r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,})",
    "gitlab-token": r"\bglpat-[A-Za-z0-9_-]{20,}",
    "aws-access-key": r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b",
    "slack-token": r"\bxox[abposre]-[A-Za-z0-9-]{10,}",
    "stripe-key": r"\b[rs]k_live_[A-Za-z0-9]{20,}",
    "jwt": r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
}

#: Words that make a name secret-sounding: api_key, client_secret, PASSWORD, auth_token...
_SECRET_WORD = (r"(?:api[_-]?key|secret|token|passw(?:or)?d|passwd|credential|auth[_-]?key|"
                r"access[_-]?key|private[_-]?key)")
# Matched from the secret word on (a leading name part would make every identifier a start).
_NAME_TAIL = r"[A-Za-z0-9_.-]{0,40}"
_QUOTED_ASSIGNMENT = re.compile(
    rf"""(?i){_SECRET_WORD}{_NAME_TAIL}["']?\s*(?::=|=|:)\s*"""
    r"""(?P<quote>["'])(?P<value>[^"'\s]{8,})(?P=quote)""")
_BARE_ASSIGNMENT = re.compile(  # KEY=value lines of .env / ini / shell files
    rf"""(?im)^[ \t]*(?:export[ \t]+)?{_NAME_TAIL}{_SECRET_WORD}{_NAME_TAIL}[ \t]*=[ \t]*"""
    r"""(?P<value>[^"'\s#;]{12,})[ \t]*$""")
_FORMATS = [(kind, re.compile(pattern, re.DOTALL)) for kind, pattern in KEY_FORMATS.items()]
_ALREADY_REDACTED = "[REDACTED:"

#: A value assigned to a secret name must look random: at least this many bits per character
#: (English words and identifiers score lower) ...
MIN_ENTROPY_BITS = 3.0
#: ... and mix at least two of lower case, upper case, digits and symbols.
MIN_CHARACTER_CLASSES = 2


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

    for kind, pattern in _FORMATS:
        text = pattern.sub(lambda match, kind=kind: placeholder(kind, match.group(0)), text)

    def assigned(match: re.Match[str]) -> str:
        value = match.group("value")
        if _ALREADY_REDACTED in value or not looks_random(value):
            return match.group(0)
        start, end = match.span("value")
        offset = match.start()
        whole = match.group(0)
        return whole[:start - offset] + placeholder("secret", value) + whole[end - offset:]

    text = _QUOTED_ASSIGNMENT.sub(assigned, text)
    text = _BARE_ASSIGNMENT.sub(assigned, text)
    return Redaction(text, kinds)


def looks_random(value: str) -> bool:
    """Whether a value is random-looking enough to be a real credential (not a name, a
    path, a reference to a variable or a piece of code)."""
    if (value.startswith(("$", "%", "{", "<", "/", "~", "./")) or "(" in value or "[" in value
            or value.lower() in _NOT_SECRETS or _WORDS.fullmatch(value) or _DOTTED_NAME.fullmatch(value)):
        return False
    classes = sum((any(c.islower() for c in value), any(c.isupper() for c in value),
                   any(c.isdigit() for c in value), any(not c.isalnum() for c in value)))
    return classes >= MIN_CHARACTER_CLASSES and shannon_entropy(value) >= MIN_ENTROPY_BITS


def shannon_entropy(value: str) -> float:
    """Bits per character of ``value``'s own character distribution."""
    counts = Counter(value)
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())


#: Letters-only words joined by separators: names (``database_password``), not secrets.
_WORDS = re.compile(r"_*[A-Za-z]+(?:[_.:/-]+[A-Za-z]+)*_*")
#: ``self._manager._authkey``, ``tokenize_module._tokenize``: code, not a value.
_DOTTED_NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")
_NOT_SECRETS = frozenset({"changeme", "password", "xxxxxxxx", "your-api-key", "your_api_key",
                          "placeholder", "redacted", "example"})
