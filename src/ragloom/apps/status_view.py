"""What ``ragloom status`` prints: the index snapshot, where it lives (a folder, or a
server and its table or collection), the bytes per part (in total and per chunk), pending
and skipped files, and the result of ``--check``, as text or JSON (``IndexStatus.to_dict``,
the record MCP's ``rag_status`` returns too)."""

from __future__ import annotations

import json
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
    print(f"files: {status.files}\nchunks: {status.chunks}\n{_dense(status)}store: {status.store}\n"
          f"model: {status.embedding_provider}/{status.embedding_model} "
          f"({status.dimension}-d)\n{_where(status)}\nlast indexed: {status.last_indexed_iso or 'never'}\n"
          f"files pending: {_count(status.files_pending)}\n{_skipped(status)}", file=out)
    print(_size_rows(status), file=out)
    if status.limits:
        print(_limit_rows(status), file=out)
    if check is not None:
        print("check: ok" if check.ok else "check: FAILED\n" + "\n".join(
            f"  {problem}" for problem in check.problems), file=out)


def _where(status: IndexStatus) -> str:
    """``index: <folder>``, and for a store in a server ``server: <url> (<table>)``."""
    rows = [f"server: {status.server} ({status.collection})"] if status.server else []
    if status.index_dir:
        rows.append(f"index: {status.index_dir}")
    return "\n".join(rows)


def _dense(status: IndexStatus) -> str:
    """``dense-searchable: N/M chunks`` while some chunks wait for their vectors, else ""."""
    if not status.chunks_unembedded:
        return ""
    return (f"dense-searchable: {status.chunks - status.chunks_unembedded}/{status.chunks} chunks "
            f"(the rest by BM25 until embedded: by the run in progress, else the next one)\n")


def _count(value: int | None) -> str:
    return "not counted" if value is None else str(value)


def _skipped(status: IndexStatus) -> str:
    """``files skipped: 3 (binary file: 2, secret file (excluded by default): 1)``."""
    if status.files_skipped is None:
        return "files skipped: not counted"
    total = sum(status.files_skipped.values())
    reasons = ", ".join(f"{reason}: {count}" for reason, count in status.files_skipped.items())
    return f"files skipped: {total}" + (f" ({reasons})" if reasons else "")


def _size_rows(status: IndexStatus) -> str:
    """Bytes per part, in total and per chunk (what ``status`` prints); a part whose size
    the store's server does not report says so."""
    per_chunk = status.bytes_per_chunk
    rows = [f"  {part.replace('_', ' ')}: "
            + ("not reported by the server" if part in status.sizes_unknown and not size
               else f"{size / 1e6:.1f} MB ({per_chunk[part]:,.0f} B/chunk)")
            for part, size in status.bytes_by_part.items()]
    source = " (as the server reports it)" if status.server and not status.index_dir else ""
    return "\n".join([f"size{source}: {status.index_bytes / 1e6:.1f} MB "
                      f"({per_chunk['total']:,.0f} B/chunk)", *rows])


def _limit_rows(status: IndexStatus) -> str:
    """``limits:`` and a row per limit set: ``max_chunks: 120 of 1,000 (12%)``."""
    rows = [f"  {key}: {usage['used']:,} of {usage['limit']:,} "
            f"({100 * usage['used'] / usage['limit']:.0f}%)" for key, usage in status.limits.items()]
    return "\n".join(["limits:", *rows])
