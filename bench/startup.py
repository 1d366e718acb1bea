"""Cold-start time of ragloom's entry points, each a fresh process, as the median of
``--runs`` (5) and as a ratio to ``python -c "import numpy"`` measured in the same rounds
(the rounds interleave the commands, so machine noise hits them alike):

* ``python -c "import ragloom"``
* ``ragloom status``
* ``ragloom search QUERY``
* an MCP client's wait for ``ragloom mcp`` (stdio, the SDK's client): start -> initialize
  -> the first ``rag_search`` answer
* ``RAGEngine.from_toml`` + the first search, in a fresh ``python -c``

then the ten packages whose imports cost ``ragloom search`` most (``python -X importtime``,
self time summed per top-level package).

The project: the installed ``rich`` package's sources (``--corpus`` for another folder),
default config (local model with its default backend, default store), indexed once
before timing; the exported ONNX model is cached first (the figures are for the cached
model; ``--work-dir`` keeps the index for reruns). ragloom's bytecode is compiled first, as
installing it does (``PYTHONDONTWRITEBYTECODE`` is dropped for the timed processes).

With ``--scale``, instead: cold ``ragloom search`` and ``ragloom status`` per store at 10k
and 100k chunks beside ``import numpy`` (bench/startup_scale.py).

    python bench/startup.py [--runs 5] [--corpus DIR] [--query TEXT] [--work-dir DIR]
    python bench/startup.py --scale [--sizes 10000 100000] [--stores turboquant chroma postgres]
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

from _timing import print_rounds, timed

os.environ.setdefault("HF_HUB_OFFLINE", "1")
# An installed package has its bytecode compiled (pip does it); a checkout run with
# PYTHONDONTWRITEBYTECODE=1 would compile every ragloom module in every timed process.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
PYTHON = sys.executable
RAGLOOM = [PYTHON, "-m", "ragloom"]


def default_corpus() -> Path:
    spec = importlib.util.find_spec("rich")
    if spec is None or spec.origin is None:
        return Path(__file__).resolve().parent.parent / "src"
    return Path(spec.origin).parent


def compile_ragloom() -> None:
    """Compile ragloom's modules to bytecode once, as installing it does."""
    import compileall

    spec = importlib.util.find_spec("ragloom")
    if spec is not None and spec.origin is not None:
        compileall.compile_dir(Path(spec.origin).parent, quiet=1)


def prepare(corpus: Path, work_dir: Path) -> Path:
    """A project holding the corpus's text files in a folder of its name (``python -m``
    puts the working folder on sys.path: rich's own ``logging.py`` must not be found
    there) and an empty ``ragloom.toml``, indexed."""
    project = work_dir / "project"
    if not (project / "ragloom.toml").is_file():
        for path in sorted(corpus.rglob("*")):
            text = path.suffix in (".py", ".md", ".rst", ".txt") and "__pycache__" not in path.parts
            if text and path.is_file():
                target = project / corpus.name / path.relative_to(corpus)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, target)
        (project / "ragloom.toml").write_text("[rag]\n", encoding="utf-8")
    started = time.monotonic()
    subprocess.run([*RAGLOOM, "index"], cwd=project, check=True, stdout=subprocess.DEVNULL)
    print(f"indexed {project} in {time.monotonic() - started:.1f}s", flush=True)
    return project


def mcp_first_answer(project: Path, query: str) -> float:
    """Seconds from starting ``ragloom mcp`` to its first rag_search answer (SDK client)."""
    from mcp import Client, StdioServerParameters

    async def session() -> float:
        started = time.perf_counter()
        server = StdioServerParameters(command=PYTHON, args=["-m", "ragloom", "mcp"], cwd=str(project),
                                       env=dict(os.environ))
        async with Client(server, read_timeout_seconds=300) as client:
            result = await client.call_tool("rag_search", {"query": query, "top_k": 5})
            elapsed = time.perf_counter() - started
            if result.is_error:
                raise RuntimeError(f"rag_search failed: {result.content}")
        return elapsed

    return asyncio.run(session())


def import_costs(project: Path, query: str, top: int = 10) -> list[tuple[str, float]]:
    """(top-level package, summed self import ms) of ``ragloom search``, largest first."""
    run = subprocess.run([PYTHON, "-X", "importtime", "-m", "ragloom", "search", query], cwd=project,
                         capture_output=True, text=True, check=True)
    totals: dict[str, float] = defaultdict(float)
    for line in run.stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        self_us, _cumulative, name = (part.strip() for part in line[len("import time:"):].split("|"))
        totals[name.split(".")[0]] += int(self_us) / 1000
    return sorted(totals.items(), key=lambda item: -item[1])[:top]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--corpus", type=Path, default=None, help="folder to index (default: rich)")
    parser.add_argument("--query", default="live display that refreshes the progress bar")
    parser.add_argument("--work-dir", type=Path, default=None, help="keep the index here for reruns")
    parser.add_argument("--scale", action="store_true", help="per store at --sizes chunks")
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--stores", nargs="+", default=["turboquant", "chroma", "postgres"])
    args = parser.parse_args()
    work_dir = args.work_dir or Path(tempfile.mkdtemp(prefix="ragloom-startup-"))
    work_dir.mkdir(parents=True, exist_ok=True)
    compile_ragloom()
    if args.scale:
        from startup_scale import scale_table

        scale_table(work_dir, args.runs, args.sizes, args.stores)
        return
    project = prepare(args.corpus or default_corpus(), work_dir)
    subprocess.run([*RAGLOOM, "search", args.query], cwd=project, check=True,
                   stdout=subprocess.DEVNULL)  # exports the model once if it is not cached
    engine_code = ("from ragloom import RAGEngine\n"
                   f"engine = RAGEngine.from_toml({str(project / 'ragloom.toml')!r})\n"
                   f"engine.search({args.query!r})\nengine.close()\n")
    measures: dict[str, Callable[[], float]] = {
        'python -c "import numpy"': lambda: timed([PYTHON, "-c", "import numpy"], project),
        'python -c "import ragloom"': lambda: timed([PYTHON, "-c", "import ragloom"], project),
        "ragloom status": lambda: timed([*RAGLOOM, "status"], project),
        "ragloom search": lambda: timed([*RAGLOOM, "search", args.query], project),
        "MCP initialize + first rag_search": lambda: mcp_first_answer(project, args.query),
        "RAGEngine.from_toml + first search": lambda: timed([PYTHON, "-c", engine_code], project),
    }
    print_rounds(measures, args.runs, "entry point")
    print(f"\ntop imports of 'ragloom search' (self time summed per package, {PYTHON} -X importtime):")
    for package, ms in import_costs(project, args.query):
        print(f"  {package:<28} {ms:8.1f} ms")


if __name__ == "__main__":
    main()
