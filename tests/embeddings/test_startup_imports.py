"""What a command loads: ``ragloom status`` no embedding model, a search with a cached ONNX
export neither torch nor sentence-transformers, and library use nothing on stderr."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("sentence_transformers", reason="the local extra is not installed")
pytest.importorskip("onnxruntime", reason="the onnx extra is not installed")

from helpers import write  # noqa: E402

pytestmark = pytest.mark.slow

HEAVY = ("torch", "sentence_transformers", "transformers")
CONFIG = "[rag]\nembedding.provider = \"local\"\nembedding.backend = \"onnx-int8\"\n" \
         "[rag.vector_store]\nprovider = \"turboquant\"\n"

#: Runs the CLI in-process, then names the heavy modules it imported.
CLI = ("import sys\nfrom ragloom.apps.cli import main\ncode = main(sys.argv[1:])\n"
       f"print('loaded:', ','.join(m for m in {HEAVY!r} if m in sys.modules))\nsys.exit(code)\n")


def run_cli(project: Path, cache: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", CLI, *args], cwd=project, capture_output=True,
                          text=True, timeout=300,
                          env={**os.environ, "RAGLOOM_CACHE_DIR": str(cache), "HF_HUB_OFFLINE": "1"})


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory, onnx_cache: Path) -> Path:
    project = tmp_path_factory.mktemp("startup")
    write(project, "ragloom.toml", CONFIG)
    write(project, "docs/launch.md", "# Launch\n\nRockets launch satellites into orbit.\n")
    write(project, "src/fruit.py", "def peel(banana):\n    return banana.skin\n")
    built = run_cli(project, onnx_cache, "index")  # exports the model once if not cached yet
    assert built.returncode == 0, built.stderr
    return project


def test_status_loads_no_model_even_with_no_export_cached(indexed: Path, tmp_path: Path) -> None:
    empty_cache = tmp_path / "empty-cache"
    status = run_cli(indexed, empty_cache, "status")
    assert status.returncode == 0, status.stderr
    assert "model: local/all-MiniLM-L6-v2 (384-d)" in status.stdout
    assert status.stdout.rstrip().endswith("loaded:")  # none of torch, sentence-transformers
    assert not empty_cache.exists()  # nothing was exported


def test_search_with_the_cached_export_imports_no_torch(indexed: Path, onnx_cache: Path) -> None:
    for command in ("search", "context"):
        found = run_cli(indexed, onnx_cache, command, "rockets orbit satellites", "--top-k", "1")
        assert found.returncode == 0, found.stderr
        assert "docs/launch.md" in found.stdout
        assert found.stdout.rstrip().endswith("loaded:"), found.stdout


def test_the_first_use_says_it_exports_in_one_line(indexed: Path, tmp_path: Path) -> None:
    found = run_cli(indexed, tmp_path / "fresh-cache", "search", "rockets orbit", "--top-k", "1")
    assert found.returncode == 0, found.stderr
    notices = [line for line in found.stderr.splitlines() if "exported the embedding model" in line]
    assert len(notices) == 1 and " s; cached in " in notices[0], found.stderr
    assert "docs/launch.md" in found.stdout


LIBRARY = """
import sys
from ragloom import RAGConfig, RAGEngine
for backend in ("torch", "onnx-int8"):
    config = RAGConfig(embedding={"provider": "local", "backend": backend},
                       vector_store={"provider": "turboquant"}, index_dir=".ragloom-" + backend)
    with RAGEngine(config, sys.argv[1]) as engine:
        engine.index_directory()
        assert engine.search("rockets orbit", top_k=1)[0].path == "docs/launch.md"
print("done")
"""


def test_library_use_writes_nothing_to_stderr(tmp_path: Path) -> None:
    """Not the model loader's 'Loading weights' bar, not the first export's notice: an app
    that configured no logging sees nothing."""
    write(tmp_path, "docs/launch.md", "# Launch\n\nRockets launch satellites into orbit.\n")
    write(tmp_path, "src/fruit.py", "def peel(banana):\n    return banana.skin\n")
    env = {key: value for key, value in os.environ.items()
           if key not in ("TRANSFORMERS_VERBOSITY", "HF_HUB_DISABLE_PROGRESS_BARS", "PYTHONWARNINGS")}
    run = subprocess.run([sys.executable, "-c", LIBRARY, str(tmp_path)], capture_output=True, text=True,
                         timeout=600, env={**env, "RAGLOOM_CACHE_DIR": str(tmp_path / "cache"),
                                           "HF_HUB_OFFLINE": "1"})
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "done"
    assert run.stderr == ""
