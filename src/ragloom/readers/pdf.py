"""The ``pdf`` reader: text page by page with pypdf, each page's lines tagged ``page``.

Encrypted (without an empty password), corrupt, zero-page and image-only PDFs (no text
layer on any page) are skipped with a reason. A page without text adds no lines. pypdf was
chosen over pdfminer.six by ``bench/readers.py`` (faster, same share of expected
sentences found; see docs/readers.md). What pypdf logs about a malformed file it repaired
("incorrect startxref pointer") becomes the file's reader warning, not stderr.
"""

from __future__ import annotations

import io
import logging
from dataclasses import replace
from typing import Any

from ragloom._optional import import_optional
from ragloom.readers.base import ReadText, SkipFile, TextSpan
from ragloom.readers.library_logs import collecting, summary


class PdfReader:
    """Extracts each page's text layer; see the module docstring."""

    def read(self, path: str, data: bytes) -> ReadText:
        with collecting("pypdf") as logged:  # pypdf's repairs of a malformed file: its warning
            read = self._read(path, data)
        warnings = [w for w in (read.warning, summary(logged)) if w]
        return replace(read, warning="; ".join(warnings) if warnings else None)

    def _read(self, path: str, data: bytes) -> ReadText:
        pypdf = import_optional("pypdf", "pdf", "reading PDF files")
        pages = _open_pages(pypdf, data)
        texts: list[str] = []
        spans: list[TextSpan] = []
        line = 1
        empty_pages = 0
        for number, page in enumerate(pages, start=1):
            try:
                page_text = _clean(page.extract_text() or "")
            except Exception as exc:  # one damaged page must not lose the others
                logging.getLogger("ragloom").warning("%s: page %d unreadable: %s", path, number, exc)
                page_text = ""
            if not page_text:
                empty_pages += 1
                continue
            lines = page_text.count("\n")
            spans.append(TextSpan(line, line + lines - 1, {"page": number}))
            texts.append(page_text)
            line += lines
        if not texts:
            raise SkipFile(f"no text layer on any of its {len(pages)} page(s) (an image-only or "
                           f"scanned PDF; OCR it first)")
        warning = f"{empty_pages} of {len(pages)} pages have no text layer" if empty_pages else None
        return ReadText("".join(texts), tuple(spans), warning=warning)


def _open_pages(pypdf: Any, data: bytes) -> list[Any]:
    try:
        document = pypdf.PdfReader(io.BytesIO(data))
        if document.is_encrypted:
            try:
                unlocked = document.decrypt("")
            except Exception as exc:  # e.g. AES without the cryptography package
                raise SkipFile(f"encrypted PDF that cannot be opened ({type(exc).__name__}: {exc})") from None
            if not unlocked:
                raise SkipFile("encrypted PDF (needs a password)")
        pages = list(document.pages)
    except SkipFile:
        raise
    except Exception as exc:
        raise SkipFile(f"not a readable PDF ({type(exc).__name__}: {exc})") from None
    if not pages:
        raise SkipFile("PDF has no pages")
    return pages


def _clean(text: str) -> str:
    """A page's text with NULs dropped, no trailing spaces, ending in exactly one newline
    (empty when the page has no text)."""
    lines = [line.rstrip() for line in text.replace("\x00", "").splitlines()]
    filled = [index for index, line in enumerate(lines) if line]
    if not filled:
        return ""
    return "\n".join(lines[filled[0]:filled[-1] + 1]) + "\n"  # not pop(0): quadratic
