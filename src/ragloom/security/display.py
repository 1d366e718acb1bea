"""Credentials never printed: every URL, DSN, header or command line that reaches an error
message, a log line or status output goes through ``redact_for_display``.

Indexed text keeps a credential-looking value that is a stand-in (``postgres://user:pass@``)
because docs need it; a message about the user's own setting does not: there the password of
any URL and any ``password=``/``pwd=`` parameter is hidden whatever it looks like, then the
text is redacted like indexed text (tokens, ``Authorization`` values, flags).
"""

from __future__ import annotations

import logging
import re

from ragloom.security import redact_secrets

_URL_PASSWORD = re.compile(r"(?P<head>\b[A-Za-z][A-Za-z0-9+.-]{1,30}://[^\s:/?#@'\"<>]{0,256}:)"
                           r"[^\s/?#@'\"<>]{1,256}(?=@)")
_PARAMETER_PASSWORD = re.compile(r"(?i)(?P<head>\b(?:password|passwd|pwd|api[_-]?key|token|secret)=)"
                                 r"[^&;\s'\"]{1,256}")
HIDDEN = "[REDACTED:credentials]"


def redact_for_display(text: str) -> str:
    """``text`` fit to print: URL passwords and password parameters hidden, secrets redacted."""
    text = _URL_PASSWORD.sub(lambda match: match.group("head") + HIDDEN, text)
    text = _PARAMETER_PASSWORD.sub(lambda match: match.group("head") + HIDDEN, text)
    return redact_secrets(text).text


class RedactingFilter(logging.Filter):
    """A logging filter that passes every record's message through ``redact_for_display``
    (installed on the CLI's and the MCP server's log handlers)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        shown = redact_for_display(message)
        if shown != message:
            record.msg, record.args = shown, None
        return True
