"""A small knowledge service: one collection per knowledge base in one index folder, each
under the same [rag.limits], texts added through the API, searches per collection, usage
against the limits, and the collections listed and dropped.

    python examples/service.py [FOLDER]

A write past a limit is refused whole (QuotaExceededError names the limit and figures)
and the collection stays as it was: the service answers the caller and carries on.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from ragloom import (
    QuotaExceededError,
    RAGConfig,
    RAGEngine,
    drop_collection,
    list_collections,
)

os.environ.setdefault("HF_HUB_OFFLINE", "1")

#: The same limits for every knowledge base (a tier).
LIMITS = {"max_files": 3, "max_chunks": 50, "max_bytes": 20_000}


class KnowledgeService:
    """The collections of one index folder. Collections in one folder share its writer
    lock, so each call opens its collection's engine and closes it (TurboQuant opens in
    milliseconds); with Postgres (a lock per collection) a service may keep one engine
    per collection open instead."""

    def __init__(self, folder: Path, provider: str) -> None:
        self.folder = folder
        self.provider = provider

    def config(self, collection: str) -> RAGConfig:
        return RAGConfig(embedding={"provider": self.provider}, limits=LIMITS,
                         vector_store={"provider": "turboquant", "collection_name": collection})

    def engine(self, collection: str, read_only: bool = False) -> RAGEngine:
        return RAGEngine(self.config(collection), self.folder, read_only=read_only)

    def add(self, collection: str, source_id: str, text: str) -> str:
        with self.engine(collection) as engine:
            try:
                report = engine.ingest_text(source_id, text)
            except QuotaExceededError as refused:  # nothing of it was written
                return (f"refused {source_id!r}: {refused.limit} {refused.current} + "
                        f"{refused.adding} > {refused.maximum}")
        return f"added {source_id!r} ({report.chunks_added} chunks)"

    def search(self, collection: str, query: str) -> list[str]:
        with self.engine(collection, read_only=True) as engine:
            return [str(result.metadata["source_id"]) for result in engine.search(query, top_k=2)]

    def usage(self, collection: str) -> dict[str, dict[str, int]]:
        with self.engine(collection, read_only=True) as engine:
            return engine.status(count_pending=False).limits

    def drop(self, collection: str) -> None:
        drop_collection(self.config(collection), self.folder, collection)


def main() -> None:
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp(prefix="ragloom-service-"))
    service = KnowledgeService(folder, os.environ.get("RAGLOOM_EXAMPLE_PROVIDER", "local"))
    documents = {
        "handbook": {"vacation": "Employees get 25 vacation days a year; carry over at most 5.",
                     "expenses": "Submit travel expenses within 30 days with receipts."},
        "tickets": {"t-1": "Login page times out after the password reset.",
                    "t-2": "Export to CSV drops the header row.",
                    "t-3": "Dark mode makes the chart labels unreadable.",
                    "t-4": "Search ignores accented characters."},
    }
    for collection, texts in documents.items():
        for source_id, text in texts.items():
            print(f"{collection}: {service.add(collection, source_id, text)}")
    print(f"handbook, 'how many vacation days': {service.search('handbook', 'how many vacation days')}")
    for collection in documents:
        usage = ", ".join(f"{key} {value['used']}/{value['limit']}"
                          for key, value in service.usage(collection).items())
        print(f"{collection} usage: {usage}")
    service.drop("tickets")
    for info in list_collections(service.config("handbook"), folder):
        print(f"collection {info.name}: {info.chunks} chunks, {info.files} files, {info.embedding_model}")


if __name__ == "__main__":
    main()
