"""Loading the public test collections the benchmarks use."""

from __future__ import annotations

import json
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CRANFIELD = REPO.parent / "shared" / "data" / "cranfield"


def cranfield_texts(folder: Path = CRANFIELD) -> list[tuple[str, str]]:
    """(doc id, title + text) for every Cranfield document, in file order."""
    documents = []
    with (folder / "corpus.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            text = "\n".join(part for part in (record.get("title", ""), record.get("text", "")) if part)
            documents.append((str(record["_id"]), text))
    return documents
