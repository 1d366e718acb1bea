"""Structure-aware chunking of every language with a tree-sitter grammar wheel
(``ragloom[code]``): one generic chunker fed by each grammar's tags query and a row per
language (``languages.LANGUAGES``)."""

from typing import TYPE_CHECKING

from ragloom._lazy import lazy_exports

if TYPE_CHECKING:
    from ragloom.chunking.treesitter.chunker import TreeSitterChunker
    from ragloom.chunking.treesitter.languages import LANGUAGES, LanguageRow

_EXPORTS = {
    "LANGUAGES": "ragloom.chunking.treesitter.languages",
    "LanguageRow": "ragloom.chunking.treesitter.languages",
    "TreeSitterChunker": "ragloom.chunking.treesitter.chunker",
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())

__all__ = ["LANGUAGES", "LanguageRow", "TreeSitterChunker"]
