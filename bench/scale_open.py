"""Opening a large index: cold `ragloom search`, warm latency, bytes written while indexing.

Builds (once, cached under --work) a corpus of N markdown files (default 40,000, about
200 MB: ten sections of ~500 characters each, words drawn from a Zipf law over a 60,000
word vocabulary) and indexes it with the hash embedder and the TurboQuant store (the model
is left out: this measures ragloom). Then prints:

- build: seconds, peak RSS, bytes written (``/proc/self/io`` write_bytes of the indexing
  process, and wchar: what it handed to write()), final index size and the ratio;
- cold ``ragloom search``: wall time and peak RSS of a new process (median of --runs);
  the page cache is warm (dropping it needs root);
- warm p50 latency per mode (dense, sparse, hybrid) in one read-only engine.

    nice python bench/scale_open.py [--files 40000] [--work /tmp/ragloom-scale] [--runs 5]
    python bench/scale_open.py --warm-only --against OTHER_CHECKOUT/src   (two versions, one run)
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

CONFIG = """[rag]
embedding.provider = "hash"
index_dir = ".ragloom"
respect_gitignore = false

[rag.vector_store]
provider = "turboquant"
"""
WORDS_PER_SECTION = 52
QUERIES = ["orbit velocity thermal", "nozzle pressure gradient", "laminar boundary layer",
           "shock wave interaction", "heat transfer coefficient", "vortex shedding frequency"]


def make_corpus(root: Path, files: int) -> None:
    """Deterministic markdown files (skipped when already complete)."""
    done = root / ".complete"
    if done.is_file() and done.read_text() == f"{files} {WORDS_PER_SECTION}":
        return
    shutil.rmtree(root, ignore_errors=True)
    rng = random.Random(7)
    syllables = ["ka", "to", "ri", "mon", "sel", "va", "dun", "pe", "lor", "ix", "qua", "ben",
                 "sor", "til", "um", "gra", "fe", "no", "zar", "wi"]
    vocabulary = list(dict.fromkeys("".join(rng.choice(syllables) for _ in range(rng.randint(2, 4)))
                                    for _ in range(80_000)))[:60_000]
    vocabulary[:len(QUERIES) * 3] = [w for q in QUERIES for w in q.split()]
    weights = list(itertools.accumulate(1.0 / (rank + 10) for rank in range(len(vocabulary))))
    for index in range(files):
        sections = []
        for part in range(10):
            words = rng.choices(vocabulary, cum_weights=weights, k=WORDS_PER_SECTION)
            sections.append(f"## Section {part} {words[0]} {words[1]}\n\n" + " ".join(words) + ".\n")
        path = root / f"d{index // 1000:03d}" / f"doc{index:05d}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# Document {index}\n\n" + "\n".join(sections), encoding="utf-8")
    (root / "ragloom.toml").write_text(CONFIG, encoding="utf-8")
    done.write_text(f"{files} {WORDS_PER_SECTION}")


def io_counters() -> dict[str, int]:
    fields = dict(line.split(": ") for line in Path("/proc/self/io").read_text().splitlines())
    return {key: int(value) for key, value in fields.items()}


def child_build(root: Path) -> None:
    """Index ``root`` in this process and print its figures as JSON."""
    from ragloom import RAGEngine

    before = io_counters()
    started = time.perf_counter()
    with RAGEngine.from_toml(root / "ragloom.toml") as engine:
        report = engine.index_directory()
        chunks = engine.count()
    after = io_counters()
    print(json.dumps({"seconds": time.perf_counter() - started, "chunks": chunks,
                      "files": report.files_indexed,
                      "write_bytes": after["write_bytes"] - before["write_bytes"],
                      "wchar": after["wchar"] - before["wchar"],
                      "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))


def run_measured(command: list[str], cwd: Path) -> tuple[float, str]:
    """Wall seconds and stdout of one child process (with bytecode written and read, as an
    installed package has it: no PYTHONDONTWRITEBYTECODE)."""
    environment = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    started = time.perf_counter()
    child = subprocess.run(command, cwd=cwd, capture_output=True, env=environment)
    seconds = time.perf_counter() - started
    if child.returncode:
        raise SystemExit(f"{command} failed: {child.stderr.decode()[-2000:]}")
    return seconds, child.stdout.decode()


def cold_search(root: Path, runs: int) -> tuple[float, float]:
    """Median wall seconds and the peak RSS of ``ragloom search`` in new processes."""
    times, peaks = [], []
    for run in range(runs):
        command = [sys.executable, "-c", _RSS_WRAPPER, "--config", str(root / "ragloom.toml"),
                   "search", QUERIES[run % len(QUERIES)]]
        seconds, out = run_measured(command, root)
        times.append(seconds)
        peaks.append(float(out.strip().splitlines()[-1]))
    return statistics.median(times), max(peaks)


#: Runs the CLI, then prints its own peak RSS in MB on the last line.
_RSS_WRAPPER = """
import resource, sys
try:
    from ragloom.apps.cli import main
except ImportError:  # before the CLI moved to ragloom.apps
    from ragloom.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
"""


def warm_latency(root: Path, queries: int, cpu: bool = False) -> dict[str, float]:
    """p50 milliseconds of engine.search per mode in one read-only engine (query embedding
    included: the hash embedder costs microseconds); with ``cpu`` the process's CPU time
    instead of the wall clock, which a loaded machine inflates far less."""
    clock = time.process_time if cpu else time.perf_counter
    engine, texts = warm_engine(root, queries)
    figures = {}
    for mode in ("dense", "sparse", "hybrid"):
        laps = []
        for text in texts:
            started = clock()
            engine.search(text, 10, mode=mode)
            laps.append((clock() - started) * 1000)
        figures[mode] = statistics.median(laps)
    engine.close()
    return figures


def warm_engine(root: Path, queries: int) -> tuple[Any, list[str]]:
    """A read-only engine on the index, each mode searched once, and ``queries`` texts."""
    from ragloom import RAGEngine
    from ragloom.config import load_config

    engine = RAGEngine(load_config(root / "ragloom.toml"), root, read_only=True)
    rng = random.Random(3)
    words = " ".join(QUERIES).split()
    texts = [" ".join(rng.sample(words, 3)) for _ in range(queries)]
    for mode in ("dense", "sparse", "hybrid"):
        engine.search(texts[0], 10, mode=mode)
    return engine, texts


def serve_queries(root: Path) -> None:
    """A worker of ``compare_versions``: for each ``mode start count`` line on stdin, the
    wall milliseconds of those queries, as one JSON list per line."""
    engine, texts = warm_engine(root, 200)
    print("ready", flush=True)
    for line in sys.stdin:
        mode, start, count = line.split()
        laps = []
        for text in texts[int(start):int(start) + int(count)]:
            started = time.perf_counter()
            engine.search(text, 10, mode=mode)
            laps.append((time.perf_counter() - started) * 1000)
        print(json.dumps(laps), flush=True)
    engine.close()


def compare_versions(root: Path, sources: list[Path], batches: int = 20) -> None:
    """Warm p50 of two versions (each a ``src`` folder) in one run: two worker processes
    answer the same queries in alternating batches of 10, so load changes hit both alike."""
    workers = []
    for source in sources:
        env = dict(os.environ, PYTHONPATH=str(source))
        worker = subprocess.Popen([sys.executable, __file__, "--serve-queries", str(root)], env=env,
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert worker.stdout is not None and worker.stdout.readline().strip() == "ready"
        workers.append(worker)
    for mode in ("dense", "sparse", "hybrid"):
        laps: list[list[float]] = [[] for _ in workers]
        for batch in range(batches):
            for index in (range(len(workers)) if batch % 2 == 0 else reversed(range(len(workers)))):
                worker = workers[index]
                assert worker.stdin is not None and worker.stdout is not None
                worker.stdin.write(f"{mode} {batch * 10 % 200} 10\n")
                worker.stdin.flush()
                laps[index] += json.loads(worker.stdout.readline())
        first, second = (statistics.median(times) for times in laps)
        print(f"warm p50 {mode}: {sources[0]} {first:.1f} ms, {sources[1]} {second:.1f} ms, "
              f"ratio {first / second:.3f}")
    for worker in workers:
        assert worker.stdin is not None
        worker.stdin.close()
        worker.wait()


def index_bytes(root: Path) -> dict[str, int]:
    folder = root / ".ragloom"
    sizes: dict[str, int] = {}
    for path in folder.rglob("*"):
        if path.is_file():
            top = path.relative_to(folder).parts[0]
            sizes[top] = sizes.get(top, 0) + path.stat().st_size
    return sizes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=40_000)
    parser.add_argument("--work", type=Path, default=Path("/tmp/ragloom-scale"))
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--keep-index", action="store_true", help="reuse an index already built")
    parser.add_argument("--warm-only", action="store_true",
                        help="only the warm latency of the index already built (run it alternately "
                             "with another version's PYTHONPATH and --work to compare)")
    parser.add_argument("--cpu", action="store_true",
                        help="warm latency in CPU time of the process instead of wall time")
    parser.add_argument("--against", type=Path, metavar="SRC",
                        help="with --warm-only: compare this checkout with another version's src "
                             "folder in one run (alternating batches of queries)")
    parser.add_argument("--child-build", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--serve-queries", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_build:
        child_build(args.child_build)
        return
    if args.serve_queries:
        serve_queries(args.serve_queries)
        return
    root = args.work / f"corpus-{args.files}"
    if args.warm_only and args.against:
        compare_versions(root, [Path(__file__).resolve().parents[1] / "src", args.against.resolve()])
        return
    if args.warm_only:
        warm = warm_latency(root, args.queries, args.cpu)
        print(f"warm p50{' (CPU time)' if args.cpu else ''}: "
              + ", ".join(f"{mode} {ms:.1f} ms" for mode, ms in warm.items()))
        return
    started = time.perf_counter()
    make_corpus(root, args.files)
    text_bytes = sum(p.stat().st_size for p in root.rglob("*.md"))
    print(f"corpus: {args.files} files, {text_bytes / 1e6:.0f} MB ({time.perf_counter() - started:.0f} s)")
    if not (args.keep_index and (root / ".ragloom").is_dir()):
        shutil.rmtree(root / ".ragloom", ignore_errors=True)
        _, out = run_measured([sys.executable, __file__, "--child-build", str(root)], root)
        build = json.loads(out.strip().splitlines()[-1])
        sizes = index_bytes(root)
        total = sum(sizes.values())
        print(f"build: {build['chunks']} chunks in {build['seconds']:.0f} s, peak RSS "
              f"{build['peak_rss_mb']:.0f} MB; wrote {build['write_bytes'] / 1e9:.2f} GB "
              f"(write_bytes; wchar {build['wchar'] / 1e9:.2f} GB) for a {total / 1e9:.2f} GB index: "
              f"{build['write_bytes'] / total:.2f}x (wchar {build['wchar'] / total:.2f}x)")
        print("index by part: " + ", ".join(f"{name} {size / 1e6:.0f} MB"
                                            for name, size in sorted(sizes.items(), key=lambda i: -i[1])))
    seconds, peak = cold_search(root, args.runs)
    print(f"cold `ragloom search`: {seconds:.2f} s median of {args.runs}, peak RSS {peak:.0f} MB")
    warm = warm_latency(root, args.queries)
    print("warm p50: " + ", ".join(f"{mode} {ms:.1f} ms" for mode, ms in warm.items()))


if __name__ == "__main__":
    main()
