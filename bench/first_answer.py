"""Time to a first answer while a whole application repository is indexed, and the full
index time against LlamaIndex's SentenceSplitter and the raw model, in one run.

For each app (a copy of its tree without ``.git``, fresh index and embedding cache, pure
defaults: the local model with its default backend, the default store):

* ``ragloom index`` starts in one process; a second process runs ``ragloom search QUERY
  --json`` again and again (each a fresh process: start, open the index, embed the query,
  search) until it prints results: **first answer** is the seconds from the index start to
  that answer. Polling goes on every ``--poll`` seconds until a result carries a dense hit
  (**first hybrid answer**) and every file was read (the progress line's ``files N/N``),
  then the indexer gets Ctrl-C (SIGINT) and ``ragloom status`` shows what is
  dense-searchable. **first file in BM25**: when the manifest first records a file (its
  window durable in BM25), read from the manifest every 0.1 s: the index's own share of the
  first answer; **one search process**: a ``ragloom search`` alone on the index afterwards
  (the other share).
* **full index**: the wall time of the ``ragloom index`` process; chunks embedded from its
  JSON report.
* **LlamaIndex**: ``SentenceSplitter`` (its defaults) over the files ragloom indexed, the
  nodes embedded with the same model (ragloom's local provider, no cache): split + embed.
* **raw model**: the same provider's ``embed`` over ragloom's chunks as its embedder reads
  them (``path: symbol`` header + text), no pipeline: the floor for ragloom's index time.

The machine's load average is printed with the figures: on a shared machine compare the
ratios within one run, not seconds across runs.

    nice -n 10 python bench/first_answer.py [--apps solidtime miniflux] [--work-dir DIR]
        [--root /work/appsets] [--poll 1] [--skip-llama] [--skip-raw]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

PYTHON = sys.executable
#: A question per app whose words its code holds (the relevance gate judges BM25-only
#: results by their words).
QUERIES = {
    "solidtime": "how are time entries exported to a CSV file",
    "miniflux": "how does the scheduler refresh feeds in the background",
    "babybuddy": "how is a feeding duration calculated",
}


def copy_tree(source: Path, target: Path) -> None:
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(source, target, symlinks=True, ignore=shutil.ignore_patterns(".git", ".ragloom"))


def search_once(root: Path, query: str) -> tuple[int, bool]:
    """(results, whether any has a dense hit) of one ``ragloom search`` process."""
    done = subprocess.run([PYTHON, "-m", "ragloom", "search", query, "--json"], cwd=root,
                          capture_output=True, text=True, timeout=600)
    if done.returncode != 0 or not done.stdout.strip():
        return 0, False
    try:
        results = json.loads(done.stdout)
    except ValueError:
        return 0, False
    return len(results), any("dense" in (r.get("retrievers") or {}) for r in results)


def ragloom_run(root: Path, query: str | None, poll: float, stop_when_hybrid: bool) -> dict:
    """Index ``root`` in one process while another searches it for ``query`` (None: no
    search, the full index time alone); with ``stop_when_hybrid`` the indexer gets SIGINT
    (Ctrl-C) once every file is read and an answer was hybrid."""
    started = time.perf_counter()
    indexer = subprocess.Popen([PYTHON, "-m", "ragloom", "index", "--json"], cwd=root,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    all_read: list[float] = []

    def watch_progress() -> None:  # "embedded 1200/~5400 chunks (...); files 120/800"
        assert indexer.stderr is not None
        for line in indexer.stderr:
            files = re.search(r"files (\d+)/(\d+)", line)
            if files and files.group(1) == files.group(2) and not all_read:
                all_read.append(time.perf_counter() - started)

    watcher = threading.Thread(target=watch_progress, daemon=True)
    watcher.start()
    in_bm25: list[float] = []
    prober = threading.Thread(target=watch_manifest, args=(root, indexer, started, in_bm25), daemon=True)
    prober.start()
    first = hybrid = None
    polls = 0
    while query and indexer.poll() is None and (hybrid is None or (stop_when_hybrid and not all_read)):
        count, dense = search_once(root, query)
        polls += 1
        now = time.perf_counter() - started
        first = now if count and first is None else first
        hybrid = now if count and dense and hybrid is None else hybrid
        time.sleep(poll)
    stopped = stop_when_hybrid and indexer.poll() is None
    if stopped:
        indexer.send_signal(signal.SIGINT)
    output, _ = indexer.communicate()
    full = time.perf_counter() - started
    watcher.join(5)
    report = json.loads(output) if output.strip().startswith("{") else {}
    return {"first_in_bm25": in_bm25[0] if in_bm25 else None, "first_answer": first, "first_hybrid": hybrid,
            "all_files_read": all_read[0] if all_read else None,
            "stopped_at": full if stopped else None, "full_index": None if stopped else full,
            "exit": indexer.returncode, "chunks_embedded": report.get("chunks_embedded"),
            "files": report.get("files_indexed"), "polls": polls}


def watch_manifest(root: Path, indexer: subprocess.Popen, started: float, seen: list[float]) -> None:
    """When the first file is recorded (its window in BM25 and durable): the index's own
    share of the first answer, without a search process's start."""
    manifest = root / ".ragloom" / "manifest_turboquant_ragloom.sqlite"
    while indexer.poll() is None:
        try:
            database = sqlite3.connect(f"file:{manifest}?mode=ro", uri=True)
            try:
                files = database.execute("SELECT COUNT(*) FROM files").fetchone()[0]
            finally:
                database.close()
        except sqlite3.Error:
            files = 0
        if files:
            seen.append(time.perf_counter() - started)
            return
        time.sleep(0.1)


def search_seconds(root: Path, query: str) -> float:
    """One ``ragloom search`` process on its own (start, open, embed the query, search)."""
    started = time.perf_counter()
    search_once(root, query)
    return time.perf_counter() - started


def dense_line(root: Path) -> str:
    """What ``ragloom status`` says of the dense-searchable share (after a stop)."""
    status = subprocess.run([PYTHON, "-m", "ragloom", "status"], cwd=root, capture_output=True,
                            text=True, timeout=600).stdout
    lines = status.splitlines()
    return next((line.split(" (")[0] for line in lines if line.startswith("dense-searchable")),
                next((line for line in lines if line.startswith("chunks")), ""))


def indexed_chunks(root: Path) -> tuple[list[str], list[str]]:
    """(the files ragloom indexed, its chunks as its embedder reads them)."""
    from ragloom import RAGConfig, RAGEngine

    with RAGEngine(RAGConfig(), root, read_only=True) as engine:
        paths = engine.get_all_indexed_paths()
        ids = engine.store.ids()
        chunks = [c for start in range(0, len(ids), 2000) for c in engine.store.get(ids[start:start + 2000])]
        text_of = engine._indexer.text_of
        return paths, [text_of(c.text, c.metadata) for c in chunks]


def raw_seconds(texts: list[str]) -> float:
    from ragloom import RAGConfig
    from ragloom.embeddings.registry import create_embedding_provider

    provider = create_embedding_provider(RAGConfig())
    provider.embed(["warm up"], "document")  # the model loads outside the timing
    started = time.perf_counter()
    provider.embed(texts, "document")
    return time.perf_counter() - started


def llama_run(root: Path, paths: list[str], work: Path) -> tuple[float, int]:
    from app_llama import LlamaSystem

    from ragloom import RAGConfig
    from ragloom.embeddings.registry import create_embedding_provider

    started = time.perf_counter()
    provider = create_embedding_provider(RAGConfig())
    cache = work / "llama-vectors.sqlite"
    cache.unlink(missing_ok=True)
    system = LlamaSystem("sentence", root, paths, provider, cache)
    return time.perf_counter() - started, len(system.nodes)


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f} s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--apps", nargs="+", default=["solidtime", "miniflux"])
    parser.add_argument("--root", type=Path, default=Path("/work/appsets"))
    parser.add_argument("--work-dir", type=Path, default=Path("/tmp/ragloom-first-answer"))
    parser.add_argument("--poll", type=float, default=1.0)
    parser.add_argument("--subset", nargs="*", default=[], metavar="APP=FOLDER",
                        help="index-time comparison on this folder of the app (default: whole app)")
    parser.add_argument("--skip-full", action="store_true", help="first answers only")
    parser.add_argument("--skip-first", action="store_true", help="index-time comparison only")
    parser.add_argument("--skip-llama", action="store_true")
    parser.add_argument("--skip-raw", action="store_true")
    args = parser.parse_args()
    subsets = dict(item.split("=", 1) for item in args.subset)
    answers, timings = [], []
    for app in args.apps:
        root = args.work_dir / app
        if not args.skip_first:
            copy_tree(args.root / app, root)
            load = os.getloadavg()[0]
            run = ragloom_run(root, QUERIES.get(app, "where is the main entry point"), args.poll,
                              stop_when_hybrid=True)
            print(f"{app}: {json.dumps(run)}", flush=True)
            run["one_search"] = search_seconds(root, QUERIES.get(app, "main"))
            answers.append((app, run, dense_line(root), load, os.getloadavg()[0]))
        if args.skip_full:
            continue
        part = args.work_dir / f"{app}-part"
        copy_tree(args.root / app / subsets.get(app, ""), part)
        load = os.getloadavg()[0]
        full = ragloom_run(part, None, 0, stop_when_hybrid=False)
        paths, texts = indexed_chunks(part)
        raw = None if args.skip_raw else raw_seconds(texts)
        llama = None if args.skip_llama else llama_run(part, paths, args.work_dir)
        print(f"{app}: {json.dumps(full)}; raw {raw}; LlamaIndex {llama}", flush=True)
        timings.append((f"{app}/{subsets.get(app, '')}".rstrip("/"), len(paths), full, len(texts), raw,
                        llama, load, os.getloadavg()[0]))
    print("\n| app (whole repository) | first file in BM25 | one search process | first answer "
          "| first hybrid answer | every file read, in BM25 | after Ctrl-C | load (1-min avg, start-end) |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | --- | --- |")
    for app, run, dense, load_start, load_end in answers:
        print(f"| {app} | {_seconds(run['first_in_bm25'])} | {_seconds(run['one_search'])} | "
              f"{_seconds(run['first_answer'])} | {_seconds(run['first_hybrid'])} | "
              f"{_seconds(run['all_files_read'])} | exit {run['exit']}, `{dense}` | "
              f"{load_start:.1f}-{load_end:.1f} |")
    if not timings:
        return
    print("\n| files indexed | files | ragloom full index (chunks embedded) | raw model, same chunks "
          "| LlamaIndex SentenceSplitter (nodes) | ragloom / raw | ragloom / LlamaIndex | load |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for name, files, full, chunks, raw, llama, load_start, load_end in timings:
        seconds = full["full_index"]
        print(f"| {name} | {files:,} | {seconds:.0f} s ({full['chunks_embedded']:,} of {chunks:,}) | "
              f"{'-' if raw is None else f'{raw:.0f} s'} | "
              f"{'-' if llama is None else f'{llama[0]:.0f} s ({llama[1]:,})'} | "
              f"{'-' if raw is None else f'{seconds / raw:.2f}'} | "
              f"{'-' if llama is None else f'{seconds / llama[0]:.2f}'} | {load_start:.1f}-{load_end:.1f} |")


if __name__ == "__main__":
    main()
