"""One function per ``ragloom`` command: each takes the parsed arguments, the config, its
base_dir and the output stream, opens the engine if it needs one, and returns the exit
code. ``cli.COMMANDS`` maps the command names to them."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from ragloom.apps.cli_interrupt import EXIT_INTERRUPTED, describe_stop, stop_on_interrupt
from ragloom.apps.cli_progress import describe_report, print_skipped, progress_printer
from ragloom.apps.eval import MODES
from ragloom.apps.inspector import run_inspect
from ragloom.apps.query_options import explain, filters_from, print_results, test_settings
from ragloom.apps.status_view import print_status
from ragloom.config import RAGConfig
from ragloom.errors import IndexNotFoundError
from ragloom.prompt import one_line

if TYPE_CHECKING:
    from ragloom.engine import RAGEngine
    from ragloom.indexing.indexer import IndexingStopped

EXIT_OK, EXIT_FAILURE, EXIT_USAGE, EXIT_NOTHING_FOUND = 0, 1, 2, 3


class UsageError(Exception):
    """A mistake in the command line; exits with code 2."""


class NoIndex(Exception):
    """A reader found no index to open (said on stderr already); exits with code 1."""


@contextmanager
def open_engine(args: argparse.Namespace, config: RAGConfig, base_dir: Path,
                read_only: bool) -> Iterator[RAGEngine]:
    """The engine for ``config``, closed on leaving; a writer with no config and no index
    yet says which folder it indexes with the default settings first."""
    from ragloom.engine import RAGEngine

    if config.source_file is None and not read_only and not (base_dir / config.index_dir).exists():
        print(f"ragloom: no ragloom.toml (or pyproject.toml [tool.ragloom]) in {base_dir} or "
              f"above: indexing {base_dir} with the default settings into "
              f"{base_dir / config.index_dir}", file=sys.stderr)
    try:
        engine = RAGEngine(config, base_dir, read_only=read_only,
                           rebuild=bool(getattr(args, "rebuild", False)))
    except IndexNotFoundError:
        from ragloom.indexing.other_stores import other_store_note

        note = other_store_note(config, base_dir / config.index_dir)
        print(f"ragloom: {note}" if note else f"ragloom: no index in {base_dir / config.index_dir}; "
              f"run 'ragloom index' in {base_dir} to build one", file=sys.stderr)
        raise NoIndex from None
    with engine:
        yield engine


def walker_config(args: argparse.Namespace, config: RAGConfig) -> RAGConfig:
    """``config`` with this run's ``--keep-noise``."""
    return config.model_copy(update={"skip_noise": []}) if args.keep_noise else config


def walk_target(args: argparse.Namespace) -> Path | None:
    """The folder or file ``index``/``reindex`` was given, which must exist (checked before
    the engine creates its folder)."""
    target = from_current_folder(args.path)
    if target is not None and not target.exists():
        raise UsageError(f"no such file or folder: {args.path}")
    return target


def index(args: argparse.Namespace, config: RAGConfig, base_dir: Path, out: TextIO) -> int:
    """``ragloom index [PATH]``: new and changed files (one file when PATH is one); Ctrl-C
    stops at the next safe point and says what was kept."""
    from ragloom.indexing.indexer import IndexingStopped

    target = walk_target(args)
    with open_engine(args, walker_config(args, config), base_dir, read_only=False) as engine:
        if target is not None and target.is_file():
            report = engine.index_file(target)
        else:
            with stop_on_interrupt() as stop:
                try:
                    report = engine.index_directory(target, progress=progress_printer(), stop=stop)
                except IndexingStopped as stopped:
                    return _stopped(stopped, args.json, out)
        print(json.dumps(report.to_dict(), indent=2) if args.json
              else describe_report(report, args.verbose), file=out)
    return EXIT_OK


def reindex(args: argparse.Namespace, config: RAGConfig, base_dir: Path, out: TextIO) -> int:
    """``ragloom reindex [PATH]``: re-chunk every file, even unchanged ones."""
    target = walk_target(args)
    with open_engine(args, walker_config(args, config), base_dir, read_only=False) as engine:
        report = engine.reindex(target, progress=progress_printer())
        print(json.dumps(report.to_dict(), indent=2) if args.json
              else describe_report(report, args.verbose), file=out)
    return EXIT_OK


def search(args: argparse.Namespace, config: RAGConfig, base_dir: Path, out: TextIO) -> int:
    """``ragloom search`` and ``ragloom context``: the results, or the block that would be
    injected; exit 3 when nothing is shown (stderr says why)."""
    from ragloom.prompt import format_context

    filters = filters_from(args)  # a bad filter is a usage error before anything opens
    gate_off = None if config.relevance_gate is False else config.relevance_gate
    if args.no_gate:
        config = config.model_copy(update={"relevance_gate": False})
    if test_settings(args):
        config = config.model_copy(update={"retrieval": config.retrieval.model_copy(
            update=test_settings(args))})
    with open_engine(args, config, base_dir, read_only=True) as engine:
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
    return EXIT_OK if response.results else EXIT_NOTHING_FOUND


def status(args: argparse.Namespace, config: RAGConfig, base_dir: Path, out: TextIO) -> int:
    """``ragloom status``: from the index's files alone when it can (no store opened, no
    model built), else from the engine; ``--check`` verifies (exit 1 if it fails)."""
    if not args.check:
        from ragloom.indexing.disk_status import read_status

        quick = read_status(config, base_dir)
        if quick is not None:
            print_status(quick, None, args.json, out)
            print_skipped(quick, args.json, args.verbose, out)
            return EXIT_OK
    with open_engine(args, config, base_dir, read_only=True) as engine:
        check = engine.verify() if args.check else None
        found = engine.status()
        print_status(found, check, args.json, out)
        print_skipped(found, args.json, args.verbose, out)
    return EXIT_FAILURE if check is not None and not check.ok else EXIT_OK


def mcp(args: argparse.Namespace, config: RAGConfig, base_dir: Path, out: TextIO) -> int:
    """``ragloom mcp``: serve the index to MCP clients (writing only with --allow-writes)."""
    from ragloom.apps.mcp_server import serve

    with open_engine(args, config, base_dir, read_only=not args.allow_writes) as engine:
        serve(engine, http=args.http, host=args.host, port=args.port, allow_writes=args.allow_writes)
    return EXIT_OK


def inspect(args: argparse.Namespace, config: RAGConfig, base_dir: Path, out: TextIO) -> int:
    """``ragloom inspect``: the local read-only page."""
    with open_engine(args, config, base_dir, read_only=True) as engine:
        run_inspect(engine, args.port, out)
    return EXIT_OK


def evaluate(args: argparse.Namespace, config: RAGConfig, base_dir: Path, out: TextIO) -> int:
    """``ragloom eval``: retrieval quality on a BEIR-format folder (its own index)."""
    from ragloom.apps.eval import format_scores, run_eval

    scores = run_eval(config, args.dataset, args.modes or MODES, args.k, args.work_dir)
    print(json.dumps([s.to_dict() for s in scores], indent=2) if args.json
          else format_scores(scores, args.k), file=out)
    return EXIT_OK


def _stopped(stopped: IndexingStopped, as_json: bool, out: TextIO) -> int:
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


def ingest(args: argparse.Namespace, config: RAGConfig, base_dir: Path, out: TextIO) -> int:
    """``ragloom ingest FILE...``: index each file, printing one line (or JSON record) per
    file; exit 1 if any could not be indexed."""
    records: list[dict[str, object]] = []
    with open_engine(args, config, base_dir, read_only=False) as engine:
        for path in map(Path, args.files):
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
                           "chunks_embedded": report.chunks_embedded,
                           "chunks_removed": report.chunks_removed}
            records.append(record)
    if args.json:
        print(json.dumps(records, indent=2), file=out)
    for record in [] if args.json else records:
        _print_ingested(record, out)
    failed = sum(record["status"] in ("missing", "skipped") for record in records)
    return EXIT_FAILURE if failed else EXIT_OK


def _print_ingested(record: dict[str, object], out: TextIO) -> None:
    status, path = record["status"], one_line(str(record["path"]))
    if status in ("missing", "skipped"):
        print(f"{status} {path}: {record['reason']}", file=out)
    elif status == "unchanged":
        print(f"unchanged {path}", file=out)
    else:
        print(f"indexed {path}: {record['chunks_added']} chunks ({record['chunks_embedded']} "
              f"embedded, {record['chunks_removed']} replaced)", file=out)
    warnings = record.get("warnings")
    for warning in warnings if isinstance(warnings, list) else []:
        print(f"  warning {warning}", file=out)
