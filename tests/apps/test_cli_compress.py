"""``ragloom search/context --compress`` and ``--no-compress``: the flag overrides
``[rag.retrieval] compress`` for one command."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import write

CONFIG = """
[rag]
embedding_provider = "hash"
relevance_gate = -1

[rag.vector_store]
provider = "turboquant"

[rag.retrieval]
compress = {compress}
compress_whole_share = 2.0
"""
LEDGER = "def ledger():\n" + "".join(f"    step_{i}()\n" for i in range(2, 30)) + "    reconcile_vat()\n"


def ragloom(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ragloom", *args], cwd=project, capture_output=True,
                          text=True, timeout=300, env={**os.environ, "PYTHONWARNINGS": "ignore"})


@pytest.fixture(scope="module", params=["false", "true"])
def project(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp(f"cli-compress-{request.param}")
    write(root, "ragloom.toml", CONFIG.format(compress=request.param))
    write(root, "src/ledger.py", LEDGER)
    indexed = ragloom(root, "index")
    assert indexed.returncode == 0, indexed.stderr
    return root


def kept(project: Path, *flags: str) -> list | None:
    run = ragloom(project, "search", "reconcile vat", "--top-k", "1", "--json", *flags)
    assert run.returncode == 0, run.stderr
    [result] = json.loads(run.stdout)
    return result["kept_lines"]


def test_the_flag_overrides_the_config(project: Path) -> None:
    on_by_config = "compress = true" in (project / "ragloom.toml").read_text()
    assert kept(project) == ([[1, 1], [28, 30]] if on_by_config else None)
    assert kept(project, "--compress") == [[1, 1], [28, 30]]
    assert kept(project, "--no-compress") is None


def test_context_block_carries_the_gap_marker(project: Path) -> None:
    run = ragloom(project, "context", "reconcile vat", "--top-k", "1", "--compress")
    assert run.returncode == 0, run.stderr
    assert "def ledger():\n... (lines 2-27 omitted)\n    step_28()\n" in run.stdout
    whole = ragloom(project, "context", "reconcile vat", "--top-k", "1", "--no-compress")
    assert "omitted" not in whole.stdout and "    step_2()\n" in whole.stdout
