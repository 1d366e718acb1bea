"""``ragloom search/context --compress`` and ``--no-compress``: the flag overrides
``[rag.retrieval] compress`` for one command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_cli_query import CONFIG as BASE_CONFIG
from test_cli_query import ragloom

from helpers import write

CONFIG = BASE_CONFIG + """
[rag.retrieval]
compress = {compress}
compress_whole_share = 2.0
compress_whole_top = 0
compress_window = 2
"""
LEDGER = "def ledger():\n" + "".join(f"    step_{i}()\n" for i in range(2, 30)) + "    reconcile_vat()\n"


@pytest.fixture(scope="module", params=["false", "true"])
def project(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp(f"cli-compress-{request.param}")
    write(root, "ragloom.toml", CONFIG.replace("{compress}", request.param))
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
