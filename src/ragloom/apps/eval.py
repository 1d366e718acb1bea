"""Retrieval quality on BEIR-format collections (corpus.jsonl, queries.jsonl, qrels.tsv).

Metrics at k (default 10) with graded relevance: nDCG (gain 2^rel - 1, log2 discount),
Recall (share of the query's relevant documents retrieved) and MRR. Documents are added
through ``add_documents`` under their ids (chunked as plain text); queries run through the
engine's searcher, and a document ranks where its best chunk does.
"""

from __future__ import annotations

import csv
import json
import math
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragloom.config import RAGConfig
from ragloom.types import Metadata, SearchResult

if TYPE_CHECKING:
    from ragloom.engine import RAGEngine

MODES = ("dense", "sparse", "hybrid", "hybrid+mmr")


@dataclass(frozen=True)
class Dataset:
    """A BEIR collection: documents, queries and graded judgements."""

    name: str
    corpus: dict[str, str]
    queries: dict[str, str]
    qrels: dict[str, dict[str, int]]


@dataclass(frozen=True)
class ModeScores:
    """Mean metrics of one retrieval mode over all judged queries."""

    mode: str
    ndcg: float
    recall: float
    mrr: float
    queries: int
    milliseconds_per_query: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def load_beir(folder: str | Path) -> Dataset:
    """Read a BEIR folder; title and text are joined with a newline."""
    root = Path(folder)
    for name in ("corpus.jsonl", "queries.jsonl", "qrels.tsv"):
        if not (root / name).is_file():
            raise FileNotFoundError(f"{root}: missing {name} (expected a BEIR-format folder)")
    corpus: dict[str, str] = {}
    for record in _jsonl(root / "corpus.jsonl"):
        corpus[str(record["_id"])] = "\n".join(
            part for part in (record.get("title") or "", record.get("text") or "") if part)
    qrels: dict[str, dict[str, int]] = {}
    with (root / "qrels.tsv").open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            score = int(row["score"])
            if score > 0:
                qrels.setdefault(str(row["query-id"]), {})[str(row["corpus-id"])] = score
    queries = {str(r["_id"]): str(r["text"]) for r in _jsonl(root / "queries.jsonl")
               if str(r["_id"]) in qrels}
    return Dataset(root.name, corpus, queries, qrels)


def _jsonl(path: Path) -> Iterable[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                yield json.loads(line)


def ndcg_at_k(ranked: Sequence[str], judgements: dict[str, int], k: int = 10) -> float:
    dcg = sum((2 ** judgements.get(doc, 0) - 1) / math.log2(i + 2) for i, doc in enumerate(ranked[:k]))
    ideal = sorted(judgements.values(), reverse=True)[:k]
    idcg = sum((2 ** rel - 1) / math.log2(i + 2) for i, rel in enumerate(ideal))
    return dcg / idcg if idcg > 0 else 0.0


def recall_at_k(ranked: Sequence[str], judgements: dict[str, int], k: int = 10) -> float:
    relevant = {doc for doc, rel in judgements.items() if rel > 0}
    return len(relevant.intersection(ranked[:k])) / len(relevant) if relevant else 0.0


def mrr_at_k(ranked: Sequence[str], judgements: dict[str, int], k: int = 10) -> float:
    for rank, doc in enumerate(ranked[:k], start=1):
        if judgements.get(doc, 0) > 0:
            return 1.0 / rank
    return 0.0


def index_dataset(engine: RAGEngine, dataset: Dataset, batch: int = 4096) -> None:
    """Add every document under its id (documents already added unchanged are skipped
    by ``add_documents`` itself)."""
    documents = list(dataset.corpus.items())
    for start in range(0, len(documents), batch):
        part = documents[start:start + batch]
        engine.add_documents([d for d, _ in part], [t for _, t in part])


def evaluate(engine: RAGEngine, dataset: Dataset, modes: Sequence[str] = MODES,
             k: int = 10) -> list[ModeScores]:
    """Mean nDCG/Recall/MRR at ``k`` per mode over the dataset's judged queries."""
    from statistics import fmean  # imported here: the CLI imports this module for MODES

    runners: dict[str, Callable[[str], list[str]]] = {
        "dense": lambda q: ranked_documents(engine, engine.search(q, k, mode="dense", mmr=False)),
        "sparse": lambda q: ranked_documents(engine, engine.search(q, k, mode="sparse", mmr=False)),
        "hybrid": lambda q: ranked_documents(engine, engine.search(q, k, mode="hybrid", mmr=False)),
        "hybrid+mmr": lambda q: ranked_documents(engine, engine.search(q, k, mode="hybrid", mmr=True)),
    }
    unknown = [m for m in modes if m not in runners]
    if unknown:
        raise ValueError(f"unknown eval mode(s) {unknown}; valid: {', '.join(MODES)}")
    scores = []
    for mode in modes:
        ndcg, recall, mrr = [], [], []
        started = time.perf_counter()
        for query_id, text in dataset.queries.items():
            ranked = runners[mode](text)
            judgements = dataset.qrels[query_id]
            ndcg.append(ndcg_at_k(ranked, judgements, k))
            recall.append(recall_at_k(ranked, judgements, k))
            mrr.append(mrr_at_k(ranked, judgements, k))
        elapsed = (time.perf_counter() - started) * 1000 / max(len(dataset.queries), 1)
        scores.append(ModeScores(mode, fmean(ndcg), fmean(recall), fmean(mrr),
                                 len(dataset.queries), elapsed))
    return scores


def ranked_documents(engine: RAGEngine, results: Sequence[SearchResult]) -> list[str]:
    """Document ids in rank order, each once: a chunk of an added text stands for its
    document (source id), a chunk of a file for itself (its chunk id), and a result holding
    merged parts (``merged_ids``) or standing for copies of its text for theirs too, right
    after it: the reader gets their text at that rank."""
    ranked: dict[str, None] = {}
    for result in results:
        ranked.setdefault(document_id(result.id, result.metadata), None)
        held = [i for key in ("merged_ids", "duplicate_ids")
                for i in str(result.metadata.get(key) or "").split(",") if i and i != result.id]
        if held:
            for chunk in engine.store.get(held):
                ranked.setdefault(document_id(chunk.id, chunk.metadata), None)
    return list(ranked)


def document_id(chunk_id: str, metadata: Metadata) -> str:
    """The id a dev set judges: the source id of an added text, else the chunk's own id."""
    return str(metadata.get("source_id", chunk_id))


def run_eval(config: RAGConfig, dataset_dir: str | Path, modes: Sequence[str] = MODES,
             k: int = 10, work_dir: str | Path | None = None) -> list[ModeScores]:
    """Index a BEIR folder with ``config`` (in ``work_dir``, a temp folder by default) and
    score each mode. Reusing a work_dir reuses its index and embedding cache."""
    from ragloom.engine import RAGEngine

    dataset = load_beir(dataset_dir)
    with tempfile.TemporaryDirectory(prefix="ragloom-eval-") as scratch:
        base = Path(work_dir) if work_dir is not None else Path(scratch)
        base.mkdir(parents=True, exist_ok=True)
        with RAGEngine(config, base) as engine:
            index_dataset(engine, dataset)
            return evaluate(engine, dataset, modes, k)


def format_scores(scores: Sequence[ModeScores], k: int = 10) -> str:
    lines = [f"{'mode':<12}{f'nDCG@{k}':>10}{f'Recall@{k}':>11}{f'MRR@{k}':>9}{'ms/query':>10}"]
    for s in scores:
        lines.append(f"{s.mode:<12}{s.ndcg:>10.4f}{s.recall:>11.4f}{s.mrr:>9.4f}"
                     f"{s.milliseconds_per_query:>10.1f}")
    return "\n".join(lines)
