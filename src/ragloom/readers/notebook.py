"""The ``ipynb`` reader: a Jupyter notebook's cells, each chunked by its own language's
chunker (code cells by the notebook's language, Python by default, with the AST chunker;
markdown cells by the markdown chunker), with ``cell`` (0-based, as Jupyter numbers them
in nbformat) and ``cell_type`` on every chunk. Outputs are ignored: they are results, often
large, and rarely what a question is about.
"""

from __future__ import annotations

import json
from typing import Any

from ragloom.readers.base import ReadText, SkipFile, TextSpan

_CELL_LANGUAGE = {"markdown": "markdown", "raw": "text"}


class NotebookReader:
    """See the module docstring."""

    def read(self, path: str, data: bytes) -> ReadText:
        notebook = _load(data)
        code_language = _code_language(notebook)
        texts: list[str] = []
        spans: list[TextSpan] = []
        line = 1
        for index, cell in enumerate(notebook.get("cells") or []):
            if not isinstance(cell, dict):
                continue
            source = cell.get("source", "")
            text = "".join(source) if isinstance(source, list) else str(source)
            if not text.strip():
                continue
            text = text.rstrip("\n") + "\n"
            cell_type = str(cell.get("cell_type", "raw"))
            lines = text.count("\n")
            spans.append(TextSpan(line, line + lines - 1, {"cell": index, "cell_type": cell_type},
                                  language=_CELL_LANGUAGE.get(cell_type, code_language)))
            texts.append(text + "\n")  # a blank line between cells
            line += lines + 1
        if not texts:
            raise SkipFile("notebook has no cells with text")
        return ReadText("".join(texts), tuple(spans))


def _load(data: bytes) -> dict[str, Any]:
    try:
        notebook = json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise SkipFile(f"not a Jupyter notebook (invalid JSON: {exc})") from None
    except RecursionError:  # the decoder recurses once per level
        raise SkipFile("not a Jupyter notebook (JSON nested too deep to read)") from None
    if not isinstance(notebook, dict) or "cells" not in notebook:
        version = notebook.get("nbformat") if isinstance(notebook, dict) else None
        raise SkipFile(f"not an nbformat 4 notebook (nbformat {version!r}, no 'cells')")
    return notebook


def _code_language(notebook: dict[str, Any]) -> str:
    metadata = notebook.get("metadata") or {}
    language = (metadata.get("language_info") or {}).get("name") or \
        (metadata.get("kernelspec") or {}).get("language") or "python"
    return str(language).lower()
