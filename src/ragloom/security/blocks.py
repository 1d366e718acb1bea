"""Secrets under a secret name written over several lines or in several pieces: YAML block
scalars (``|``, ``>-``), a YAML value on the line after its key, YAML lists, TOML multi-line
strings (``\"\"\"``, ``'''``), TOML/JSON arrays of keys, concatenated literals
(``"abc" + "def"``, Python's implicit concatenation) and Markdown table rows.

Every rule starts where a secret word stands (found once in the lowered text), so texts
without one cost a single scan. The value is judged whole (joined), then each piece is replaced.
"""

from __future__ import annotations

import re

from ragloom.security.structure import SECRET_NAME, named_secret
from ragloom.security.values import looks_random
from ragloom.security.words import Replace, secret_word_hits

#: ``name: |`` / ``name: >-`` / ``name:`` at the end of its line (the value follows).
_YAML_HEADING = re.compile(rf"(?i){SECRET_NAME}[\"']?[ \t]*:[ \t]*(?P<block>[|>][-+0-9]*)?[ \t]*"
                           r"(?:#[^\n]*)?\r?\n")
#: ``name = \"\"\"...\"\"\"`` or ``name = '''...'''`` (TOML, Python)
_MULTILINE_STRING = re.compile(rf"(?is){SECRET_NAME}[ \t]*=[ \t]*(?P<fence>\"\"\"|''')"
                               r"(?P<body>.{1,2000}?)(?P=fence)")
#: ``name = ["...", "..."]``, ``"name": [ ... ]``
_WRAPPED_PART = re.compile(r"[A-Za-z0-9+/=_-]{16,}")
_ARRAY = re.compile(rf"(?i){SECRET_NAME}[\"']?[ \t]*[:=][ \t]*\[(?P<body>[^\]\[]{{1,4000}})\]")
#: Items of an array under a secret name are keys, machine-made and long: shorter items are
#: names (``remote-auth = ["django-auth-ldap", "python3-saml"]``).
MIN_ARRAY_KEY_LENGTH = 16
_ITEM = re.compile(r"(?P<quote>[\"'])(?P<quoted>[^\"'\\\n]{1,512})(?P=quote)")
#: ``name = "abc" + "def"``, ``name = (\n "abc"\n "def"\n)``, PHP ``'abc' . 'def'``
_CONCATENATION_START = re.compile(
    rf"(?i){SECRET_NAME}[\"']?\]?[ \t]*(?::=|=>|=|:)[ \t]*\(?[ \t]*(?:\r?\n[ \t]*)?")
_PIECE = re.compile(r"(?P<quote>[\"'])(?P<quoted>[^\"'\\\n]{1,256})(?P=quote)")
_JOIN = re.compile(r"[ \t]*(?:[+.][ \t]*)?(?:\\?\r?\n[ \t]*)?(?:[+.][ \t]*)?(?=[\"'])")
#: What follows a name every rule here needs: ``:``, ``=`` or ``[`` (most hits in code are
#: identifiers followed by anything else, skipped at the cost of this one match).
_AFTER_NAME = re.compile(r"[A-Za-z0-9_.-]{0,40}[\"']?\]?[ \t]*[:=]")
#: ``| Unseal Key 1 | <value> |``
_TABLE_ROW = re.compile(r"(?im)^[ \t]*\|[^|\n]{0,60}(?:key|token|secret|password)[^|\n]{0,20}\|[ \t]*"
                        r"`?(?P<bare>[^|\s`]{8,256})`?[ \t]*\|")


def redact_blocks(text: str, lower: str, replace: Replace) -> str:
    """``text`` with the secrets the multi-line and multi-piece rules find replaced."""
    spans: list[tuple[int, int, str]] = []  # (start, end, kind) of every piece to replace
    taken = -1
    for hit in secret_word_hits(lower):
        if hit.start() <= taken or not _AFTER_NAME.match(text, hit.end()):
            continue
        found = (_yaml_value(text, hit.start()) or _multiline(text, hit.start())
                 or _array(text, hit.start()) or _concatenation(text, hit.start()))
        if found:
            spans += found
            taken = found[-1][1]
    if "|" in text:
        for row in _TABLE_ROW.finditer(text):
            if looks_random(row.group("bare"), True):
                spans.append((*row.span("bare"), "secret"))
    if not spans:
        return text
    parts: list[str] = []
    done = 0
    for start, end, kind in sorted(spans):
        if start < done:
            continue
        parts += [text[done:start], replace(kind, text[start:end])]
        done = end
    return "".join(parts) + text[done:]


def _indent(text: str, position: int) -> int:
    line_start = text.rfind("\n", 0, position) + 1
    line = text[line_start:position]
    return len(line) - len(line.lstrip(" \t"))


def _yaml_value(text: str, start: int) -> list[tuple[int, int, str]]:
    """A block scalar, a plain value on the next line, or the items of a list under the name."""
    heading = _YAML_HEADING.match(text, start)
    if heading is None:
        return []
    key_indent = _indent(text, start)
    lines: list[tuple[int, int]] = []  # spans of the value's lines' contents
    position = heading.end()
    while position < len(text):
        end = text.find("\n", position)
        end = len(text) if end < 0 else end
        line = text[position:end].rstrip("\r")
        content = line.lstrip(" \t")
        indent = len(line) - len(content)
        if content and (indent < key_indent or (indent == key_indent and not content.startswith("- "))):
            break
        if content and not (indent == key_indent and heading.group("block")):
            lines.append((position + indent, position + len(line)))
        position = end + 1
    if not lines:
        return []
    pieces = [text[a:b] for a, b in lines]
    name = heading.group("name")
    if heading.group("block"):
        return [(a, b, "secret") for a, b in lines] if named_secret(name, "".join(pieces), True) else []
    if all(piece.startswith("- ") for piece in pieces):  # a list: each item judged alone
        return [(a + 2, b, "secret") for (a, b), piece in zip(lines, pieces)
                if named_secret(name, piece[2:].strip("\"' "), True)]
    if len(pieces) == 1 and ": " not in pieces[0] and named_secret(name, pieces[0].strip("\"'"), False):
        return [(*lines[0], "secret")]
    return []


def _multiline(text: str, start: int) -> list[tuple[int, int, str]]:
    match = _MULTILINE_STRING.match(text, start)
    if match is None:
        return []
    body = match.group("body")
    tokens = body.split()  # one value (maybe wrapped over lines), not a whole embedded file
    if not (len(tokens) == 1 or all(_WRAPPED_PART.fullmatch(token) for token in tokens)) \
            or not named_secret(match.group("name"), "".join(tokens), True):
        return []
    offset = match.start("body")
    return [(offset + m.start(), offset + m.end(), "secret") for m in re.finditer(r"\S+", body)]


def _array(text: str, start: int) -> list[tuple[int, int, str]]:
    match = _ARRAY.match(text, start)
    if match is None:
        return []
    offset = match.start("body")
    return [(offset + item.start("quoted"), offset + item.end("quoted"), "secret")
            for item in _ITEM.finditer(match.group("body"))
            if len(item.group("quoted")) >= MIN_ARRAY_KEY_LENGTH
            and named_secret(match.group("name"), item.group("quoted"), True)]


def _concatenation(text: str, start: int) -> list[tuple[int, int, str]]:
    head = _CONCATENATION_START.match(text, start)
    if head is None:
        return []
    pieces: list[re.Match[str]] = []
    position = head.end()
    while (piece := _PIECE.match(text, position)) is not None:
        pieces.append(piece)
        join = _JOIN.match(text, piece.end())
        if join is None:
            break
        position = join.end()
    joined = "".join(piece.group("quoted") for piece in pieces)
    if len(pieces) < 2 or not named_secret(head.group("name"), joined, True):
        return []
    return [(*piece.span("quoted"), "secret") for piece in pieces]
