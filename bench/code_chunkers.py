"""Chunkers compared on the non-Python code-search sets (bench/code_sets.py): nDCG@10,
Recall@10, MRR@10.

Only the chunks differ: every run indexes the same stripped sources with a default
``RAGEngine`` (local all-MiniLM-L6-v2, default store, default hybrid retrieval, the
``path: symbol`` header as the chunk's metadata gives it) and answers the same queries.
The chunker for the set's language is swapped in the chunker registry:

- ``line``: ragloom's line chunker (the fallback for a language without a chunker of its
  own), default token sizing;
- ``structure``: ragloom's structure-aware chunker for the language, if this ragloom has
  one (``n/a`` otherwise);
- ``codesplitter``: LlamaIndex's ``CodeSplitter`` with its defaults (40 lines, 15 lines
  overlap, 1,500 characters), its tree-sitter parser built from the same grammar wheel;
  chunks are located in the file to give their line range. A file it cannot parse is cut
  by the line chunker (counted in ``fallbacks``). Needs ``pip install llama-index-core``
  (a bench-only tool, not a ragloom dependency).

A chunk is relevant to a query when its line range overlaps the documented definition's
lines (bench/code_sets.py). Recall@10 is the share of a query's relevant chunks in the
top 10; MRR@10 the reciprocal rank of the first. Indexes live in ``--work-dir`` (their
embedding caches are kept between runs, everything else is rebuilt).

    python bench/code_chunkers.py [--languages javascript typescript go php rust]
                                  [--chunkers line structure codesplitter]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from code_search import as_dataset  # noqa: E402
from code_sets import CACHE, LANGUAGES, code_sets  # noqa: E402

from ragloom import RAGConfig, RAGEngine  # noqa: E402
from ragloom.apps.eval import mrr_at_k, ndcg_at_k, recall_at_k  # noqa: E402
from ragloom.chunking.base import LineIndex, assemble_chunks, piece_from_span  # noqa: E402
from ragloom.chunking.registry import character_chunker, chunkers, language_for_path  # noqa: E402
from ragloom.errors import ConfigError  # noqa: E402
from ragloom.ownership import INDEX_MARKER  # noqa: E402
from ragloom.types import Chunk  # noqa: E402

CHUNKERS = ("line", "structure", "codesplitter")


class CodeSplitterChunker:
    """LlamaIndex's CodeSplitter (its defaults) behind ragloom's Chunker protocol."""

    def __init__(self, language: str, fallback) -> None:  # type: ignore[no-untyped-def]
        from llama_index.core.node_parser import CodeSplitter
        from tree_sitter import Language, Parser

        grammar = Language(LANGUAGES[language].grammar())
        self._splitter = CodeSplitter(language=language, parser=Parser(grammar))
        self._fallback = fallback
        self.fallbacks = 0
        self.lost = 0

    def chunk(self, text: str, path: str) -> list[Chunk]:
        try:
            parts = self._splitter.split_text(text)
        except ValueError:
            self.fallbacks += 1
            return self._fallback.chunk(text, path)
        lines = LineIndex(text)
        pieces = []
        cursor = 0
        for part in parts:
            if not part.strip():
                continue
            start = text.find(part, cursor)
            if start < 0:
                start = text.find(part)
            if start < 0:
                self.lost += 1
                continue
            cursor = start + len(part)
            pieces.append(piece_from_span(text, lines, start, start + len(part)))
        return assemble_chunks(path, pieces, base={"chunker": "codesplitter"})


def _registered(language: str):  # type: ignore[no-untyped-def]
    try:
        return chunkers.get(language)
    except ConfigError:
        return None


def run(language: str, chunker: str, folder: Path, code_set, work: Path,  # type: ignore[no-untyped-def]
        original) -> str:
    """Index the set with one chunker and score it: the table row."""
    key = language_for_path(next(p for p in folder.rglob("*") if p.is_file()).name)
    splitter: list[CodeSplitterChunker] = []
    if chunker == "structure" and original is None:
        return f"{language:<12}{chunker:<14}{'n/a (no structure-aware chunker for ' + key + ')':>40}"
    if chunker == "line":
        chunkers.register(key)(lambda config, sizing: None)
    elif chunker == "codesplitter":
        def factory(config, sizing):  # type: ignore[no-untyped-def]
            splitter.append(CodeSplitterChunker(language, character_chunker(config, sizing)))
            return splitter[-1]

        chunkers.register(key)(factory)
    index_dir = work / language / chunker
    if index_dir.is_dir():  # rebuilt every run; the embedding cache is kept
        for entry in index_dir.iterdir():
            if entry.name not in ("embeddings.sqlite", INDEX_MARKER):
                shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
    try:
        engine = RAGEngine(RAGConfig(index_dir=str(index_dir)), folder)
    finally:
        # the language's own chunker again (a factory of None: the character chunker)
        chunkers.register(key)(original or (lambda config, sizing: None))
    with engine:
        engine.index_directory()
        dataset = as_dataset(engine, code_set)
        ndcg, recall, mrr = _scores(engine, dataset)
        chunk_count = engine.count()
    notes = ""
    if splitter:
        notes = f"  fallbacks {splitter[0].fallbacks}, unplaced {splitter[0].lost}"
    return (f"{language:<12}{chunker:<14}{chunk_count:>8}{len(dataset.queries):>9}{ndcg:>9.4f}"
            f"{recall:>11.4f}{mrr:>9.4f}{notes}")


def _scores(engine, dataset) -> tuple[float, float, float]:  # type: ignore[no-untyped-def]
    """Mean nDCG/Recall/MRR@10 of default hybrid search, ranking chunk ids (the judgements
    are chunks): a result merged from several parts, or standing for copies of its text,
    stands for each of them, in order."""
    totals = [0.0, 0.0, 0.0]
    for query_id, text in dataset.queries.items():
        ranked: list[str] = []
        for result in engine.search(text, 10, mode="hybrid", mmr=False):
            ranked.extend(str(result.metadata.get("merged_ids") or result.id).split(","))
            copies = result.metadata.get("duplicate_ids")
            if copies:
                ranked.extend(str(copies).split(","))
        judged = dataset.qrels[query_id]
        for i, score in enumerate((ndcg_at_k(ranked, judged), recall_at_k(ranked, judged),
                                   mrr_at_k(ranked, judged))):
            totals[i] += score
    count = max(len(dataset.queries), 1)
    return totals[0] / count, totals[1] / count, totals[2] / count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--languages", nargs="*", default=list(LANGUAGES))
    parser.add_argument("--chunkers", nargs="*", default=list(CHUNKERS), choices=CHUNKERS)
    parser.add_argument("--cache", default=str(CACHE))
    parser.add_argument("--work-dir", default="/tmp/ragloom-code-chunkers")
    parser.add_argument("--max-queries", type=int, default=300)
    args = parser.parse_args()
    print(f"{'set':<12}{'chunker':<14}{'chunks':>8}{'queries':>9}{'nDCG@10':>9}{'Recall@10':>11}"
          f"{'MRR@10':>9}", flush=True)
    for code_set, folder in code_sets(Path(args.cache), args.languages, args.max_queries):
        key = language_for_path(next(p for p in folder.rglob("*") if p.is_file()).name)
        original = _registered(key)
        for chunker in args.chunkers:
            print(run(code_set.name, chunker, folder, code_set, Path(args.work_dir), original),
                  flush=True)


if __name__ == "__main__":
    main()
