"""Exact-name retrieval: a query that names an identifier defined in the corpus finds the
chunk that defines it, whatever dense and BM25 think.

Names come from chunk metadata (``symbol``, and ``symbols`` for chunks holding several
small definitions): ``Parser.parse`` is found as ``Parser.parse`` and as ``parse``. Every
language's notation works: separators ``::``, ``\\``, ``#`` and ``->`` count as ``.``, and a
name is found by any tail of it (``App\\Http\\UserController::index`` as
``UserController::index``, ``UserController.index`` and ``index``). Only a definition's
first part counts. A query word counts as a name when it looks like code
(``snake_case``, ``camelCase``, ``dotted.name``, ``call()``) or is the whole query; a
name defined in more than ``MAX_DEFINITIONS`` places identifies nothing and is ignored.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ragloom.types import Metadata

MAX_DEFINITIONS = 3
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:(?:\.|::|\\|#|->)[A-Za-z_][A-Za-z0-9_]*)*(?:\(\))?")
_CODE_LIKE = re.compile(r"_|[a-z][A-Z]|\.|\(\)|::|\\|#|->")
_SEPARATOR = re.compile(r"::|\\|#|->")


def canonical(name: str) -> str:
    """A qualified name with every language's separators written as ``.``."""
    return _SEPARATOR.sub(".", name)


def defined_names(metadata: Metadata) -> list[str]:
    """Names a chunk defines, each whole and by every tail, separators as ``.`` (none for
    continuation parts)."""
    if int(metadata.get("part", 0) or 0) > 0:
        return []
    listed = str(metadata.get("symbols") or metadata.get("symbol") or "")
    names: list[str] = []
    for symbol in filter(None, (s.strip() for s in listed.split(","))):
        parts = canonical(symbol).split(".")
        for start in range(len(parts)):
            name = ".".join(parts[start:])
            if name and name not in names:
                names.append(name)
    return names


def query_names(query: str) -> list[str]:
    """Words of ``query`` that name code, most specific first (``a.b`` before ``b``)."""
    words = [match.group(0) for match in _WORD.finditer(query)]
    whole = query.strip()
    names: list[str] = []
    for word in words:
        bare = word.removesuffix("()")
        if not (_CODE_LIKE.search(word) or bare == whole):
            continue
        bare = canonical(bare)
        for name in (bare, bare.rsplit(".", 1)[-1]):
            if name not in names:
                names.append(name)
    return names


class SymbolTable:
    """Name -> ids of the chunks defining it, built from (id, metadata) pairs."""

    def __init__(self, entries: Iterable[tuple[str, Metadata]] = ()) -> None:
        self._defined_in: dict[str, list[str]] = {}
        for chunk_id, metadata in entries:
            for name in defined_names(metadata):
                places = self._defined_in.setdefault(name, [])
                if chunk_id not in places:
                    places.append(chunk_id)

    def __len__(self) -> int:
        return len(self._defined_in)

    def lookup(self, query: str) -> list[str]:
        """Ids of chunks defining a name the query uses, in query order; names defined in
        more than MAX_DEFINITIONS places are skipped."""
        found: list[str] = []
        for name in query_names(query):
            places = self._defined_in.get(name, [])
            if len(places) > MAX_DEFINITIONS:
                continue
            found.extend(place for place in places if place not in found)
        return found
