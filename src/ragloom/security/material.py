"""Key material without a provider prefix: Ethereum private keys, BIP39 mnemonics, JWK
private members, .NET ``<RSAKeyValue>`` private parts; and the high-entropy rule, for long
random literals that stand under no secret name at all.

Each rule needs context to stay off hashes and ids: a ``0x`` + 64-hex value is a key only
where the line speaks of keys, wallets or accounts (elsewhere it is a digest); twelve
lower-case words are a mnemonic only where the line names a mnemonic, seed or phrase; the
high-entropy rule takes only literals that are assigned or passed, mix upper case, lower
case and digits, spell no words, are not base64 of text, and stand on a line that names no
hash, digest, id, test or public identifier.
"""

from __future__ import annotations

import base64
import re

from ragloom.security.values import is_placeholder, shannon_entropy
from ragloom.security.words import Replace, sub

_ETHEREUM_KEY = re.compile(r"0x(?P<bare>[0-9a-fA-F]{64})(?![0-9a-fA-F])")
_KEY_LINE = re.compile(r"(?i)key|wallet|account|signer|private|mnemonic")
_MNEMONIC = re.compile(r"(?<=[\"'`=])(?P<bare>[a-z]{3,8}(?: [a-z]{3,8}){11,23})(?=[\"'`]|[ \t]*\r?$)",
                       re.MULTILINE)
_MNEMONIC_LINE = re.compile(r"(?i)mnemonic|seed|phrase|recovery")
MNEMONIC_LENGTHS = (12, 15, 18, 21, 24)
#: JWK private members (RFC 7518): ``"d"``, the CRT parameters, an octet key's ``"k"``.
_JWK_PRIVATE = re.compile(r"\"(?P<name>d|p|q|dp|dq|qi|k)\"[ \t]*:[ \t]*\"(?P<bare>[A-Za-z0-9_-]{16,})\"")
_XML_PRIVATE = re.compile(r"<(?P<name>D|P|Q|DP|DQ|InverseQ)>(?P<bare>[A-Za-z0-9+/=\s]{16,}?)</(?P=name)>")

#: A long random literal: quoted anywhere, or a bare config value alone after ``key:``/``key =``.
_LITERAL = re.compile(r"(?P<quote>[\"'])(?P<quoted>[A-Za-z0-9_+/=.~-]{24,128})(?P=quote)"
                      r"|(?m:^[ \t]*[\w.-]{1,60}[ \t]*[:=][ \t]*"
                      r"(?P<bare>[A-Za-z0-9_+/=.~-]{24,128})[ \t]*\r?$)")
#: Lines whose random-looking literals are digests, ids, encodings or test data, not secrets.
_NOT_SECRET_LINE = re.compile(
    r"(?i)hash|digest|sha\d|md5|checksum|integrity|\bid\b|_id\b|uuid|guid|nonce|salt\b|fingerprint|"
    r"signature|etag|revision|commit|version|base64|b64|encod|decod|data:|\.(?:png|jpe?g|svg|woff2?|gif)"
    r"|assert|expect|test|example|sample|fixture|mock|fake|dummy|regex|pattern|charset|alphabet|xmlns")
#: Words and numbers (``SomeLongIdentifierName2``) spell an identifier, not a token.
_WORDY = re.compile(r"(?:[A-Z]?[a-z]{3,}|[A-Z]{2,}(?![a-z])|\d{1,4}|[_./+=~-])+")
#: A part between separators that is a word (``with-SUPER-MONKEYS-pc58...``, punycode and
#: identifiers such as ``N18x509_attributes_st4``): no random token has one.
_WORD = re.compile(r"[A-Z]?[a-z]{4,}|[A-Z]{4,}")
_SEPARATORS = re.compile(r"[-_.~]+")
_LOWER_RUN = re.compile(r"[a-z]{10,}")
#: Before the literal on its line: an assignment, a call or an item (``=``, ``:``, ``(``, ``,``, ``[``).
_USED = re.compile(r"[=:(,\[]")
_PUBLIC_IDENTIFIER = re.compile(r"(?i:public[_.-]|publishable)|public(?=[A-Z])|[_.]public\b")
MIN_LITERAL_ENTROPY_BITS = 4.3
MIN_LITERAL_DIGITS = 3


def redact_material(text: str, lower: str, replace: Replace) -> str:
    """``text`` with key material and long random literals replaced."""
    if "0x" in text:
        text = sub(_ETHEREUM_KEY, text, "ethereum-private-key",
                   lambda m, v: len(set(v)) > 8 and _line_says(m, _KEY_LINE), replace)
    if any(map(lower.__contains__, ("mnemonic", "seed", "phrase", "recovery"))):
        text = sub(_MNEMONIC, text, "mnemonic", _mnemonic, replace)
    if '"kty"' in text:
        text = sub(_JWK_PRIVATE, text, "private-key", lambda m, v: True, replace)
    if "<RSAKeyValue>" in text:
        text = sub(_XML_PRIVATE, text, "private-key", lambda m, v: True, replace)
    return sub(_LITERAL, text, "random-literal", _random_literal, replace)


def _mnemonic(match: re.Match[str], value: str) -> bool:
    words = value.split(" ")
    return (_line_says(match, _MNEMONIC_LINE) and len(words) in MNEMONIC_LENGTHS
            and len(set(words)) >= len(words) * 3 // 4)


def _random_literal(match: re.Match[str], value: str) -> bool:
    """Whether a literal under no secret name is random enough to be a credential anyway."""
    if (sum(c.isdigit() for c in value) < MIN_LITERAL_DIGITS or not any(c.isupper() for c in value)
            or not any(c.islower() for c in value) or shannon_entropy(value) < MIN_LITERAL_ENTROPY_BITS
            or _WORDY.fullmatch(value) or is_placeholder(value, True) or "/" in value.strip("/")
            or any(_WORD.fullmatch(part) for part in _SEPARATORS.split(value)) or _encoded_text(value)):
        return False
    start = match.start("quoted" if match.group("quoted") is not None else "bare")
    line_start = match.string.rfind("\n", 0, start) + 1
    if not _USED.search(match.string, line_start, start):
        return False  # a literal alone on its line continues a longer one (a blob's middle)
    if _PUBLIC_IDENTIFIER.search(match.string, line_start, start):
        return False  # NEXT_PUBLIC_..., publicKey, publishable: meant to be seen
    return not _line_says(match, _NOT_SECRET_LINE) and not _LOWER_RUN.search(value)


def _encoded_text(value: str) -> bool:
    """Whether ``value`` is base64 of printable text (test vectors, encoded words), not a key."""
    try:
        decoded = base64.b64decode(value + "=" * (-len(value) % 4), validate=True)
    except ValueError:
        return False
    return bool(decoded) and all(32 <= byte < 127 or byte in (9, 10, 13) for byte in decoded)


def _line_says(match: re.Match[str], words: re.Pattern[str]) -> bool:
    """Whether the line holding ``match`` contains one of ``words``."""
    text = match.string
    line_end = text.find("\n", match.end())
    return words.search(text, text.rfind("\n", 0, match.start()) + 1,
                        line_end if line_end >= 0 else len(text)) is not None
