"""The ``html`` reader: the visible text of a page as markdown, so headings become
sections (``heading``, ``heading_path``) exactly as in a ``.md`` file.

Dropped: scripts, styles, templates, forms, the document head, hidden elements, and page
chrome where it is marked (``nav``, ``aside``, page-level ``header``/``footer``, ARIA roles
``navigation``, ``banner``, ``contentinfo``, ``search``, or a class/id word such as
``nav``, ``sidebar``, ``breadcrumbs``; ``header``/``footer`` only outside ``article``
and ``main``). Kept: headings as ``#`` lines,
paragraphs, list items as ``- ``, table rows as ``a | b``, ``pre`` blocks fenced. Uses the
standard library's ``html.parser``: no dependency.

An application's template (a ``.html`` file in a ``templates`` folder, or with Django/Jinja
tags at line starts: ``chunking.markup.template_language``) is not a page: it is returned
as it is, in language ``django-template``, for the template chunker.
"""

from __future__ import annotations

import re
from collections import Counter
from html.parser import HTMLParser

from ragloom.chunking.markup.syntax import template_language
from ragloom.readers.base import ReadText, SkipFile

_DROPPED = frozenset({"script", "style", "noscript", "template", "svg", "math", "head", "form",
                      "button", "select", "textarea", "iframe", "canvas", "nav", "aside"})
_CHROME_ROLES = frozenset({"navigation", "banner", "contentinfo", "search", "menu", "menubar"})
#: Words in a class or id that mark page chrome ("nav-panel", "sidebar", "breadcrumbs").
_CHROME_WORDS = frozenset({"nav", "navbar", "navigation", "breadcrumb", "breadcrumbs", "sidebar",
                           "menu", "skiplink"})
_BLOCKS = frozenset({"p", "div", "section", "article", "main", "ul", "ol", "dl", "dt", "dd",
                     "table", "thead", "tbody", "blockquote", "figure", "figcaption", "br", "hr",
                     "address", "details", "summary", "center"})
_VOID = frozenset({"br", "hr", "img", "input", "meta", "link", "area", "base", "col", "embed",
                   "source", "track", "wbr", "param"})
_HEADINGS = {f"h{level}": level for level in range(1, 7)}
_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?([A-Za-z0-9_.:-]+)""", re.IGNORECASE)


class HtmlReader:
    """See the module docstring."""

    def read(self, path: str, data: bytes) -> ReadText:
        text, warning = _decode(data)
        language = template_language(path, text)
        if language is not None:  # an application's template is code: its own lines, whole
            return ReadText(text, language=language, warning=warning)
        extractor = _VisibleText()
        extractor.feed(_escape_unclosable(text))
        extractor.close()
        markdown = extractor.markdown()
        if not markdown.strip():
            raise SkipFile("no visible text in the HTML")
        return ReadText(markdown, language="markdown", warning=warning)


def _escape_unclosable(text: str) -> str:
    """``text`` with each ``<`` after the last ``>`` written ``&lt;``: no tag, comment or
    declaration can close there, and the standard library's parser rescans the rest of
    the page for every such ``<`` (``"<a" * 80_000``, 160 KB, took 73 s). The parser
    would show them as text anyway, and shows ``&lt;`` as ``<``."""
    last = text.rfind(">")
    return text[:last + 1] + text[last + 1:].replace("<", "&lt;")


def _decode(data: bytes) -> tuple[str, str | None]:
    """UTF-8, else the charset a ``<meta>`` declares, else Windows-1252 (what browsers do)."""
    try:
        return data.decode("utf-8-sig"), None
    except UnicodeDecodeError:
        pass
    declared = _CHARSET.search(data[:4096])
    if declared:
        try:
            return data.decode(declared.group(1).decode("ascii"), errors="replace"), None
        except LookupError:
            pass
    return data.decode("cp1252", errors="replace"), "not UTF-8 and no usable charset; read as Windows-1252"


class _VisibleText(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self._blocks: list[str] = []  # finished markdown blocks
        self._line: list[str] = []  # inline text of the current block
        self._prefix = ""  # "## " for a heading, "- " for a list item
        self._dropped_depth = 0  # >0 inside a dropped element
        self._stack: list[tuple[str, bool]] = []  # (tag, dropped) of open elements
        # How many of each tag are open: an end tag looks up its start in O(1), not by
        # scanning the stack (100k nested tags took ~10 minutes scanning).
        self._open = Counter[str]()
        self._pre_depth = 0
        self._row: list[str] | None = None
        self._title: list[str] = []
        self._in_title = False
        self._has_h1 = False

    # -- parser callbacks ----------------------------------------------------------------

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title":
            self._in_title = True
        if tag in _VOID:
            if tag in ("br", "hr") and not self._dropped_depth:
                self._end_block()
            return
        dropped = self._is_dropped(tag, dict(attrs))
        self._stack.append((tag, dropped))
        self._open[tag] += 1
        if dropped:
            self._dropped_depth += 1
            return
        if self._dropped_depth:
            return
        if tag in _HEADINGS:
            self._end_block()
            self._prefix = "#" * _HEADINGS[tag] + " "
            self._has_h1 = self._has_h1 or tag == "h1"
        elif tag == "li":
            self._end_block()
            self._prefix = "- "
        elif tag == "pre":
            self._end_block()
            self._pre_depth += 1
        elif tag == "tr":
            self._end_block()
            self._row = []
        elif tag in ("td", "th"):
            self._flush_cell()
        elif tag in _BLOCKS:
            self._end_block()

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        if tag in _VOID or not self._open[tag]:
            return
        while self._stack:  # close elements the page left open inside this one
            open_tag, dropped = self._stack.pop()
            self._open[open_tag] -= 1
            if dropped:
                self._dropped_depth -= 1
            elif not self._dropped_depth:
                self._close(open_tag)
            if open_tag == tag:
                break

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self._title.append(data)
            return
        if self._dropped_depth:
            return
        if self._pre_depth:
            self._line.append(data)
        else:
            self._line.append(re.sub(r"\s+", " ", data))

    # -- building the markdown -----------------------------------------------------------

    def _is_dropped(self, tag: str, attrs: dict[str, str | None]) -> bool:
        if tag in _DROPPED or "hidden" in attrs or attrs.get("aria-hidden") == "true":
            return True
        if (attrs.get("role") or "").lower() in _CHROME_ROLES:
            return True
        names = f"{attrs.get('class') or ''} {attrs.get('id') or ''}".lower()
        words = set(re.split(r"[^a-z0-9]+", names))
        if _CHROME_WORDS & words:
            return True
        inside_content = self._open["article"] > 0 or self._open["main"] > 0
        chrome = tag in ("header", "footer") or bool(words & {"header", "footer"})
        return chrome and not inside_content

    def _close(self, tag: str) -> None:
        if tag == "pre":
            body = "".join(self._line).strip("\n")
            self._line = []
            self._pre_depth -= 1
            if body.strip():
                fence = "````" if "```" in body else "```"
                self._blocks.append(f"{fence}\n{body}\n{fence}")
        elif tag in ("td", "th"):
            self._flush_cell()
        elif tag == "tr":
            self._flush_cell()
            cells = [cell for cell in (self._row or []) if cell]
            self._row = None
            if cells:
                self._blocks.append(" | ".join(cells))
        elif tag in _HEADINGS or tag == "li" or tag in _BLOCKS:
            self._end_block()

    def _flush_cell(self) -> None:
        if self._row is None:
            return
        cell = " ".join("".join(self._line).split())
        self._line = []
        self._row.append(cell)

    def _end_block(self) -> None:
        if self._pre_depth or self._row is not None:
            return
        text = " ".join("".join(self._line).split())
        self._line = []
        prefix, self._prefix = self._prefix, ""
        if text:
            self._blocks.append(prefix + text)

    def markdown(self) -> str:
        self._end_block()
        blocks = self._blocks
        title = " ".join("".join(self._title).split())
        if title and not self._has_h1:
            blocks = [f"# {title}", *blocks]
        return "\n\n".join(blocks) + "\n" if blocks else ""
