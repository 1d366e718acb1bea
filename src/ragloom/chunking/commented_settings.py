"""Settings written out in a configuration file's comments, as sample configurations ship them.

A configuration template often ships every option commented out under the lines
documenting it (atuin's ``config.toml``, LLDAP's ``lldap_config.docker_template.toml``,
many ``*.yml.example`` files)::

    ## The port on which to have the HTTP server.
    #http_port = 17170

Read as comments alone, the whole file is one documenting run: the line chunker
(``character.CommentedLinesChunker``) then had no line to end a unit at, cut the file
between arbitrary lines, and the setting a question asks for ("how do I set the JWT
secret") landed in one chunk and its documentation in another. So a commented line that
is a setting itself (``#key = value``, ``# key: value``, ``;key=value``: one name and one
value, a quoted string, a number, a word or a bracketed list or table) ends a unit as a
live setting does. A comment in words ("## LC_ALL=C tr -dc ... | head", "# Note: this is
slow") is no setting: its value is more than one token.

A TOML or INI table header (``[smtp_options]``, ``[[servers]]``) opens a section: the
chunker packs sections whole, small ones several to a window, so a chunk never holds the
end of one section and the start of the next (the SMTP options' documentation with the
LDAPS ones').
"""

from __future__ import annotations

import re
from collections.abc import Sequence

#: ``key = value`` / ``key: value`` (after the comment prefix): a dotted or dashed name and
#: one value: a quoted string, a bracketed list or table, or a single token; a trailing
#: comment may follow.
_SETTING = re.compile(
    r"^\s*(?P<key>[A-Za-z_][\w.-]{0,80})\s*(?:=|:(?=\s))\s*"
    r"(?:\"[^\"]*\"|'[^']*'|[\[{].*|[^\s#;\"']+)\s*(?:[#;].*)?$")
#: A TOML / INI table header alone on its line (``[smtp_options]``, ``[[bin]]``,
#: ``[tool.ruff]``); a shell test (``[ -f x ]``) has a space inside.
_SECTION = re.compile(r"^\[\[?[A-Za-z0-9_\"][^\]\s]*\]\]?\s*(?:[#;].*)?$")


def is_section(line: str) -> bool:
    """Whether ``line`` is a table header (``[smtp_options]``) opening a section."""
    return _SECTION.match(line.strip()) is not None


def commented_setting(line: str, prefixes: Sequence[str]) -> str | None:
    """The key of a commented-out setting (``#http_port = 17170`` -> ``http_port``), or
    None for a comment in words, a live line or a blank one."""
    stripped = line.lstrip()
    prefix = next((p for p in prefixes if stripped.startswith(p)), None)
    if prefix is None:
        return None
    match = _SETTING.match(stripped.lstrip(prefix[0]))
    return match.group("key") if match else None
