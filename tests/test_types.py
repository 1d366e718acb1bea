"""mypy, strict, passes on the packages whose seams a plugin author implements and the
engine reads (``stores``, ``retrieval``, ``engine``; settings in pyproject.toml's
``[tool.mypy]``): a store's capabilities, the backend contract and the index state are
types, so a change that breaks one fails here rather than in a user's process. Also the
tenant views of a store's own index state (``indexing.tenant_state``), which implement the
manifest and sparse-index protocols member by member."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STRICT_PACKAGES = ("ragloom.stores", "ragloom.retrieval", "ragloom.engine")
STRICT_MODULES = ("ragloom.indexing.tenant_state",)


def test_mypy_strict_passes_on_stores_retrieval_and_engine(tmp_path: Path) -> None:
    packages = [arg for package in STRICT_PACKAGES for arg in ("-p", package)]
    packages += [arg for module in STRICT_MODULES for arg in ("-m", module)]
    run = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path), *packages],
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Success: no issues found" in run.stdout
