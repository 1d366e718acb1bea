"""Helpers shared by tests (importable as ``helpers`` thanks to pytest's pythonpath)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from ragloom import RAGConfig


def hash_config(**overrides: Any) -> RAGConfig:
    """A config using the hash embedder and the in-memory store, with ``overrides`` applied
    (an ``embedding`` or ``vector_store`` override is merged into those tables)."""
    data: dict[str, Any] = {"embedding": {"provider": "hash"}, "vector_store": {"provider": "memory"}}
    for key, value in overrides.items():
        data[key] = {**data[key], **value} if key in ("embedding", "vector_store") else value
    return RAGConfig.model_validate(data)


def write(root: Path, relative: str, text: str) -> Path:
    """Write ``text`` to ``root/relative``, creating folders."""
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


#: The system prompt the LLM integration tests send.
ASSISTANT_PROMPT = "# Assistant\nAnswer questions about the project.\n"


def ownership_steps(config: RAGConfig, root: Path) -> dict[str, Callable[[], None]]:
    """What the ownership property tests run on a project of ``a.md`` and ``b.py``, each in
    an engine opened and closed: index, change a.md and remove b.py, rebuild on purpose."""
    from ragloom import RAGEngine

    def index() -> None:
        with RAGEngine(config, root) as engine:
            engine.index_directory()

    def change_and_remove() -> None:
        write(root, "a.md", "# A\nRockets launch probes past the moon.\n")
        (root / "b.py").unlink(missing_ok=True)
        index()

    def rebuild() -> None:
        with RAGEngine(config, root, rebuild=True) as engine:
            engine.index_directory()

    return {"index": index, "change_and_remove": change_and_remove, "rebuild": rebuild}


def first_path_per_weight(make_engine: Callable[..., Any], project: Path, files: dict[str, str],
                          monkeypatch: pytest.MonkeyPatch, module: ModuleType, constant: str,
                          question: str, weights: Sequence[float]) -> list[str]:
    """What a prior's weight changes in a real search: the path of the first sparse
    result for ``question`` over ``files`` (and four unrelated ones, so BM25's words are
    rare enough to weigh) with ``module.constant`` set to each of ``weights``."""
    for relative, text in files.items():
        write(project, relative, text)
    for name in ("mailer", "player", "search", "upload"):
        write(project, f"lib/{name}.py", f"def {name}():\n    return None\n")
    engine = make_engine()
    engine.index_directory()
    firsts = []
    for weight in weights:
        monkeypatch.setattr(module, constant, weight)
        firsts.append(str(engine.search(question, top_k=2, mode="sparse")[0].metadata["path"]))
    engine.close()
    return firsts


def every_store() -> list[str]:
    """Every built-in store a service writes to, Chroma both embedded and on a server
    (``chroma-server``): tests over every store are parametrized with this, so a store
    registered later is tested without a change here. The MCP bridge is left out: it only
    searches another server's tool, it stores nothing."""
    from ragloom.stores.registry import vector_stores

    return [*sorted(name for name in vector_stores._builtin if name != "mcp"), "chroma-server"]


def crowded_project(project: Path) -> None:
    """One test file whose 30 functions all match the query better than any code does."""
    tests = "".join(f"def test_ledger_balance_{n}():\n    ledger = Ledger()\n"
                    f"    assert ledger.balance(ledger) == ledger_balance({n})\n\n\n" for n in range(30))
    write(project, "tests/test_ledger.py", tests)
    for n in range(6):
        write(project, f"app/ledger{n}.py", f"def balance{n}(ledger, rate):\n"
              f"    total = sum(entry.amount for entry in ledger.entries) * rate + {n}\n"
              f"    return round(total, 2)  # the ledger balance\n")
