"""LlamaIndex's SentenceSplitter / CodeSplitter over an application's files, embedded with
the same model as ragloom and searched by dense cosine (bench/app_search.py).

A bench-only tool: needs ``pip install llama-index-core`` and the tree-sitter grammar wheels
(``tree-sitter-php``, ``-javascript``, ``-typescript``, ``-go``, ``-python``, ``-rust``); not a
ragloom dependency. Vectors are cached by text in a small SQLite file.
"""

from __future__ import annotations

import hashlib
import importlib
import sqlite3
import time
from pathlib import Path

import numpy as np
from app_questions import is_import_only, is_test_path

#: File suffix -> (CodeSplitter language name, grammar module, function giving the grammar).
GRAMMARS = {
    ".php": ("php", "tree_sitter_php", "language_php"),
    ".js": ("javascript", "tree_sitter_javascript", "language"),
    ".mjs": ("javascript", "tree_sitter_javascript", "language"),
    ".cjs": ("javascript", "tree_sitter_javascript", "language"),
    ".jsx": ("javascript", "tree_sitter_javascript", "language"),
    ".ts": ("typescript", "tree_sitter_typescript", "language_typescript"),
    ".tsx": ("tsx", "tree_sitter_typescript", "language_tsx"),
    ".go": ("go", "tree_sitter_go", "language"),
    ".py": ("python", "tree_sitter_python", "language"),
    ".rs": ("rust", "tree_sitter_rust", "language"),
}


class VectorCache:
    """Vectors by the SHA-256 of the embedded text (one table, float32 blobs)."""

    def __init__(self, file: Path) -> None:
        file.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(file)
        self.db.execute("CREATE TABLE IF NOT EXISTS v (key TEXT PRIMARY KEY, vec BLOB)")

    def embed(self, provider, texts: list[str], batch: int = 256) -> tuple[np.ndarray, int]:  # type: ignore[no-untyped-def]
        """The texts' vectors and how many had to be embedded (a text another system
        already embedded, e.g. a Markdown file both splitters cut alike, is not embedded
        again: the scores are the same, only that system's index time is then partial)."""
        keys = [hashlib.sha256(t.encode("utf-8", "replace")).hexdigest() for t in texts]
        found = {}
        for start in range(0, len(keys), 500):
            part = keys[start:start + 500]
            rows = self.db.execute(f"SELECT key, vec FROM v WHERE key IN ({','.join('?' * len(part))})",
                                   part).fetchall()
            found.update({k: np.frombuffer(b, dtype=np.float32) for k, b in rows})
        missing = [i for i, k in enumerate(keys) if k not in found]
        for start in range(0, len(missing), batch):
            chunk = missing[start:start + batch]
            vectors = np.asarray(provider.embed_documents([texts[i] for i in chunk]), dtype=np.float32)
            for i, vector in zip(chunk, vectors):
                found[keys[i]] = vector
            self.db.executemany("INSERT OR REPLACE INTO v VALUES (?, ?)",
                                [(keys[i], v.tobytes()) for i, v in zip(chunk, vectors)])
            self.db.commit()
        return np.vstack([found[k] for k in keys]), len(missing)


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def split_files(kind: str, root: Path, paths: list[str]) -> tuple[list[tuple[str, int, int, str]],
                                                                   list[str], int]:
    """LlamaIndex's ``kind`` splitter ("sentence" or "code") over the files: (nodes as
    (path, first line, last line, text), the texts LlamaIndex embeds of them, how many
    files CodeSplitter failed on and SentenceSplitter cut instead)."""
    from llama_index.core import Document
    from llama_index.core.node_parser import CodeSplitter, SentenceSplitter
    from llama_index.core.schema import MetadataMode

    sentence = SentenceSplitter()
    code: dict[str, object] = {}
    fallbacks = 0
    found: list[tuple[str, int, int, str]] = []
    embed_texts: list[str] = []
    for path in paths:
        try:
            text = (root / path).read_text(encoding="utf-8", errors="ignore")
        except OSError:
            continue
        if not text.strip():
            continue
        document = Document(text=text, metadata={"file_path": path})
        splitter = sentence
        grammar = GRAMMARS.get(Path(path).suffix) if kind == "code" else None
        if grammar is not None:
            if grammar[0] not in code:
                from tree_sitter import Language, Parser

                module = importlib.import_module(grammar[1])
                code[grammar[0]] = CodeSplitter(
                    language=grammar[0], parser=Parser(Language(getattr(module, grammar[2])())))
            splitter = code[grammar[0]]  # type: ignore[assignment]
        try:
            nodes = splitter.get_nodes_from_documents([document])  # type: ignore[attr-defined]
        except (ValueError, RecursionError):
            fallbacks += 1
            nodes = sentence.get_nodes_from_documents([document])
        cursor = 0
        for node in nodes:
            body = node.get_content()
            if not body.strip():
                continue
            start = node.start_char_idx
            if start is None:
                start = text.find(body, cursor)
                start = text.find(body) if start < 0 else start
            start = max(start, 0)
            cursor = start + len(body)
            found.append((path, _line_of(text, start), _line_of(text, start + len(body) - 1), body))
            embed_texts.append(node.get_content(metadata_mode=MetadataMode.EMBED))
    return found, embed_texts, fallbacks


class LlamaSystem:
    """One LlamaIndex splitter over the files; ``search`` is dense top 10."""

    def __init__(self, kind: str, root: Path, paths: list[str], provider, cache_file: Path) -> None:  # type: ignore[no-untyped-def]
        self.provider = provider
        started = time.perf_counter()
        self.nodes, embed_texts, fallbacks = split_files(kind, root, paths)
        split_seconds = time.perf_counter() - started
        self.matrix, self.embedded = VectorCache(cache_file).embed(provider, embed_texts)
        total = time.perf_counter() - started
        self.seconds, self.split_seconds = total, split_seconds
        self.partly_cached = self.embedded < len(embed_texts)
        self.test_chunks = sum(is_test_path(p) for p, *_ in self.nodes)
        self.import_chunks = sum(is_import_only(n[3]) for n in self.nodes)
        self.notes = (f", split {split_seconds:.0f} s, embedded {self.embedded} now"
                      + (f", {fallbacks} files CodeSplitter failed on" if kind == "code" else ""))

    def search(self, question: str) -> list[tuple[str, int, int, str]]:
        query = np.asarray(self.provider.embed_query(question), dtype=np.float32)
        scores = self.matrix @ query
        best = np.argsort(-scores, kind="stable")[:10]
        return [self.nodes[i] for i in best]
