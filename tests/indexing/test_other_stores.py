"""A folder indexed with one store, read with another (the default store changed from
Chroma to TurboQuant): the reader says which store built the index and how to keep it,
never just "no index", and a writer says it leaves that index alone."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from helpers import hash_config, write
from ragloom import RAGEngine
from ragloom.apps.cli import main
from ragloom.errors import IndexNotFoundError
from ragloom.indexing.other_stores import other_store_note


def build(base: Path, store: str) -> None:
    write(base, "docs/launch.md", "# Launch\n\nRockets launch satellites.\n")
    with RAGEngine(hash_config(vector_store={"provider": store}), base) as engine:
        engine.index_directory()


def test_a_reader_of_another_store_is_told_which_store_built_the_index(tmp_path: Path) -> None:
    build(tmp_path, "turboquant")
    config = hash_config(vector_store={"provider": "chroma"})
    with pytest.raises(IndexNotFoundError) as missing:
        RAGEngine(config, tmp_path, read_only=True)
    assert (f"{tmp_path / '.ragloom'} holds an index built with vector_store.provider = "
            f"'turboquant' (manifest_turboquant_ragloom.sqlite), which the configured store "
            f"'chroma' does not read") in str(missing.value)
    assert "set [rag.vector_store] provider = 'turboquant' to keep using it" in str(missing.value)


def test_the_cli_names_the_chroma_index_the_new_default_does_not_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("chromadb")
    build(tmp_path, "chroma")
    write(tmp_path, "ragloom.toml", '[rag]\nembedding.provider = "hash"\n')  # the default store
    monkeypatch.chdir(tmp_path)
    for command in (["search", "launch"], ["status"]):
        assert main(command) == 1
        error = capsys.readouterr().err
        assert error.startswith(f"ragloom: {tmp_path.resolve() / '.ragloom'} holds an index built "
                                f"with vector_store.provider = 'chroma' "
                                f"(manifest_chroma_ragloom.sqlite), which the configured store "
                                f"'turboquant' does not read"), command
        assert "set [rag.vector_store] provider = 'chroma' to keep using it" in error


def test_a_writer_warns_and_leaves_the_other_index_alone(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    pytest.importorskip("chromadb")
    build(tmp_path, "turboquant")
    before = sorted(path.name for path in (tmp_path / ".ragloom").iterdir())
    with caplog.at_level(logging.WARNING, logger="ragloom"):
        build(tmp_path, "chroma")
    assert any("built with vector_store.provider = 'turboquant'" in record.getMessage()
               for record in caplog.records)
    after = sorted(path.name for path in (tmp_path / ".ragloom").iterdir())
    assert set(before) <= set(after) and "chroma_ragloom" in after
    with RAGEngine(hash_config(vector_store={"provider": "turboquant"}), tmp_path,
                   read_only=True) as engine:
        assert engine.count() > 0  # the first index is still there, whole
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="ragloom"):
        build(tmp_path, "chroma")  # its own index is there now: nothing to say
    assert not any("built with vector_store.provider" in record.getMessage()
                   for record in caplog.records)


def test_no_note_when_the_configured_store_has_its_index_or_nothing_is_there(tmp_path: Path) -> None:
    assert other_store_note(hash_config(), tmp_path / "missing") == ""
    build(tmp_path, "turboquant")
    index_dir = tmp_path / ".ragloom"
    assert other_store_note(hash_config(vector_store={"provider": "turboquant"}), index_dir) == ""
    other_collection = hash_config(vector_store={"provider": "chroma", "collection_name": "other"})
    assert other_store_note(other_collection, index_dir) == ""
