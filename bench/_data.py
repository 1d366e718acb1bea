"""Loading the public test collections the benchmarks use."""

from __future__ import annotations

import json
import sysconfig
from pathlib import Path

from ragloom.chunking.character import CharacterChunker

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


def stdlib_pieces(limit: int, size: int = 300) -> list[str]:
    """The first ``limit`` non-blank ``size``-character pieces of the standard library."""
    chunker = CharacterChunker(size, 0)
    pieces: list[str] = []
    for path in sorted(Path(sysconfig.get_paths()["stdlib"]).rglob("*.py")):
        if "site-packages" in path.parts:
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        pieces.extend(chunk.text for chunk in chunker.chunk(text, "_"))
        if len(pieces) >= limit:
            break
    return pieces[:limit]
