"""The inspector's index make-up: counted from every chunk's metadata once per index
version (chunk count, last indexing time), not once per request."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from inspector_project import make_project

from helpers import write
from ragloom import RAGEngine, load_config
from ragloom.apps.inspector.api import Inspector
from ragloom.apps.inspector.makeup import histogram


def test_make_up_is_counted_once_per_index_version(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_project(tmp_path)
    config = load_config(root / "ragloom.toml")
    with RAGEngine(config, root, read_only=True) as engine:
        inspector = Inspector(engine)
        reads: list[int] = []
        original = engine.sparse.chunks_with

        def counting(key: str, values: Any) -> Any:
            if key == "path":  # a search asks for content_hash copies
                reads.append(len(values))
            return original(key, values)

        monkeypatch.setattr(engine.sparse, "chunks_with", counting)
        inspector.warm()
        assert reads == [2]  # both paths at once, ahead of any request
        first = inspector.index({})
        second = inspector.index({})
        assert reads == [2] and first["languages"] == second["languages"]
        assert first["languages"] == {"python": {"files": 1, "chunks": 3},
                                      "markdown": {"files": 1, "chunks": 2}}
        assert inspector.make_up.of(6, 0.0)["sizes"]["total"] == 5  # another version: counted again
        assert reads == [2, 2]


def test_make_up_follows_a_changed_index(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    config = load_config(root / "ragloom.toml")
    with RAGEngine(config, root) as engine:
        inspector = Inspector(engine)
        assert inspector.index({})["source_types"]["docs"] == {"files": 1, "chunks": 2}
        write(root, "docs/more.md", "# More\n\nA second guide about launch windows.\n")
        engine.index_directory()
        assert inspector.index({})["source_types"]["docs"] == {"files": 2, "chunks": 3}


def test_histogram_bins() -> None:
    assert histogram([]) == {"edges": [], "counts": [], "total": 0}
    shape = histogram([1, 20, 40, 40])
    assert shape["edges"][:3] == [2, 4, 6] and shape["edges"][-1] == 40
    assert shape["counts"][0] == 1 and shape["counts"][9] == 1 and shape["counts"][19] == 2
    assert sum(shape["counts"]) == shape["total"] == 4
