"""Structure-aware chunking of every language with a tree-sitter grammar wheel
(``ragloom[code]``): one generic chunker fed by each grammar's tags query and a row per
language (``languages.LANGUAGES``)."""

from ragloom.chunking.treesitter.chunker import TreeSitterChunker
from ragloom.chunking.treesitter.languages import LANGUAGES, LanguageRow

__all__ = ["LANGUAGES", "LanguageRow", "TreeSitterChunker"]
