"""The BM25 index's segment list: its file name, its format version and the live
documents it records, readable without numpy (``ragloom status`` imports no numpy)."""

from __future__ import annotations

import json
from pathlib import Path

from ragloom.segments import SEGMENT_LIST

#: 4: array files with CRC-32s (an older index is rebuilt from the store).
FORMAT_VERSION = 4


def listed_documents(folder: Path) -> int | None:
    """Live documents of the BM25 index in ``folder`` as its segment list records them;
    None when there is no readable list of this format (the engine then says what to do
    with it, or rebuilds it from the store)."""
    try:
        header = json.loads((folder / SEGMENT_LIST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(header, dict) or header.get("version") != FORMAT_VERSION:
        return None
    documents = header.get("documents")
    return documents if isinstance(documents, int) and not isinstance(documents, bool) else None
