"""The ``ragloom`` command: index, search, status, reindex, context and eval.

Reads the ``[rag]`` table of ``--config`` (default ``ragloom.toml``, else
``pyproject.toml``'s ``[tool.ragloom]``, else built-in defaults) with the config file's
folder as base_dir. Exit codes: 0 success, 1 failure while working, 2 bad usage or config.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from pathlib import Path

from ragloom.config import RAGConfig, load_config
from ragloom.errors import ConfigError, RagloomError
from ragloom.types import IndexReport

EXIT_OK, EXIT_FAILURE, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """A mistake in the command line; exits with code 2."""


def find_config(explicit: str | None, cwd: Path) -> tuple[RAGConfig, Path]:
    """The config to use and the base_dir it implies."""
    if explicit:
        path = Path(explicit)
        if not path.is_file():
            raise UsageError(f"config file not found: {path}")
        table = "tool.ragloom" if path.name == "pyproject.toml" else "rag"
        return load_config(path, table), path.resolve().parent
    if (cwd / "ragloom.toml").is_file():
        return load_config(cwd / "ragloom.toml"), cwd
    pyproject = cwd / "pyproject.toml"
    if pyproject.is_file():
        try:
            return load_config(pyproject, "tool.ragloom"), cwd
        except ConfigError as exc:
            if "no [tool.ragloom] table" not in str(exc):
                raise
    return RAGConfig(), cwd


def progress_printer(stream=sys.stderr) -> Callable[[int, int], None]:  # type: ignore[no-untyped-def]
    """A tqdm bar on a terminal, occasional plain counts otherwise."""
    if stream.isatty():
        try:
            from tqdm import tqdm
        except ImportError:
            pass
        else:
            bar = tqdm(total=0, unit="file", file=stream, leave=False)

            def update_bar(done: int, total: int) -> None:
                bar.total = total
                bar.n = done
                bar.refresh()
                if done >= total:
                    bar.close()
            return update_bar
    last = [0.0]

    def update_counts(done: int, total: int) -> None:
        now = time.monotonic()
        if done >= total or now - last[0] >= 2.0:
            last[0] = now
            print(f"indexed {done}/{total} files", file=stream, flush=True)
    return update_counts


def describe_report(report: IndexReport) -> str:
    lines = [f"{report.files_indexed} indexed, {report.files_unchanged} unchanged, "
             f"{report.files_skipped} skipped, {report.files_removed} removed; "
             f"{report.chunks_added} chunks written ({report.chunks_embedded} embedded), "
             f"{report.chunks_removed} removed in {report.seconds:.1f}s"]
    lines += [f"  skipped {s.path}: {s.reason}" for s in report.skipped]
    lines += [f"  warning {w}" for w in report.warnings]
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ragloom", description="Index and search a project.")
    parser.add_argument("--config", help="TOML file with a [rag] table (default: ragloom.toml, "
                        "then pyproject.toml [tool.ragloom])")
    parser.add_argument("-v", "--verbose", action="store_true", help="log what ragloom does")
    commands = parser.add_subparsers(dest="command", required=True)
    index = commands.add_parser("index", help="index new and changed files")
    index.add_argument("path", nargs="?", help="folder or file (default: base_dir)")
    reindex = commands.add_parser("reindex", help="re-chunk every file, even unchanged ones")
    reindex.add_argument("path", nargs="?")
    search = commands.add_parser("search", help="print the chunks most relevant to a query")
    search.add_argument("query")
    search.add_argument("--top-k", type=int)
    search.add_argument("--json", action="store_true", help="machine-readable output")
    context = commands.add_parser("context", help="print the block that would be injected")
    context.add_argument("query")
    context.add_argument("--top-k", type=int)
    context.add_argument("--token-budget", type=int)
    status = commands.add_parser("status", help="what the index holds")
    status.add_argument("--json", action="store_true")
    status.add_argument("--check", action="store_true",
                        help="also verify that store, BM25 index and manifest agree (exit 1 if not)")
    evaluate = commands.add_parser("eval", help="nDCG/Recall/MRR@k on a BEIR-format folder")
    evaluate.add_argument("--dataset", required=True, help="folder with corpus.jsonl, "
                          "queries.jsonl, qrels.tsv")
    evaluate.add_argument("--modes", nargs="+", default=None)
    evaluate.add_argument("--k", type=int, default=10)
    evaluate.add_argument("--work-dir", help="keep the index and cache here for reruns")
    evaluate.add_argument("--json", action="store_true")
    return parser


def run(args: argparse.Namespace, out=sys.stdout) -> int:  # type: ignore[no-untyped-def]
    from ragloom.engine import RAGEngine
    from ragloom.prompt import format_context

    config, base_dir = find_config(args.config, Path.cwd())
    if args.command == "eval":
        from ragloom.eval import MODES, format_scores, run_eval

        scores = run_eval(config, args.dataset, args.modes or MODES, args.k, args.work_dir)
        print(json.dumps([s.to_dict() for s in scores], indent=2) if args.json
              else format_scores(scores, args.k), file=out)
        return EXIT_OK
    with RAGEngine(config, base_dir) as engine:
        if args.command in ("index", "reindex"):
            method = engine.index_directory if args.command == "index" else engine.reindex
            target = Path(args.path) if args.path else None
            if target is not None and target.is_file() and args.command == "index":
                report = engine.index_file(target)
            else:
                report = method(target, progress=progress_printer())
            print(describe_report(report), file=out)
        elif args.command == "search":
            results = engine.search(args.query, top_k=args.top_k)
            if args.json:
                print(json.dumps([r.to_dict() for r in results], indent=2), file=out)
            for rank, r in enumerate([] if args.json else results, start=1):
                meta = r.metadata
                where = f"{meta.get('path', r.id)}:{meta.get('start_line', '?')}-{meta.get('end_line', '?')}"
                print(f"{rank}. {r.score:.4f}  {where}", file=out)
                print("   " + r.text.strip().replace("\n", "\n   ")[:400], file=out)
        elif args.command == "context":
            print(format_context(engine.search(args.query, top_k=args.top_k), args.token_budget),
                  file=out)
        elif args.command == "status":
            status = engine.status()
            check = engine.verify() if args.check else None
            if args.json:
                payload = status.to_dict() | ({"check": check.to_dict()} if check else {})
                print(json.dumps(payload, indent=2), file=out)
            else:
                when = (datetime.fromtimestamp(status.last_indexed, tz=timezone.utc).isoformat(
                    timespec="seconds") if status.last_indexed else "never")
                print(f"files: {status.files}\nchunks: {status.chunks}\nstore: {status.store}\n"
                      f"model: {status.embedding_provider}/{status.embedding_model} "
                      f"({status.dimension}-d)\nindex: {status.index_dir} "
                      f"({status.index_bytes / 1e6:.1f} MB)\nlast indexed: {when}\n"
                      f"files pending: {status.files_pending}", file=out)
                if check is not None:
                    print("check: ok" if check.ok else "check: FAILED\n" + "\n".join(
                        f"  {problem}" for problem in check.problems), file=out)
            if check is not None and not check.ok:
                return EXIT_FAILURE
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="ragloom: %(message)s")
    try:
        return run(args)
    except (UsageError, ConfigError, FileNotFoundError, NotADirectoryError) as exc:
        print(f"ragloom: error: {_one_line(exc)}", file=sys.stderr)
        return EXIT_USAGE
    except (RagloomError, OSError, ValueError) as exc:
        print(f"ragloom: error: {_one_line(exc)}", file=sys.stderr)
        return EXIT_FAILURE
    except KeyboardInterrupt:
        print("ragloom: interrupted", file=sys.stderr)
        return EXIT_FAILURE


def _one_line(exc: BaseException) -> str:
    return " | ".join(line.strip() for line in str(exc).splitlines() if line.strip())


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
