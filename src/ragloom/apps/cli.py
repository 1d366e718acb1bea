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
import json
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ragloom.apps.cli_collections import DropNotConfirmed, add_collections_command, run_collections
from ragloom.apps.cli_interrupt import EXIT_INTERRUPTED, RESUME_HINT, describe_stop, stop_on_interrupt
from ragloom.apps.cli_progress import describe_report, print_skipped, progress_printer
from ragloom.apps.eval import MODES
from ragloom.apps.inspector import add_inspect_command, run_inspect
from ragloom.apps.query_options import (
    QueryUsageError,
    add_query_options,
    explain,
    filters_from,
    print_results,
    test_settings,
)
from ragloom.apps.status_view import print_status
from ragloom.config import RAGConfig, load_config, tomllib
from ragloom.errors import ConfigError, IndexNotFoundError, RagloomError
from ragloom.prompt import one_line

if TYPE_CHECKING:
    from ragloom.engine import RAGEngine
    from ragloom.indexing.indexer import IndexingStopped

EXIT_OK, EXIT_FAILURE, EXIT_USAGE, EXIT_NOTHING_FOUND = 0, 1, 2, 3
REBUILD_HELP = ("empty the index first and index the source files again: for an index built "
                "with another embedding model or one that cannot be read (deletes only what "
                "ragloom wrote; embeddings still come from the cache)")


class UsageError(Exception):
    """A mistake in the command line; exits with code 2."""


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


def run(args: argparse.Namespace, out=None) -> int:  # type: ignore[no-untyped-def]
    out = sys.stdout if out is None else out  # the stream of the moment, not of import time
    config, base_dir = find_config(args.config, Path.cwd())
    if args.command == "collections":
        return run_collections(args, config, base_dir, out)
    if args.command == "status" and not args.check:
        from ragloom.indexing.disk_status import read_status

        quick = read_status(config, base_dir)  # no store opened, no model built
        if quick is not None:
            print_status(quick, None, args.json, out)
            print_skipped(quick, args.json, args.verbose, out)
            return EXIT_OK

    from ragloom.engine import RAGEngine
    from ragloom.prompt import format_context

    if args.command == "eval":
        from ragloom.apps.eval import format_scores, run_eval

        scores = run_eval(config, args.dataset, args.modes or MODES, args.k, args.work_dir)
        print(json.dumps([s.to_dict() for s in scores], indent=2) if args.json
              else format_scores(scores, args.k), file=out)
        return EXIT_OK
    reading = args.command in ("search", "context", "status", "inspect") or (
        args.command == "mcp" and not args.allow_writes)
    querying = args.command in ("search", "context")
    filters = filters_from(args) if querying else None
    gate_off = config.relevance_gate
    if getattr(args, "keep_noise", False):
        config = config.model_copy(update={"skip_noise": []})
    if querying and args.no_gate:
        config = config.model_copy(update={"relevance_gate": -1.0})
    if querying and test_settings(args):
        config = config.model_copy(update={"retrieval": config.retrieval.model_copy(
            update=test_settings(args))})
    if config.source_file is None and not reading and not (base_dir / config.index_dir).exists():
        print(f"ragloom: no ragloom.toml (or pyproject.toml [tool.ragloom]) in {base_dir} or "
              f"above: indexing {base_dir} with the default settings into "
              f"{base_dir / config.index_dir}", file=sys.stderr)
    target = from_current_folder(args.path if args.command in ("index", "reindex") else None)
    if target is not None and not target.exists():  # before the engine creates its folder
        raise UsageError(f"no such file or folder: {args.path}")
    try:
        engine = RAGEngine(config, base_dir, read_only=reading,
                           rebuild=bool(getattr(args, "rebuild", False)))
    except IndexNotFoundError:
        from ragloom.indexing.other_stores import other_store_note

        note = other_store_note(config, base_dir / config.index_dir)
        print(f"ragloom: {note}" if note else f"ragloom: no index in {base_dir / config.index_dir}; "
              f"run 'ragloom index' in {base_dir} to build one", file=sys.stderr)
        return EXIT_FAILURE
    with engine:
        if args.command in ("index", "reindex"):
            if target is not None and target.is_file() and args.command == "index":
                report = engine.index_file(target)
            elif args.command == "index":
                from ragloom.indexing.indexer import IndexingStopped

                with stop_on_interrupt() as stop:
                    try:
                        report = engine.index_directory(target, progress=progress_printer(),
                                                        stop=stop)
                    except IndexingStopped as stopped:
                        return _stopped(stopped, args.json, out)
            else:
                report = engine.reindex(target, progress=progress_printer())
            print(json.dumps(report.to_dict(), indent=2) if args.json
                  else describe_report(report, args.verbose), file=out)
        elif args.command == "mcp":
            from ragloom.apps.mcp_server import serve

            serve(engine, http=args.http, host=args.host, port=args.port,
                  allow_writes=args.allow_writes)
        elif args.command == "inspect":
            run_inspect(engine, args.port, out)
        elif args.command == "ingest":
            return _ingest(engine, [Path(name) for name in args.files], out, args.json)
        elif querying:
            response = engine.search_detailed(args.query, top_k=args.top_k, filters=filters,
                                              mode=args.mode, min_score=args.min_score,
                                              compress=args.compress)
            if args.no_gate and gate_off is None:
                gate_off = engine.provider.default_relevance_gate
            explain(response, args.no_gate, gate_off, engine.is_empty(),
                    config.min_score if args.min_score is None else args.min_score)
            if args.command == "search":
                print_results(response.results, args.json, out, response.mode, args.verbose)
            else:
                block = format_context(response.results, args.token_budget)
                print(json.dumps({"context": block, "results": [r.to_dict() for r in response.results]},
                                 indent=2) if args.json else block, file=out)
            if not response.results:
                return EXIT_NOTHING_FOUND
        elif args.command == "status":
            check = engine.verify() if args.check else None
            status = engine.status()
            print_status(status, check, args.json, out)
            print_skipped(status, args.json, args.verbose, out)
            if check is not None and not check.ok:
                return EXIT_FAILURE
    return EXIT_OK


def _stopped(stopped: IndexingStopped, as_json: bool, out) -> int:  # type: ignore[no-untyped-def]
    """What an interrupted ``index`` kept and left pending (stderr; the report as JSON too)."""
    if as_json and stopped.report is not None:
        print(json.dumps({**stopped.report.to_dict(), "interrupted": True,
                          "files_pending": stopped.files_pending,
                          "chunks_unembedded": stopped.chunks_unembedded}, indent=2), file=out)
    print(f"ragloom: {describe_stop(stopped)}", file=sys.stderr)
    return EXIT_INTERRUPTED


def from_current_folder(path: str | None) -> Path | None:
    """A path given on the command line, resolved against the current folder (as every
    command-line tool does), not the config's folder; ``..`` is folded, symlinks kept."""
    if not path:
        return None
    return Path(os.path.normpath(Path.cwd() / Path(path).expanduser()))


def _ingest(engine: RAGEngine, files: list[Path], out, as_json: bool = False) -> int:  # type: ignore[no-untyped-def]
    """Index each file, printing one line (or JSON record) per file; exit 1 if any could
    not be indexed."""
    records: list[dict[str, object]] = []
    for path in files:
        if not path.is_file():
            records.append({"path": str(path), "status": "missing", "reason": "not a file"})
            continue
        report = engine.index_file(path.resolve())
        record: dict[str, object] = {"path": str(path), "warnings": list(report.warnings)}
        if report.skipped:
            record |= {"status": "skipped", "reason": report.skipped[0].reason}
        elif report.files_unchanged:
            record |= {"status": "unchanged"}
        else:
            record |= {"status": "indexed", "chunks_added": report.chunks_added,
                       "chunks_embedded": report.chunks_embedded, "chunks_removed": report.chunks_removed}
        records.append(record)
    if as_json:
        print(json.dumps(records, indent=2), file=out)
    for record in [] if as_json else records:
        status, path = record["status"], one_line(str(record["path"]))
        if status in ("missing", "skipped"):
            print(f"{status} {path}: {record['reason']}", file=out)
        elif status == "unchanged":
            print(f"unchanged {path}", file=out)
        else:
            print(f"indexed {path}: {record['chunks_added']} chunks ({record['chunks_embedded']} "
                  f"embedded, {record['chunks_removed']} replaced)", file=out)
        for warning in record.get("warnings") or []:  # type: ignore[attr-defined]
            print(f"  warning {warning}", file=out)
    failed = sum(record["status"] in ("missing", "skipped") for record in records)
    return EXIT_FAILURE if failed else EXIT_OK


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
