"""Would the dev-set ranking suffer if a class of chunks were kept out of the embedding
(BM25-only)? Each class is simulated on one index, so every column ranks the same chunks.

A chunk kept BM25-only is what progressive indexing serves before its vector lands
(``retrieval.searcher``): the dense retriever never returns it, BM25 still does, and when it
is loaded its cosine is 0 and the relevance gate judges it by its words (``unembedded``).
The simulation does exactly that to the chunks of a class on an index where they do have
vectors: dense rankings drop them (the next chunks move up; the dense retriever is asked for
``DENSE_SLACK`` times its pool), and after ``_fill_missing`` they carry cosine 0 and count as
unembedded. The saving is the class's share of the chunks (the model's time is near linear
in them: bench/app_index_time.py).

    HF_HUB_OFFLINE=1 nice -n 10 python bench/app_bm25_only.py --index-dir DIR \\
        [--apps solidtime babybuddy miniflux] [--classes test imports data config test+imports+data]

``DIR/<app>/ragloom`` is an index of the whole checkout with ragloom's defaults (what
bench/app_index_time.py and bench/app_search.py leave there); the checkouts are read from
``--apps-dir`` as bench/app_search.py does.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

import app_questions as graded  # noqa: E402
from app_search import print_table  # noqa: E402

from ragloom import RAGConfig, RAGEngine  # noqa: E402

#: The dense retriever is asked for this many times its pool, so that dropping a class
#: still leaves a full pool of other chunks.
DENSE_SLACK = 4
DATA_LANGUAGES = frozenset({"json", "yaml", "xml", "toml", "ini"})
Metadata = dict[str, object]

#: Class name -> whether a chunk (its metadata and text) belongs to it.
CLASSES: dict[str, Callable[[Metadata, str], bool]] = {
    "test": lambda m, t: m.get("source_type") == "test",
    "imports": lambda m, t: m.get("kind") == "imports",
    "import-only": lambda m, t: graded.is_import_only(t),
    "test-path": lambda m, t: graded.is_test_path(str(m.get("path"))),
    "data": lambda m, t: m.get("source_type") == "data",  # CSV, TSV, JSON lines
    "config": lambda m, t: m.get("source_type") == "config",
    "data-languages": lambda m, t: str(m.get("language")) in DATA_LANGUAGES,
    "docs": lambda m, t: m.get("source_type") == "docs",
    "text": lambda m, t: m.get("language") == "text",
}


def member(names: str) -> Callable[[Metadata, str], bool]:
    """``"test+imports"`` -> a chunk in any of the classes."""
    parts = [CLASSES[name] for name in names.split("+")]
    return lambda metadata, text: any(part(metadata, text) for part in parts)


class BM25Only:
    """While active, the engine's searcher treats the chunks ``ids`` as having no vector."""

    def __init__(self, engine: RAGEngine, ids: set[str]) -> None:
        self.searcher = engine._searcher
        self.ids = ids

    def __enter__(self) -> BM25Only:
        searcher, ids = self.searcher, self.ids
        dense, fill = searcher.dense_retriever.retrieve, searcher._fill_missing

        def retrieve(query, k):  # type: ignore[no-untyped-def]
            ranking = [(i, s) for i, s in dense(query, k * DENSE_SLACK) if i not in ids][:k]
            kept = dict(ranking)
            for doc_id in [d for d in query.loaded if d not in kept]:
                del query.loaded[doc_id]  # dropped or beyond the pool: BM25 alone may load it
            for rank, doc_id in enumerate(kept, start=1):
                hit = query.loaded[doc_id].retrievers["dense"]
                query.loaded[doc_id].retrievers["dense"] = type(hit)(rank, hit.score)
            return ranking

        def fill_missing(request, wanted):  # type: ignore[no-untyped-def]
            fill(request, wanted)
            for doc_id in ids.intersection(wanted):
                result = request.loaded.get(doc_id)
                if result is not None:
                    result.score, result.distance = 0.0, 1.0
                    request.unembedded.add(doc_id)

        searcher.dense_retriever.retrieve = retrieve
        searcher._fill_missing = fill_missing
        return self

    def __exit__(self, *_: object) -> None:
        del self.searcher.dense_retriever.retrieve
        del self.searcher._fill_missing


def run_app(name: str, apps_dir: Path, index_dir: Path, classes: list[str]) -> dict[str, dict]:
    app = graded.load_app_set(name)
    root = apps_dir / app.name
    problems = graded.check_spans(app, root)
    if problems:
        raise SystemExit(f"{app.name}: gold spans do not match {root}:\n  " + "\n  ".join(problems))
    index = index_dir / app.name / "ragloom"
    if not index.is_dir():
        raise SystemExit(f"{index}: no index (run bench/app_index_time.py or app_search.py first)")
    engine = RAGEngine(RAGConfig(index_dir=str(index)), root, read_only=True)
    ids = engine.store.ids()
    chunks = [c for at in range(0, len(ids), 2000) for c in engine.store.get(ids[at:at + 2000])]
    scores: dict[str, dict] = {}
    for column in ["defaults", *classes]:
        kept_out = set() if column == "defaults" else {
            c.id for c in chunks if member(column)(c.metadata, c.text)}
        label = column if column == "defaults" else f"{column} ({len(kept_out) / len(chunks):.0%})"
        rows = {}
        with BM25Only(engine, kept_out):
            for question in app.questions:
                results = [(str(r.metadata["path"]), int(r.metadata["start_line"]),
                            int(r.metadata["end_line"]), r.text) for r in engine.search(question.text, 10)]
                spans = [(p, a, b) for p, a, b, _ in results]
                top = results[:5]
                tests = 0 if question.about_tests else sum(graded.is_test_path(p) for p, *_ in top)
                imports = 0 if question.about_imports else sum(graded.is_import_only(t) for *_, t in top)
                rows[question.id] = (question.kind, graded.ndcg_at(spans, question.gold),
                                     graded.hit_at(spans, question.gold), tests, imports)
        scores[label] = rows
        print(f"{app.name} {label}: {len(kept_out)} of {len(chunks)} chunks BM25-only", flush=True)
    engine.close()
    print_table(app.name, scores, {})
    return scores


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--apps", nargs="*", default=graded.app_set_names())
    parser.add_argument("--apps-dir", type=Path,
                        default=Path(os.environ.get("RAGLOOM_APPSETS", "/work/appsets")))
    parser.add_argument("--index-dir", type=Path, required=True)
    parser.add_argument("--classes", nargs="*",
                        default=["test", "imports", "data", "config", "test+imports+data"])
    args = parser.parse_args()
    for classes in args.classes:
        for name in classes.split("+"):
            if name not in CLASSES:
                raise SystemExit(f"--classes: unknown class {name!r}; known: {', '.join(CLASSES)}")
    overall: dict[str, dict] = {}
    for name in args.apps:
        for column, rows in run_app(name, args.apps_dir, args.index_dir, args.classes).items():
            key = column.split(" (")[0]
            overall.setdefault(key, {}).update({f"{name}/{q}": r for q, r in rows.items()})
    if len(args.apps) > 1:
        print_table("all apps", overall, {})


if __name__ == "__main__":
    main()
