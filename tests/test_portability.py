"""Every desktop OS: the engine imports and runs without what only POSIX has. A child
process with ``fcntl`` unimportable and ``os.pread``/``os.pwrite``/``signal.SIGKILL``
removed (as on Windows) indexes, searches, opens a second writer (refused, naming the
holder) and a reader beside the writer, and reopens the index after closing."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent

CHILD = r"""
import os, signal, sys
sys.modules["fcntl"] = None          # import fcntl now raises ImportError, as on Windows
for name in ("pread", "pwrite"):
    delattr(os, name)
del signal.SIGKILL
import warnings
warnings.simplefilter("ignore")      # filelock warns that its flock backend is missing
sys.path.insert(0, sys.argv[2])
from helpers import hash_config, write
from pathlib import Path
from ragloom import IndexLockedError, RAGEngine

base = Path(sys.argv[1])
write(base, "docs/wings.md", "# Wings\nailerons roll the aircraft about its long axis\n")
write(base, "src/flaps.py", "def lower_flaps(angle):\n    return angle * 2\n")
config = hash_config(vector_store={"provider": "turboquant"}, relevance_gate=0.0)
with RAGEngine(config, base) as writer:
    report = writer.index_directory()
    assert report.files_indexed == 2, report
    assert writer.search("ailerons roll", top_k=1)[0].path == "docs/wings.md"
    try:
        RAGEngine(config, base)
        raise SystemExit("a second writer was let in")
    except IndexLockedError as exc:
        assert f"locked by pid {os.getpid()}" in str(exc), exc
    with RAGEngine(config, base, read_only=True) as reader:
        assert reader.search("lower flaps angle", top_k=1)[0].path == "src/flaps.py"
with RAGEngine(config, base) as again:
    assert again.index_directory().files_unchanged == 2
print("fcntl" in sys.modules and sys.modules["fcntl"] is not None, "ok")
"""


def test_the_engine_runs_without_posix_only_modules(tmp_path: Path) -> None:
    child = subprocess.run([sys.executable, "-c", CHILD, str(tmp_path), str(TESTS)],
                           capture_output=True, text=True, timeout=300)
    assert child.returncode == 0, child.stderr[-3000:]
    assert child.stdout.split() == ["False", "ok"]


def test_the_core_names_no_posix_only_call() -> None:
    """No fcntl, pread, pwrite or SIGKILL anywhere in the package's source."""
    source = TESTS.parent / "src" / "ragloom"
    posix_only = re.compile(r"\b(fcntl|pread|pwrite|SIGKILL)\b")
    offending = [f"{path.relative_to(source)}: {match.group()}" for path in sorted(source.rglob("*.py"))
                 for match in posix_only.finditer(path.read_text(encoding="utf-8"))]
    assert offending == []
