"""The ``ragloom`` command: index, ingest, search, status, reindex, context, mcp, eval and
collections.

Reads the ``[rag]`` table of ``--config`` (default ``ragloom.toml``, else
``pyproject.toml``'s ``[tool.ragloom]``, else built-in defaults) with the config file's
folder as base_dir. Exit codes: 0 success, 1 failure while working, 2 bad usage or config,
3 a search or context that found nothing to show (nothing relevant, below the relevance
gate or ``--min-score``, or an empty index; stderr says which), 130 interrupted (Ctrl-C;
``index`` says what it kept and that running it again resumes).
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TextIO

from ragloom.apps import cli_commands
from ragloom.apps.cli_collections import DropNotConfirmed, add_collections_command, run_collections
from ragloom.apps.cli_commands import EXIT_FAILURE, EXIT_OK, EXIT_USAGE, UsageError
from ragloom.apps.cli_interrupt import EXIT_INTERRUPTED, RESUME_HINT
from ragloom.apps.eval import MODES
from ragloom.apps.inspector import add_inspect_command
from ragloom.apps.query_options import QueryUsageError, add_query_options
from ragloom.config import RAGConfig, load_config, tomllib
from ragloom.errors import ConfigError, RagloomError

REBUILD_HELP = ("empty the index first and index the source files again: for an index built "
                "with another embedding model or one that cannot be read (deletes only what "
                "ragloom wrote; embeddings still come from the cache)")


def find_config(explicit: str | None, cwd: Path) -> tuple[RAGConfig, Path]:
    """The config to use and the base_dir it implies: ``--config``, else the nearest
    ``ragloom.toml`` or ``pyproject.toml`` with a ``[tool.ragloom]`` table in ``cwd`` or a
    folder above it (as git and ruff look), else the defaults with ``cwd`` as base_dir."""
    if explicit:
        path = Path(explicit)
        if not path.is_file():
            raise UsageError(f"config file not found: {path}")
        table = "tool.ragloom" if path.name == "pyproject.toml" else "rag"
        return load_config(path, table), path.resolve().parent
    for folder in (cwd, *cwd.parents):
        if (folder / "ragloom.toml").is_file():
            return load_config(folder / "ragloom.toml"), folder
        pyproject = folder / "pyproject.toml"
        if pyproject.is_file() and _has_ragloom_table(pyproject):
            return load_config(pyproject, "tool.ragloom"), folder
    return RAGConfig(), cwd


def _has_ragloom_table(pyproject: Path) -> bool:
    try:
        with pyproject.open("rb") as handle:
            document = tomllib.load(handle)
    except (OSError, ValueError, RecursionError):  # not TOML, not UTF-8, nested too deep
        return False
    return isinstance(document.get("tool"), dict) and "ragloom" in document["tool"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ragloom", description="Index and search a project.")
    parser.add_argument("--config", help="TOML file with a [rag] table (default: ragloom.toml, "
                        "then pyproject.toml [tool.ragloom])")
    parser.add_argument("-v", "--verbose", action="store_true", help="log what ragloom does")
    commands = parser.add_subparsers(dest="command", required=True)
    index = commands.add_parser("index", help="index new and changed files")
    index.add_argument("path", nargs="?", help="folder or file (default: base_dir)")
    index.add_argument("--rebuild", action="store_true", help=REBUILD_HELP)
    ingest = commands.add_parser("ingest", help="index the given files (any supported type), "
                                 "wherever they are, without walking a folder")
    ingest.add_argument("files", nargs="+", metavar="FILE")
    reindex = commands.add_parser("reindex", help="re-chunk every file, even unchanged ones")
    reindex.add_argument("path", nargs="?")
    reindex.add_argument("--rebuild", action="store_true", help=REBUILD_HELP)
    for writer in (index, ingest, reindex):
        writer.add_argument("--json", action="store_true", help="the report as JSON")
    for walker in (index, reindex):
        walker.add_argument("--keep-noise", action="store_true",
                            help="this run, index the files the skip_noise rules skip (lock "
                                 "files, minified and compiled files, ...; docs/chunking.md)")
    search = commands.add_parser("search", help="print the chunks most relevant to a query")
    add_query_options(search, _positive_int)
    context = commands.add_parser("context", help="print the block that would be injected")
    add_query_options(context, _positive_int)
    context.add_argument("--token-budget", type=_non_negative_int)
    status = commands.add_parser("status", help="what the index holds")
    status.add_argument("--json", action="store_true")
    status.add_argument("--check", action="store_true",
                        help="also verify every segment file's checksums and that store, BM25 "
                             "index and manifest agree (exit 1 if not)")
    mcp = commands.add_parser("mcp", help="serve the index to MCP clients (stdio by default)")
    mcp.add_argument("--http", action="store_true", help="streamable HTTP instead of stdio")
    mcp.add_argument("--host", default="127.0.0.1", help="HTTP address (default 127.0.0.1)")
    mcp.add_argument("--port", type=_positive_int, default=8765, help="HTTP port (default 8765)")
    mcp.add_argument("--allow-writes", action="store_true",
                     help="offer the rag_index tool (off: the server only reads the index)")
    add_inspect_command(commands, _positive_int)
    add_collections_command(commands)
    evaluate = commands.add_parser("eval", help="nDCG/Recall/MRR@k on a BEIR-format folder")
    evaluate.add_argument("--dataset", required=True, help="folder with corpus.jsonl, "
                          "queries.jsonl, qrels.tsv")
    evaluate.add_argument("--modes", nargs="+", default=None, choices=MODES)
    evaluate.add_argument("--k", type=_positive_int, default=10)
    evaluate.add_argument("--work-dir", help="keep the index and cache here for reruns")
    evaluate.add_argument("--json", action="store_true")
    return parser


def _positive_int(text: str) -> int:
    value = _non_negative_int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _non_negative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must not be negative, got {value}")
    return value


#: (parsed arguments, config, base_dir, output stream) -> exit code.
CommandFunction = Callable[[argparse.Namespace, RAGConfig, Path, TextIO], int]

#: Every command's function (``cli_commands``): adding a command is adding its parser in
#: ``build_parser``, one function and one row here.
COMMANDS: dict[str, CommandFunction] = {
    "index": cli_commands.index, "reindex": cli_commands.reindex, "ingest": cli_commands.ingest,
    "search": cli_commands.search, "context": cli_commands.search, "status": cli_commands.status,
    "mcp": cli_commands.mcp, "inspect": cli_commands.inspect, "eval": cli_commands.evaluate,
    "collections": run_collections,
}


def run(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """Run the parsed command with the config found from the current folder."""
    out = sys.stdout if out is None else out  # the stream of the moment, not of import time
    config, base_dir = find_config(args.config, Path.cwd())
    try:
        return COMMANDS[args.command](args, config, base_dir, out)
    except cli_commands.NoIndex:
        return EXIT_FAILURE


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not args.verbose:  # third-party bars and notices (transformers' "Loading weights") off
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
        os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="ragloom: %(message)s")
    from ragloom.security.display import RedactingFilter  # no credential in a log line
    for handler in logging.getLogger().handlers:
        handler.addFilter(RedactingFilter())
    try:
        return run(args)
    except BrokenPipeError:  # the reader went away (``| head``): stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK
    except (UsageError, QueryUsageError, ConfigError, FileNotFoundError, NotADirectoryError,
            DropNotConfirmed) as exc:
        print(f"ragloom: error: {_one_line(exc)}", file=sys.stderr)
        return EXIT_USAGE
    except (RagloomError, OSError, ValueError) as exc:
        print(f"ragloom: error: {_one_line(exc)}", file=sys.stderr)
        return EXIT_FAILURE
    except KeyboardInterrupt:  # nothing is half-written: a write journal covers every step
        resume = f"; {RESUME_HINT}" if args.command in ("index", "reindex") else ""
        print(f"ragloom: interrupted{resume}", file=sys.stderr)
        return EXIT_INTERRUPTED


def _one_line(exc: BaseException) -> str:
    """The error's message on one line, with any credential in it (a URL's password) hidden."""
    from ragloom.security.display import redact_for_display

    return redact_for_display(" | ".join(line.strip() for line in str(exc).splitlines() if line.strip()))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
