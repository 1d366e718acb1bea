"""Which reader reads a file: a reader registered for its extension (``pdf``) or media type
(``application/pdf``), else the ``text`` reader.

Plugins add formats with ``ragloom.readers`` entry points whose name is the extension
without the dot (or a media type) and whose value is a factory ``(config) -> Reader``.
"""

from __future__ import annotations

import mimetypes
import threading
from collections.abc import Callable
from pathlib import PurePath

from ragloom._registry import Registry
from ragloom.config import RAGConfig
from ragloom.readers.base import Reader
from ragloom.readers.text import TextReader

ReaderFactory = Callable[[RAGConfig], Reader]

#: Extension (no dot, lower case) or media type -> reader factory; ``text`` is the fallback.
readers: Registry[ReaderFactory] = Registry("reader", "readers", "ragloom.readers")

FALLBACK = "text"


@readers.register(FALLBACK)
def _text_reader(config: RAGConfig) -> Reader:
    return TextReader()


@readers.register("pdf")
def _pdf_reader(config: RAGConfig) -> Reader:
    from ragloom.readers.pdf import PdfReader

    return PdfReader()


def _html_reader(config: RAGConfig) -> Reader:
    from ragloom.readers.html import HtmlReader

    return HtmlReader()


for _extension in ("html", "htm", "xhtml"):
    readers.register(_extension)(_html_reader)


@readers.register("ipynb")
def _notebook_reader(config: RAGConfig) -> Reader:
    from ragloom.readers.notebook import NotebookReader

    return NotebookReader()


def reader_name_for(path: str) -> str:
    """The registry name that reads ``path``: its extension, its media type, or ``text``."""
    extension = PurePath(path).suffix.lower().lstrip(".")
    if extension and extension in readers:
        return extension
    media_type, _ = mimetypes.guess_type(path, strict=False)
    if media_type and media_type in readers:
        return media_type
    return FALLBACK


class FileReaders:
    """The readers of one engine, built from its config once per registry name."""

    def __init__(self, config: RAGConfig) -> None:
        self._config = config
        self._built: dict[str, Reader] = {}
        self._lock = threading.Lock()  # files are read on several threads

    def for_path(self, path: str) -> Reader:
        name = reader_name_for(path)
        with self._lock:
            if name not in self._built:
                self._built[name] = readers.get(name)(self._config)
            return self._built[name]
