"""What ``ragloom status`` prints: the index snapshot, the bytes per part (in total and per
chunk) and the result of ``--check``, as text or JSON."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import TYPE_CHECKING, TextIO

from ragloom.types import IndexStatus

if TYPE_CHECKING:
    from ragloom.indexing.consistency import VerifyReport


def print_status(status: IndexStatus, check: VerifyReport | None, as_json: bool, out: TextIO) -> None:
    """What ``ragloom status`` prints: the snapshot, bytes per part, and the check if run."""
    if as_json:
        payload = status.to_dict() | ({"check": check.to_dict()} if check else {})
        print(json.dumps(payload, indent=2), file=out)
        return
    when = (datetime.fromtimestamp(status.last_indexed, tz=timezone.utc).isoformat(
        timespec="seconds") if status.last_indexed else "never")
    print(f"files: {status.files}\nchunks: {status.chunks}\nstore: {status.store}\n"
          f"model: {status.embedding_provider}/{status.embedding_model} "
          f"({status.dimension}-d)\nindex: {status.index_dir} "
          f"({status.index_bytes / 1e6:.1f} MB)\nlast indexed: {when}\n"
          f"files pending: {status.files_pending}", file=out)
    print(_size_rows(status), file=out)
    if check is not None:
        print("check: ok" if check.ok else "check: FAILED\n" + "\n".join(
            f"  {problem}" for problem in check.problems), file=out)


def _size_rows(status: IndexStatus) -> str:
    """Bytes on disk per part, in total and per chunk (what ``status`` prints)."""
    per_chunk = status.bytes_per_chunk
    rows = [f"  {part.replace('_', ' ')}: {size / 1e6:.1f} MB ({per_chunk[part]:,.0f} B/chunk)"
            for part, size in status.bytes_by_part.items()]
    return "\n".join([f"size: {status.index_bytes / 1e6:.1f} MB ({per_chunk['total']:,.0f} B/chunk)", *rows])
