"""The long-lines rule holds for files indexed before it (or with it off): the next run
reads each unchanged file it could catch once, drops a noisy one with its reason, and
re-chunks and re-embeds nothing; a run stopped midway leaves the rest to the next one."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from helpers import write
from ragloom.indexing import indexer
from ragloom.indexing.noise import reason
from ragloom.indexing.skip_reasons import load_skipped

PERSISTENT = {"provider": "turboquant"}
BLOB = '{"icons": [' + ",".join(f'"icon-{i}-' + "a" * 40 + '"' for i in range(200)) + "]}\n"
CODE = "".join(f"def step_{i}(value):\n    return value + {i}\n\n\n" for i in range(120))


def _project(project: Path) -> None:
    write(project, "app/steps.py", CODE)  # over LONG_LINE_MIN_CHARS, short lines
    write(project, "static/icons.json", BLOB)
    write(project, "static/flags.json", BLOB.replace("icon", "flag"))
    write(project, "README.md", "# Steps\n\n" + "A very long unwrapped paragraph. " * 200 + "\n")
    for path in project.rglob("*.*"):  # written a while ago: unchanged files are not read
        os.utime(path, (1_700_000_000, 1_700_000_000))


def _reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    read: list[str] = []
    real = indexer.read_file

    def counting(path, relative, *args):  # type: ignore[no-untyped-def]
        read.append(relative)
        return real(path, relative, *args)

    monkeypatch.setattr(indexer, "read_file", counting)
    return read


def test_an_index_from_before_the_rule_drops_a_minified_file_without_reembedding(
        make_engine, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _project(project)
    before = make_engine(skip_noise=[], vector_store=PERSISTENT)
    assert before.index_directory().skipped == []
    assert "static/icons.json" in before.get_all_indexed_paths()
    before.close()
    read = _reads(monkeypatch)
    engine = make_engine(vector_store=PERSISTENT)
    report = engine.index_directory()
    why = reason("long-lines")
    assert {s.path: s.reason for s in report.skipped} == {"static/icons.json": why, "static/flags.json": why}
    assert (report.files_removed, report.files_unchanged, report.chunks_embedded) == (2, 2, 0)
    assert sorted(read) == ["app/steps.py", "static/flags.json", "static/icons.json"]  # not README.md
    assert sorted(engine.get_all_indexed_paths()) == ["README.md", "app/steps.py"]
    assert {s.path for s in load_skipped(project / ".ragloom")} == {"static/icons.json", "static/flags.json"}
    assert engine.status().skipped == {"generated or minified": 2}  # counted by kind
    read.clear()
    again = engine.index_directory()  # judged by these rules already: steps.py is not read again
    assert sorted(read) == ["static/flags.json", "static/icons.json"]  # skipped files are always retried
    assert (again.files_removed, again.files_unchanged, len(again.skipped)) == (0, 2, 2)


def test_a_run_stopped_midway_leaves_the_rest_to_the_next_run(
        make_engine, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _project(project)
    before = make_engine(skip_noise=[], vector_store=PERSISTENT)
    before.index_directory()
    before.close()
    real = indexer.JournaledWriter.remove
    calls: list[str] = []

    def stop_at_the_second(self, relative):  # type: ignore[no-untyped-def]
        calls.append(relative)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(self, relative)

    monkeypatch.setattr(indexer.JournaledWriter, "remove", stop_at_the_second)
    stopped = make_engine(vector_store=PERSISTENT)
    with pytest.raises(KeyboardInterrupt):
        stopped.index_directory()
    assert len(set(stopped.get_all_indexed_paths()) & {"static/icons.json", "static/flags.json"}) == 1
    stopped.close()
    monkeypatch.setattr(indexer.JournaledWriter, "remove", real)
    engine = make_engine(vector_store=PERSISTENT)
    report = engine.index_directory()
    assert sorted(engine.get_all_indexed_paths()) == ["README.md", "app/steps.py"]
    assert {s.path for s in report.skipped} == {"static/icons.json", "static/flags.json"}
    paths = {c.metadata["path"] for c in engine.store.get(engine.store.ids())}
    assert paths == {"README.md", "app/steps.py"} and report.chunks_embedded == 0
