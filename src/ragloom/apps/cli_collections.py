"""``ragloom collections``: the collections of the configured store (name, embedding
model, chunks, files, size), and ``ragloom collections drop NAME`` to remove one (only
what ragloom wrote for it; ``--yes`` or an answer at the terminal confirms)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from ragloom.config import RAGConfig

if TYPE_CHECKING:  # ``ragloom status`` imports this module: no engine (numpy) at import
    from ragloom.engine.collection_info import CollectionInfo


class DropNotConfirmed(Exception):
    """``drop`` without ``--yes`` where nobody can answer; a usage error (exit 2)."""


def add_collections_command(commands: Any) -> argparse.ArgumentParser:
    """The ``collections`` subcommand of ``ragloom`` (``commands`` is its subparsers)."""
    parser = commands.add_parser("collections", help="list the collections of the store (model, "
                                 "chunks, files, size), or drop one")
    parser.add_argument("--json", action="store_true", help="the list (or what a drop removed) as JSON")
    actions = parser.add_subparsers(dest="collections_action", metavar="drop")
    drop = actions.add_parser("drop", help="remove one collection: its chunks, BM25 index and "
                              "manifest (only what ragloom wrote; other collections stay)")
    drop.add_argument("name", help="the collection (vector_store.collection_name) to drop")
    drop.add_argument("--yes", action="store_true", help="drop without asking")
    return parser


def run_collections(args: argparse.Namespace, config: RAGConfig, base_dir: Path, out: TextIO) -> int:
    """List the collections, or drop the one named; returns the exit code."""
    from ragloom.engine.collections import drop_collection, list_collections

    found = list_collections(config, base_dir)
    if args.collections_action != "drop":
        if args.json:
            print(json.dumps([info.to_dict() for info in found], indent=2), file=out)
        else:
            print(format_collections(found), file=out)
        return 0
    described = next((info for info in found if info.name == args.name), None)
    if not args.yes:
        question = f"drop collection {args.name!r}" + (f" ({_count(described.chunks)} chunks, "
                                                       f"{described.where})" if described else "")
        if not sys.stdin.isatty():
            raise DropNotConfirmed(f"{question}: add --yes to drop it (nothing was dropped)")
        print(f"{question}? [y/N] ", end="", file=out, flush=True)
        if sys.stdin.readline().strip().lower() not in ("y", "yes"):
            print("nothing dropped", file=out)
            return 1
    dropped = drop_collection(config, base_dir, args.name)
    if args.json:
        print(json.dumps(dropped.to_dict(), indent=2), file=out)
        return 0
    print(f"dropped {dropped.store} collection {dropped.name!r}", file=out)
    for item in dropped.removed:
        print(f"  removed {item}", file=out)
    for item in dropped.kept:
        print(f"  kept {item} (not written by ragloom)", file=out)
    return 0


def format_collections(found: list[CollectionInfo]) -> str:
    """One row per collection; a figure the store does not report reads ``unknown``."""
    if not found:
        return "no collections"
    rows = [("name", "model", "chunks", "files", "size", "where")]
    rows += [(info.name, f"{info.embedding_model or 'unknown'}"
              + (f" ({info.dimension}-d)" if info.dimension else ""), _count(info.chunks),
              _count(info.files), _size(info.bytes),
              info.where) for info in found]
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in rows]
    if any(info.bytes is None for info in found):
        lines.append("size unknown: the store's server does not report it, or (vector_store.path "
                     "set) the folder of another collection is not known")
    return "\n".join(lines)


def _count(value: int | None) -> str:
    return "unknown" if value is None else f"{value:,}"


def _size(value: int | None) -> str:
    if value is None:
        return "unknown"
    return f"{value / 1e6:.1f} MB" if value >= 1e6 else f"{value / 1e3:.1f} kB"
