"""``ragloom inspect``: a local, read-only page showing why a result ranked (its retriever
ranks, scores and place in its file) and how the index is made up. See docs/inspector.md.
The server is imported only when the command runs (the CLI's other commands stay quick)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from ragloom.engine import RAGEngine

__all__ = ["add_inspect_command", "run_inspect"]


def add_inspect_command(commands: Any, port_number: Any) -> argparse.ArgumentParser:
    """The ``inspect`` subcommand of ``ragloom`` (``commands`` is its subparsers)."""
    inspect = commands.add_parser("inspect", help="a local read-only page to search the index "
                                  "and see why results ranked (127.0.0.1 only)")
    inspect.add_argument("--port", type=port_number, default=0,
                         help="port on 127.0.0.1 (default: a free one, printed)")
    return inspect


def run_inspect(engine: RAGEngine, port: int, out: TextIO) -> None:
    """Serve the page for ``engine`` until stopped, printing its address first."""
    from ragloom.apps.inspector.server import serve

    serve(engine, port, out)
