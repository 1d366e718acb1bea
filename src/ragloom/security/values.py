"""Whether a value found where secrets live (under a secret name, in a URL's password, after
``Authorization: Bearer``) is a real credential or a placeholder, a reference or code.

The bar depends on the name: a password is often a short human one (``hunter2``), so under
password-like names any literal with two character classes counts; tokens and keys are
machine-made, so under other secret names the value must also look random (Shannon entropy).
"""

from __future__ import annotations

import math
import re
from collections import Counter

#: A value under a token/key name must carry at least this many bits per character
#: (English words and identifiers score lower) ...
MIN_ENTROPY_BITS = 3.0
#: ... and mix at least two of lower case, upper case, digits and symbols.
MIN_CHARACTER_CLASSES = 2
#: Shortest literal taken for a password (shorter ones are test fixtures, not credentials).
MIN_PASSWORD_LENGTH = 6
MIN_TOKEN_LENGTH = 8

#: Letters-only words joined by separators: names (``database_password``) and labels
#: (``(Test-)Token``, a translated form field), not secrets.
_WORDS = re.compile(r"[_.:/\\()-]*[^\W\d_]+(?:[_.:/\\()-]+[^\W\d_]+)*[_.:/\\()-]*")  # any script's letters
#: ``self._manager._authkey``, ``tokenize_module._tokenize``: code, not a value.
_DOTTED_NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")
#: Values that stand for a secret without being one.
_PLACEHOLDER = re.compile(
    r"(?i)(?:(?-i:x{3,}|X{3,})|\*{3,}|\.{3}|#{3,}|<[^>]*>|your[_-]|my[_-]?(?:secret|password|token|key)|"
    r"example|placeholder|changeme|change[_-]me|redacted|dummy|sample|replace[_-]?me|"
    r"_here\b|\btodo\b|\bfixme\b|^(?:none|null|nil|true|false|yes|no|on|off|required|optional|"
    r"default|empty|string|str|bytes|text|secret|password|passwd|pass|pwd|token|key|"
    r"foo|bar|baz|admin|root|user|guest|unknown|undefined)\d*$|^test)")
#: A validation rule list (Laravel's ``'password' => 'required|string|confirmed|min:8'``,
#: the same shape in other validators): rule names joined by ``|``, each with an optional
#: ``:argument``, one of them a rule every validator has. It says what a secret must be.
_RULE_LIST = re.compile(r"[a-z_]+(?::[^|\s]*)?(?:\|[a-z_]+(?::[^|\s]*)?)+")
_RULE_NAMES = frozenset({"required", "nullable", "sometimes", "string", "confirmed", "min", "max",
                         "size", "between", "regex", "present", "filled", "bail", "integer"})
#: Passwords of tests and docs: keyboard and alphabet runs, foo/bar words, hunter2 (a random
#: token may hold such a run by chance, so only short password-like values are judged by it).
_STAND_IN = re.compile(r"(?i)abc|12345|qwerty|asdf|foo|letmein|hunter2")
MAX_STAND_IN_LENGTH = 16
#: This many letters of other scripts make a value prose (a translated UI string), not a key.
MIN_PROSE_LETTERS = 3
#: References and templates: an environment or shell variable, a path, a format field.
_REFERENCE = re.compile(r"^\$|\{\$|^/|^~|^\./|^\\\\|^<|\{\{|\}\}|\$\{|\{[\w.]*\}|%\(|%s\b|\s")
#: Outside quotes, also code: a call, an index, a dict, a decorator or an operator ...
_CODE = re.compile(r"^[%&@!{?]|[()\[\]\\]")
#: ... or a pointer dereferenced or taken of a (dotted) name: Go's ``*f.Password``.
_POINTER = re.compile(r"[*&]+(?:[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+|[^\W\d_]+)")


def shannon_entropy(value: str) -> float:
    """Bits per character of ``value``'s own character distribution."""
    counts = Counter(value)
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())


def character_classes(value: str) -> int:
    """How many of lower case, upper case, digits and symbols ``value`` mixes."""
    return sum((any(c.islower() for c in value), any(c.isupper() for c in value),
                any(c.isdigit() for c in value), any(not c.isalnum() for c in value)))


def is_placeholder(value: str, quoted: bool = False) -> bool:
    """A reference, template, piece of code (unless ``quoted``), identifier or stand-in
    rather than a literal."""
    return bool(_REFERENCE.search(value) or (not quoted and (_CODE.search(value)
                                                           or _POINTER.fullmatch(value)))
                or _PLACEHOLDER.search(value) or _WORDS.fullmatch(value)
                or _DOTTED_NAME.fullmatch(value) or len(set(value)) <= 2 or "[REDACTED:" in value
                or _rule_list(value)
                or (len(value) <= MAX_STAND_IN_LENGTH and _STAND_IN.search(value))
                or sum(c.isalpha() and not c.isascii() for c in value) >= MIN_PROSE_LETTERS)


def _rule_list(value: str) -> bool:
    """Whether ``value`` is a validation rule list (``_RULE_LIST``), not a literal."""
    return bool(_RULE_LIST.fullmatch(value)) and any(
        rule.split(":", 1)[0] in _RULE_NAMES for rule in value.split("|"))


#: ``rc2_key_st``, ``default_token2``: outside quotes, a snake_case name is a reference ...
_SNAKE_NAME = re.compile(r"[A-Za-z_]\w*_\w*")
#: ... unless a part of it is a long run of letters and digits, as in prefixed tokens
#: (``lsv2_pt_<32 hex>_<10 hex>``, ``rnd_<28 chars>``): no name has such a part.
_RANDOM_PART = re.compile(r"(?=[A-Za-z]*\d)(?=\d*[A-Za-z])[A-Za-z0-9]{16,}")


def _snake_name(value: str) -> bool:
    return bool(_SNAKE_NAME.fullmatch(value)) and not any(
        _RANDOM_PART.fullmatch(part) and shannon_entropy(part) >= MIN_ENTROPY_BITS
        for part in value.split("_"))


def looks_random(value: str, quoted: bool = False) -> bool:
    """Whether a value is random-looking enough to be a machine-made credential."""
    return (len(value) >= MIN_TOKEN_LENGTH and not is_placeholder(value, quoted)
            and (quoted or not _snake_name(value))
            and character_classes(value) >= MIN_CHARACTER_CLASSES
            and shannon_entropy(value) >= MIN_ENTROPY_BITS)


def looks_like_password(value: str, quoted: bool = False) -> bool:
    """Whether a literal under a password name is a real password (``hunter2``, ``S3cr3t!``):
    long enough, not a placeholder, two character classes, not a bare number."""
    return (len(value) >= MIN_PASSWORD_LENGTH and not is_placeholder(value, quoted)
            and character_classes(value) >= MIN_CHARACTER_CLASSES and not value.isdigit())
