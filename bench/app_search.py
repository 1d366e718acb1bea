"""Whole application repositories, searched the way a developer joining the project asks:
ragloom's pure defaults against LlamaIndex's SentenceSplitter and CodeSplitter over the same
files with the same model, per question kind (bench/app_sets/*.toml, bench/app_questions.py).

Checkouts are not part of this repository. Each set names its repository and commit; put
the checkout in ``<apps-dir>/<name>`` (``--apps-dir``, or ``RAGLOOM_APPSETS``, default
``/work/appsets``), e.g.::

    git clone https://github.com/solidtime-io/solidtime /work/appsets/solidtime
    git -C /work/appsets/solidtime checkout 114a32536df5f3fbc1c4f44ad34d4963e57af09c

(or ``git archive <commit> | tar -x -C /work/appsets/<name>`` from a bare mirror).

Systems, all with the local all-MiniLM-L6-v2 (HF_HUB_OFFLINE=1):

- ``ragloom``: a default ``RAGEngine`` (default Chroma store, default hybrid retrieval and
  relevance gate) indexing the WHOLE checkout (``index_directory()``, no include/exclude),
  its index in ``<work-dir>/<app>/ragloom`` (kept between runs; ``--fresh`` rebuilds it
  from the embedding cache). Its results' ``path``/``start_line``/``end_line`` are graded.
  The one exception to "whole": files ragloom's chunker does not finish on within 30 s
  (bench/app_probe.py: minified bundles) are excluded, printed, and recorded; the other
  systems then get the same files.
- ``sentence``: LlamaIndex's ``SentenceSplitter()`` (its defaults) over the files ragloom
  indexed, read as UTF-8 text, each a ``Document`` with ``file_path`` metadata; what
  LlamaIndex embeds is ``node.get_content(MetadataMode.EMBED)`` (``file_path: ...`` first);
  dense cosine top 10 (what a ``VectorStoreIndex`` retriever does), embedded with ragloom's
  provider for the same model, vectors cached in ``<work-dir>/llama_vectors.sqlite``.
- ``code``: LlamaIndex's ``CodeSplitter`` (its defaults) for files a grammar wheel parses
  (PHP, JavaScript, TypeScript, TSX, Go, Python, Rust), ``SentenceSplitter`` for the others
  and for files CodeSplitter fails on (counted); otherwise as ``sentence``.

Grading and the noise counts are in bench/app_questions.py: nDCG@10 (line overlap, each
gold span credited once), hit@5, and in the top 5 of every question not about tests /
imports, how many results are test files or import-only chunks. Index time is the wall
time of one full index (ragloom: ``index_directory``; LlamaIndex: read + split + embed) the
first time (no cached vectors), recorded in ``<work-dir>/<app>/timings.json``; ``code``
reuses the vectors ``sentence`` made for identical chunks (files without a grammar), so
its time covers only the chunks it embedded itself (``embedded``).

    nice -n 10 python bench/app_search.py [--apps solidtime babybuddy miniflux vaultwarden]
        [--systems ragloom sentence code] [--show] [--fresh]
        [--variants max_per_file=2 max_per_file=1,test_weight=0.7 ...]

``--variants``: the ragloom index searched again with other ``retrieval`` settings, each
a column of its own (``ragloom[max_per_file=2]``), so defaults are compared on one index.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from collections import Counter
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from app_llama import LlamaSystem  # noqa: E402
from app_probe import hanging_files  # noqa: E402
from app_questions import (  # noqa: E402
    KINDS,
    AppSet,
    app_set_names,
    check_spans,
    hit_at,
    is_import_only,
    is_test_path,
    load_app_set,
    ndcg_at,
    with_copies,
)

from ragloom import RAGConfig, RAGEngine  # noqa: E402
from ragloom.ownership import INDEX_MARKER  # noqa: E402

SYSTEMS = ("ragloom", "sentence", "code")
LOCK_FILES = frozenset({"composer.lock", "package-lock.json", "pnpm-lock.yaml", "yarn.lock",
                        "Cargo.lock", "poetry.lock", "Pipfile.lock", "go.sum", "Gemfile.lock"})
Result = tuple[str, int, int, str]  # path, first line, last line, text


def _timings(work: Path) -> dict:
    file = work / "timings.json"
    return json.loads(file.read_text()) if file.is_file() else {}


def _record(work: Path, system: str, entry: dict) -> None:
    timings = _timings(work)
    timings[system] = entry
    (work / "timings.json").write_text(json.dumps(timings, indent=1))


class RagloomSystem:
    """ragloom's defaults over the whole checkout."""

    def __init__(self, root: Path, work: Path, fresh: bool) -> None:
        index = work / "ragloom"
        cold = not (index / "embeddings.sqlite").is_file()
        if fresh and index.is_dir():  # rebuilt; the embedding cache is kept
            for entry in index.iterdir():
                if entry.name not in ("embeddings.sqlite", INDEX_MARKER):
                    shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
        self.engine = RAGEngine(RAGConfig(index_dir=str(index)), root)
        probe_started = time.perf_counter()
        self.excluded = hanging_files(self.engine, root, work)
        probe_seconds = time.perf_counter() - probe_started
        for path, why in self.excluded.items():
            print(f"  EXCLUDED from every system: {path}: {why}", flush=True)
        started = time.perf_counter()
        report = self.engine.index_directory(exclude=sorted(self.excluded) or None)
        seconds = time.perf_counter() - started
        chunks = self.engine.store.get(self.engine.store.ids())
        self.paths = sorted({str(c.metadata["path"]) for c in chunks})
        self.chunks = len(chunks)
        self.test_chunks = sum(is_test_path(str(c.metadata["path"])) for c in chunks)
        self.import_chunks = sum(is_import_only(c.text) for c in chunks)
        self.lock_chunks = sum(Path(str(c.metadata["path"])).name in LOCK_FILES for c in chunks)
        languages = Counter(str(c.metadata.get("language")) for c in chunks)
        vue = Counter(str(c.metadata.get("language")) for c in chunks
                      if str(c.metadata["path"]).endswith(".vue"))
        self.composition = (f"languages {dict(languages.most_common(8))}; .vue chunks by "
                            f"language {dict(vue)}; lock-file chunks {self.lock_chunks}")
        if report.chunks_added:
            entry = {"seconds": round(seconds, 1), "chunks": self.chunks,
                     "embedded": report.chunks_embedded, "cold": cold,
                     "files": report.files_indexed, "skipped": report.files_skipped,
                     "probe_seconds": round(probe_seconds, 1), "excluded": self.excluded}
            _record(work, "ragloom" if cold else "ragloom-warm", entry)

    def search(self, question: str) -> list[Result]:
        self.last = self.engine.search(question, 10)
        return [(str(r.metadata["path"]), int(r.metadata["start_line"]), int(r.metadata["end_line"]),
                 r.text) for r in self.last]

    def close(self) -> None:
        self.engine.close()


class CopiesSystem:
    """ragloom's results graded with identical copies credited (``ragloom+copies``).

    A result standing for several files with the same text (``metadata["paths"]``: a
    migration kept once per database, a vendored copy) is read as those files one after
    another at its rank, each at the lines where the text is in it, the list cut at 10
    again: what LlamaIndex returns as separate results takes as many places here, so the
    copies are credited without a free slot. The plain ``ragloom`` column credits only
    the result's own path (a question whose gold is three copies scores at most 0.47)."""

    def __init__(self, ragloom: RagloomSystem, root: Path) -> None:
        self.ragloom, self.root = ragloom, root

    def search(self, question: str) -> list[Result]:
        results = self.ragloom.search(question)
        copies = [[str(p) for p in r.metadata.get("paths") or []][1:] for r in self.ragloom.last]
        return with_copies(results, copies, self.root)


def parse_variant(variant: str) -> dict[str, object]:
    """``"max_per_file=2,test_weight=0.7"`` -> retrieval settings."""
    pairs = [item.split("=", 1) for item in variant.split(",") if item.strip()]
    if not pairs or any(len(pair) != 2 for pair in pairs):
        raise SystemExit(f"--variants: {variant!r} is not key=value[,key=value...]")
    return {key.strip(): _number(value.strip()) for key, value in pairs}


def _number(value: str) -> object:
    """``"2"`` -> 2, ``"0.5"`` -> 0.5, ``"true"`` -> True; other text as it is."""
    if value.lower() in ("true", "false"):
        return value.lower() == "true"
    for kind in (int, float):
        try:
            return kind(value)
        except ValueError:
            continue
    return value


class VariantSystem:
    """The ragloom system's index searched with other ``retrieval`` settings."""

    def __init__(self, ragloom: RagloomSystem, variant: str) -> None:
        self.ragloom, self.settings = ragloom, parse_variant(variant)

    def search(self, question: str) -> list[Result]:
        retrieval = self.ragloom.engine.config.retrieval
        saved = {key: getattr(retrieval, key) for key in self.settings}
        try:
            for key, value in self.settings.items():
                setattr(retrieval, key, value)  # validated (and converted) by the config
            return self.ragloom.search(question)
        finally:
            for key, value in saved.items():
                setattr(retrieval, key, value)


def run_app(app: AppSet, root: Path, work: Path, systems: list[str], fresh: bool,
            show: bool, variants: tuple[str, ...] = ()) -> dict[str, dict[str, list]]:
    """Per system: per question (kind, nDCG@10, hit@5, tests in top 5, imports in top 5)."""
    problems = check_spans(app, root)
    if problems:
        raise SystemExit(f"{app.name}: gold spans do not match {root}:\n  " + "\n  ".join(problems))
    work.mkdir(parents=True, exist_ok=True)
    print(f"\n== {app.name} ({app.repo} @ {app.commit[:12]}, {len(app.questions)} questions)",
          flush=True)
    ragloom = RagloomSystem(root, work, fresh)
    print(f"ragloom: {len(ragloom.paths)} files, {ragloom.chunks} chunks "
          f"({ragloom.test_chunks} in test files, {ragloom.import_chunks} import-only)\n  "
          f"{ragloom.composition}", flush=True)
    engines: dict[str, object] = {}
    if "ragloom" in systems:
        engines["ragloom"] = ragloom
        engines["ragloom+copies"] = CopiesSystem(ragloom, root)
    for name in ("sentence", "code"):
        if name in systems:
            system = LlamaSystem(name, root, ragloom.paths, ragloom.engine.provider,
                                 work.parent / "llama_vectors.sqlite")
            if system.embedded and name not in _timings(work):  # its first run
                _record(work, name, {"seconds": round(system.seconds, 1),
                                     "split_seconds": round(system.split_seconds, 1),
                                     "chunks": len(system.nodes), "embedded": system.embedded})
            print(f"{name}: {len(system.nodes)} chunks ({system.test_chunks} in test files, "
                  f"{system.import_chunks} import-only){system.notes}", flush=True)
            engines[name] = system
    for variant in variants:  # ragloom again with other retrieval settings, same index
        engines[f"ragloom[{variant}]"] = VariantSystem(ragloom, variant)
    scores: dict[str, dict[str, list]] = {}
    for name, system in engines.items():
        rows = {}
        for question in app.questions:
            results = system.search(question.text)  # type: ignore[attr-defined]
            spans = [(p, a, b) for p, a, b, _ in results]
            top = results[:5]
            tests = 0 if question.about_tests else sum(is_test_path(p) for p, _, _, _ in top)
            imports = 0 if question.about_imports else sum(is_import_only(t) for *_, t in top)
            rows[question.id] = (question.kind, ndcg_at(spans, question.gold),
                                 hit_at(spans, question.gold), tests, imports)
            if show:
                print(f"  [{name}] {question.id} {question.kind:<9} nDCG {rows[question.id][1]:.2f} "
                      f"{question.text!r}")
                for path, first, last, text in top:
                    mark = "*" if any(s.overlaps(path, first, last) for s in question.gold) else " "
                    flags = ("T" if is_test_path(path) else " ") + ("I" if is_import_only(text) else " ")
                    print(f"      {mark}{flags} {path}:{first}-{last}")
        scores[name] = rows
    ragloom.close()
    print_table(app.name, scores, _timings(work))
    return scores


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else float("nan")


def print_table(title: str, scores: dict[str, dict[str, tuple]], timings: dict) -> None:
    """One row per kind and overall: nDCG@10 / hit@5 per system; then the noise counts."""
    names = list(scores)
    print(f"\n{title}: nDCG@10 / hit@5")
    widths = [max(18, len(n) + 2) for n in names]
    print(f"{'kind':<11}{'n':>4}" + "".join(f"{n:>{w}}" for n, w in zip(names, widths)))
    kinds = [k for k in KINDS if any(r[0] == k for rows in scores.values() for r in rows.values())]
    for kind in [*kinds, "overall"]:
        cells, count = [], 0
        for name in names:
            rows = [r for r in scores[name].values() if kind in ("overall", r[0])]
            count = len(rows)
            cells.append(f"{_mean([r[1] for r in rows]):.3f} / {_mean([float(r[2]) for r in rows]):.2f}")
        print(f"{kind:<11}{count:>4}" + "".join(f"{c:>{w}}" for c, w in zip(cells, widths)))
    for label, column in (("tests@5", 3), ("imports@5", 4)):
        print(f"{label:<15}" + "".join(f"{sum(r[column] for r in scores[n].values()):>{w}}"
                                       for n, w in zip(names, widths)))
    if timings:
        print("index (first full run): " + "; ".join(
            f"{name} {entry['seconds']} s, {entry['chunks']} chunks, {entry.get('embedded', '?')} embedded"
            for name, entry in timings.items() if name in names or name == "ragloom-warm"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--apps", nargs="*", default=app_set_names())
    parser.add_argument("--systems", nargs="*", default=list(SYSTEMS), choices=SYSTEMS)
    parser.add_argument("--apps-dir", default=os.environ.get("RAGLOOM_APPSETS", "/work/appsets"))
    parser.add_argument("--work-dir", default="/tmp/ragloom-app-search")
    parser.add_argument("--fresh", action="store_true", help="rebuild ragloom's index (cached vectors)")
    parser.add_argument("--show", action="store_true", help="print each question's top 5")
    parser.add_argument("--variants", nargs="*", default=[],
                        help="ragloom again with retrieval settings, e.g. max_per_file=2,test_weight=0.7")
    args = parser.parse_args()
    overall: dict[str, dict[str, tuple]] = {}
    for name in args.apps:
        app = load_app_set(name)  # a set's name, or the path of its file
        scores = run_app(app, Path(args.apps_dir) / app.name, Path(args.work_dir) / app.name,
                         args.systems, args.fresh, args.show, tuple(args.variants))
        for system, rows in scores.items():
            overall.setdefault(system, {}).update({f"{app.name}/{q}": r for q, r in rows.items()})
    if len(args.apps) > 1:
        print_table("all apps", overall, {})


if __name__ == "__main__":
    main()
