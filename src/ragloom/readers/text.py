"""The ``text`` reader: UTF-8 (with or without BOM) text; binary and non-UTF-8 files are
skipped with a reason. Every file no other reader claims is read by it."""

from __future__ import annotations

from ragloom.readers.base import ReadText, SkipFile

BINARY_SNIFF_BYTES = 8192
#: More replacement characters than this share of the text means "not text".
MAX_REPLACEMENT_SHARE = 0.01


class TextReader:
    """Decodes UTF-8; a few invalid bytes become U+FFFD with a warning, more mean "not text"."""

    def read(self, path: str, data: bytes) -> ReadText:
        if b"\x00" in data[:BINARY_SNIFF_BYTES]:
            raise SkipFile("binary file (NUL bytes)")
        warning = None
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            text = data.decode("utf-8", errors="replace")
            replaced = text.count("\ufffd")
            if replaced > max(1, len(text) * MAX_REPLACEMENT_SHARE):
                raise SkipFile("not UTF-8 text") from None
            warning = f"invalid UTF-8 replaced by U+FFFD in {replaced} place(s)"
        if "\x00" in text:
            text = text.replace("\x00", "")
            warning = "NUL characters removed"
        return ReadText(text, warning=warning)
