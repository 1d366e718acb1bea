"""The full index time of a whole application repository: ragloom's pure defaults against
LlamaIndex's SentenceSplitter over the same files with the same model and against the raw
model on ragloom's own chunks, each app one process, ratios within that process.

Per app and run, in one child process (``--one``), on the checkout as the dev sets use it
(``<apps-dir>/<app>``, bench/app_search.py), nothing cached from an earlier run or system:

* **ragloom**: ``RAGEngine(RAGConfig(index_dir=...))`` (every other setting its default:
  the local all-MiniLM-L6-v2, its default backend, the default store, progressive indexing)
  and ``index_directory()`` of the whole checkout into a fresh index folder (so a fresh
  embedding cache). Progressive indexing writes BM25 first and embeds behind;
  ``index_directory`` returns once ``Backfill.finish`` has stored every vector, and the run
  checks ``status().chunks_unembedded == 0`` (every chunk dense-searchable) before it stops
  the clock. Wall time includes the model's load. The provider's model calls are timed where
  they run (beside reading and chunking): the share of the wall time with none running is
  ragloom's time not embedding.
* **raw model**: ragloom's chunks exactly as its embedder read them (``text_of``: header and
  text), embedded by a new provider for the same config (same model, backend and calls of up
  to 1,024 texts), the model loaded before the clock starts: no reading, chunking or I/O.
* **sentence**: LlamaIndex's ``SentenceSplitter()`` (its defaults) over the files ragloom
  indexed, read + split + embedded (``node.get_content(MetadataMode.EMBED)``) with a new
  provider for the same model (its load inside the clock, as ragloom's), no vector cache:
  nothing is shared with ragloom or an earlier run.

Wall seconds and process CPU seconds (every thread) are kept per system in
``<work-dir>/<app>/run<N>.json`` with the load average, and ragloom's chunks by
file class with SentenceSplitter's nodes of the same files, by source_type, language and
kind (what ragloom embeds more of; ``chunks.json``). ``--tokens`` counts the model's own
tokens of both systems' texts and how many fit its window (what reaches the vectors).
The table prints medians over the runs found. On a loaded machine
``--sample N`` times the raw model and SentenceSplitter's embedding on N random chunks /
nodes and scales by the count (the model's time is linear in the texts; printed as such);
ragloom's index is always timed whole.

    HF_HUB_OFFLINE=1 nice -n 10 python bench/app_index_time.py --work-dir DIR \\
        [--apps solidtime babybuddy miniflux] [--runs 1] [--sample N] [--table-only] [--tokens]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from app_questions import is_import_only, is_test_path  # noqa: E402

APPS = ("solidtime", "babybuddy", "miniflux")


def _clock() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


def _since(start: tuple[float, float]) -> dict[str, float]:
    wall, cpu = _clock()
    return {"wall": round(wall - start[0], 1), "cpu": round(cpu - start[1], 1)}


def file_class(path: str) -> str:
    """A coarse class of a file, for what ragloom embeds more of than SentenceSplitter."""
    name = path.rsplit("/", 1)[-1]
    if is_test_path(path):
        return "test"
    if name.endswith((".csv", ".tsv", ".jsonl", ".ndjson")):
        return "data (CSV, TSV, JSON lines)"
    if name.endswith((".json", ".yaml", ".yml", ".toml", ".xml", ".neon", ".ini", ".lock")):
        return "config (JSON, YAML, XML, ...)"
    if "/migrations/" in f"/{path}" or "/migration/" in f"/{path}":
        return "migration"
    if name.endswith((".md", ".rst", ".txt")) or path.startswith("docs/"):
        return "docs"
    return "code/other"


def ragloom_index(root: Path, index: Path) -> dict:
    """Wall and CPU seconds of a fresh index of the whole checkout, until every chunk is
    dense-searchable; files, chunks, chunks embedded, the model's busy seconds."""
    from ragloom import RAGConfig, RAGEngine

    if index.exists():
        shutil.rmtree(index)
    busy = {"seconds": 0.0, "texts": 0}
    started = _clock()
    engine = RAGEngine(RAGConfig(index_dir=str(index)), root)
    provider = engine.provider
    embed_batch = provider._embed_batch  # the model call, timed where it runs

    def timed(texts, task):  # type: ignore[no-untyped-def]
        began = time.perf_counter()
        try:
            return embed_batch(texts, task)
        finally:
            busy["seconds"] += time.perf_counter() - began
            busy["texts"] += len(texts)

    provider._embed_batch = timed  # type: ignore[method-assign]
    report = engine.index_directory()
    status = engine.status(count_pending=False)
    timing = _since(started)
    engine.close()
    if status.chunks_unembedded:
        raise SystemExit(f"{root}: index_directory returned with {status.chunks_unembedded} "
                         "chunks not dense-searchable")
    timing.update(files=report.files_indexed, chunks=status.chunks, embedded=report.chunks_embedded,
                  busy=round(busy["seconds"], 1), busy_texts=busy["texts"],
                  skipped=report.files_skipped)
    return timing


def read_index(root: Path, index: Path) -> tuple[list[str], list[dict], list[str]]:
    """(chunk texts as the embedder read them, chunk facts, indexed paths) of an index in
    which every chunk is dense-searchable."""
    from ragloom import RAGConfig, RAGEngine

    with RAGEngine(RAGConfig(index_dir=str(index)), root, read_only=True) as engine:
        waiting = engine.status(count_pending=False).chunks_unembedded
        if waiting:
            raise SystemExit(f"{index}: {waiting} chunks are not dense-searchable")
        ids = engine.store.ids()
        chunks = [c for at in range(0, len(ids), 2000) for c in engine.store.get(ids[at:at + 2000])]
        text_of = engine._indexer.text_of
        texts = [text_of(c.text, c.metadata) for c in chunks]
        paths = engine.get_all_indexed_paths()
    facts = [{"path": str(c.metadata["path"]), "source_type": str(c.metadata.get("source_type")),
              "language": str(c.metadata.get("language")), "kind": str(c.metadata.get("kind")),
              "chars": len(c.text), "import_only": is_import_only(c.text)}
             for c in chunks]
    return texts, facts, paths


def _sample(texts: list[str], size: int, seed: int) -> list[str]:
    return texts if not size or size >= len(texts) else random.Random(seed).sample(texts, size)


def raw_model(texts: list[str], size: int, seed: int) -> dict:
    """The model alone on ragloom's chunk texts (or a random ``size`` of them: the time
    for all is then the sample's scaled by the count)."""
    from ragloom import RAGConfig
    from ragloom.embeddings.registry import create_embedding_provider

    provider = create_embedding_provider(RAGConfig())
    provider.embed(["warm up"], "document")  # the model loads outside the clock
    sample = _sample(texts, size, seed)
    started = _clock()
    provider.embed(sample, "document")
    spent = _since(started)
    scale = len(texts) / len(sample)
    return {"wall": round(spent["wall"] * scale, 1), "cpu": round(spent["cpu"] * scale, 1),
            "chunks": len(texts), "embedded": len(texts), "measured": len(sample)}


def sentence_splitter(root: Path, paths: list[str], size: int, seed: int) -> tuple[dict, Counter]:
    """LlamaIndex's SentenceSplitter: model load, read + split every file, embed its nodes
    (or a random ``size`` of them, the embedding time then scaled by the count)."""
    import llama_index.core.node_parser  # noqa: F401  # imported before the clock, as ragloom is
    from app_llama import split_files

    from ragloom import RAGConfig
    from ragloom.embeddings.registry import create_embedding_provider

    started = _clock()
    provider = create_embedding_provider(RAGConfig())
    provider.embed(["warm up"], "document")  # its load is inside the clock, as ragloom's is
    nodes, texts, _ = split_files("sentence", root, paths)
    before = _since(started)
    sample = _sample(texts, size, seed)
    embedding = _clock()
    provider.embed(sample, "document")
    spent = _since(embedding)
    scale = len(texts) / len(sample)
    timing = {"wall": round(before["wall"] + spent["wall"] * scale, 1),
              "cpu": round(before["cpu"] + spent["cpu"] * scale, 1), "split": before["wall"],
              "chunks": len(texts), "embedded": len(texts), "measured": len(sample)}
    return timing, Counter(path for path, *_ in nodes)


def one_run(app: str, root: Path, work: Path, run: int, size: int) -> None:
    """Every system once on one app, in this process; the figures to ``run<N>.json``.
    ragloom's figures go to ``run<N>.ragloom.json`` as soon as its index is done; a run
    finding that file and the index resumes after it."""
    work.mkdir(parents=True, exist_ok=True)
    load = [round(os.getloadavg()[0], 1)]
    saved = work / f"run{run}.ragloom.json"
    if not (saved.is_file() and (work / "ragloom").is_dir()):
        saved.write_text(json.dumps(ragloom_index(root, work / "ragloom"), indent=1))
    ragloom = json.loads(saved.read_text())
    texts, facts, paths = read_index(root, work / "ragloom")
    print(f"{app} run {run}: ragloom {ragloom}", flush=True)
    load.append(round(os.getloadavg()[0], 1))
    raw = raw_model(texts, size, run)
    print(f"{app} run {run}: raw model {raw}", flush=True)
    load.append(round(os.getloadavg()[0], 1))
    sentence, nodes = sentence_splitter(root, paths, size, run)
    print(f"{app} run {run}: sentence {sentence}", flush=True)
    load.append(round(os.getloadavg()[0], 1))
    (work / f"run{run}.json").write_text(json.dumps(
        {"ragloom": ragloom, "raw": raw, "sentence": sentence, "load": load}, indent=1))
    (work / "chunks.json").write_text(json.dumps({"ragloom": facts, "sentence_nodes": nodes}))


def print_breakdown(work_dir: Path, apps: list[str]) -> None:
    """ragloom's chunks against SentenceSplitter's nodes of the same files, by file class;
    ragloom's by source_type and language (the last run's ``chunks.json``)."""
    for app in apps:
        file = work_dir / app / "chunks.json"
        if not file.is_file():
            continue
        data = json.loads(file.read_text())
        facts, nodes = data["ragloom"], Counter(data["sentence_nodes"])
        print(f"\n{app}: {len(facts):,} ragloom chunks, {sum(nodes.values()):,} SentenceSplitter nodes")
        print("| file class | ragloom chunks | of which import-only | SentenceSplitter nodes | ratio |")
        print("| --- | ---: | ---: | ---: | ---: |")
        ours = Counter(file_class(f["path"]) for f in facts)
        imports = Counter(file_class(f["path"]) for f in facts if f["import_only"])
        theirs = Counter()
        for path, count in nodes.items():
            theirs[file_class(path)] += count
        for name, count in ours.most_common():
            print(f"| {name} | {count:,} | {imports[name]:,} | {theirs[name]:,} | "
                  f"{count / max(theirs[name], 1):.1f} |")
        for key in ("source_type", "language", "kind"):
            counts = Counter(f[key] for f in facts).most_common(10)
            print(f"by {key}: " + ", ".join(f"{name} {count:,}" for name, count in counts))
        chars = sorted(f["chars"] for f in facts)
        print(f"chunk characters: median {chars[len(chars) // 2]:,}, total {sum(chars):,}")


def print_tokens(work_dir: Path, apps_dir: Path, apps: list[str]) -> None:
    """How much of each system's text reaches the model: the model's own tokens of ragloom's
    chunks (as embedded) and of SentenceSplitter's nodes, and how many fit its window."""
    from app_llama import split_files

    from ragloom import RAGConfig
    from ragloom.embeddings.registry import create_embedding_provider

    provider = create_embedding_provider(RAGConfig())
    window = provider.max_seq_length - 2  # [CLS] and [SEP]
    for app in apps:
        texts, _, paths = read_index(apps_dir / app, work_dir / app / "ragloom")
        _, nodes, _ = split_files("sentence", apps_dir / app, paths)
        for name, part in (("ragloom", texts), ("SentenceSplitter", nodes)):
            counts = [len(ends) for ends in provider._token_ends(part)]
            seen, total = sum(min(c, window) for c in counts), sum(counts)
            over = sum(c > window for c in counts)
            print(f"{app} {name}: {len(part):,} texts, {total:,} tokens, {seen:,} ({seen / total:.0%}) "
                  f"reach the model; {over:,} ({over / len(part):.0%}) longer than its window of "
                  f"{window}; median {sorted(counts)[len(counts) // 2]} tokens", flush=True)


def _median(runs: list[dict], system: str, key: str) -> float:
    return statistics.median(float(r[system][key]) for r in runs)


def _runs(work: Path) -> list[Path]:
    """The finished runs' files (not ragloom's part of a run: ``run<N>.ragloom.json``)."""
    return sorted(f for f in work.glob("run*.json") if f.name.count(".") == 1)


def print_table(work_dir: Path, apps: list[str]) -> None:
    print("\n| app | runs | files | system | chunks embedded | wall s | chunks/s | CPU s "
          "| chunks per CPU s | wall / raw model | load (1-min) |")
    print("| --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for app in apps:
        runs = [json.loads(f.read_text()) for f in _runs(work_dir / app)]
        if not runs:
            continue
        files = int(_median(runs, "ragloom", "files"))
        raw = _median(runs, "raw", "wall")
        loads = [x for r in runs for x in r["load"]]
        for system, label in (("ragloom", "ragloom defaults"), ("sentence", "SentenceSplitter"),
                              ("raw", "raw model, ragloom's chunks")):
            embedded = int(_median(runs, system, "embedded" if system != "raw" else "chunks"))
            wall, cpu = _median(runs, system, "wall"), _median(runs, system, "cpu")
            measured = int(_median(runs, system, "measured")) if "measured" in runs[0][system] else 0
            if measured and measured < embedded:
                label += f" (timed on {measured:,} random, scaled)"
            print(f"| {app} | {len(runs)} | {files:,} | {label} | {embedded:,} | {wall:.0f} | "
                  f"{embedded / wall:.1f} | {cpu:.0f} | {embedded / cpu:.0f} | {wall / raw:.2f} | "
                  f"{min(loads):.1f}-{max(loads):.1f} |")
        idle = statistics.median(1 - r["ragloom"]["busy"] / r["ragloom"]["wall"] for r in runs)
        by_cpu = statistics.median(1 - r["raw"]["cpu"] / r["ragloom"]["cpu"] for r in runs)
        by_wall = statistics.median(1 - r["raw"]["wall"] / r["ragloom"]["wall"] for r in runs)
        print(f"| {app} | | | ragloom's time not embedding: {idle:.0%} of its wall the model was idle; "
              f"1 - raw / ragloom: CPU {by_cpu:.0%}, wall {by_wall:.0%} | | | | | | | |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--apps", nargs="*", default=list(APPS))
    parser.add_argument("--apps-dir", type=Path,
                        default=Path(os.environ.get("RAGLOOM_APPSETS", "/work/appsets")))
    parser.add_argument("--work-dir", type=Path, default=Path("/tmp/ragloom-app-index-time"))
    parser.add_argument("--runs", type=int, default=1, help="runs per app (each its own process)")
    parser.add_argument("--sample", type=int, default=0,
                        help="time the raw model and SentenceSplitter's embedding on this many "
                             "random chunks / nodes and scale by the count (0: all)")
    parser.add_argument("--tokens", action="store_true",
                        help="also count the model's tokens of each system's texts (reads the indexes)")
    parser.add_argument("--table-only", action="store_true", help="print the runs found")
    parser.add_argument("--one", nargs=2, metavar=("APP", "RUN"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        app, run = args.one[0], int(args.one[1])
        one_run(app, args.apps_dir / app, args.work_dir / app, run, args.sample)
        return
    if not args.table_only:
        for app in args.apps:
            done = len(_runs(args.work_dir / app))
            for run in range(done, done + args.runs):
                subprocess.run([sys.executable, __file__, "--one", app, str(run), "--apps-dir",
                                str(args.apps_dir), "--work-dir", str(args.work_dir),
                                "--sample", str(args.sample)], check=True)
    print_table(args.work_dir, args.apps)
    print_breakdown(args.work_dir, args.apps)
    if args.tokens:
        print_tokens(args.work_dir, args.apps_dir, args.apps)


if __name__ == "__main__":
    main()
