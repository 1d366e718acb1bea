"""One index shared through Postgres: processes on other folders search and update it
with no local files, writers exclude each other, the server may restart or drop a
connection, and a model change never drops the shared index."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from helpers import hash_config, write
from ragloom import RAGEngine
from ragloom.errors import IndexLockedError, IndexMismatchError, StoreError

CHILD = Path(__file__).resolve().parent / "postgres_child.py"
SRC = Path(__file__).resolve().parents[2] / "src"


def pg_config(server: Any, schema: str, **overrides: Any):
    return hash_config(vector_store={"provider": "postgres", "url": server.url,
                                     "postgres": {"schema": schema}}, **overrides)


def project(root: Path, version: str = "one") -> Path:
    write(root, "docs/launch.md", "# Launch\nRockets launch satellites into orbit from the pad.\n\n"
          "## Fuel\nKerosene and liquid oxygen feed the engines.\n")
    write(root, "src/fruit.py", "def peel(banana):\n    return banana.skin\n\n\n"
          f"def slice_fruit(apple):\n    return apple.halves  # {version}\n")
    write(root, "notes.txt", "Orbit insertion needs a second burn at apogee.\n")
    return root


def child(mode: str, base_dir: Path, config: Any, *args: str) -> Any:
    env = {**os.environ, "PYTHONPATH": f"{SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    done = subprocess.run([sys.executable, str(CHILD), mode, str(base_dir),
                           config.model_dump_json(), *args], capture_output=True, text=True,
                          env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


QUERIES = ["rocket orbit", "peel banana", "liquid oxygen engines", "second burn apogee"]


def test_process_b_on_another_folder_sees_what_a_indexed(postgres_server, postgres_schema,
                                                         tmp_path: Path) -> None:
    config = pg_config(postgres_server, postgres_schema)
    a_dir, b_dir = project(tmp_path / "a"), tmp_path / "b"
    b_dir.mkdir()
    with RAGEngine(config, a_dir) as a:
        a.index_directory()
        expected = {q: [[r.id, r.score, r.rank_score] for r in a.search(q, top_k=5)] for q in QUERIES}
    assert all(expected.values())
    seen = child("search", b_dir, config, *QUERIES)
    for query in QUERIES:
        assert [hit[0] for hit in seen[query]] == [hit[0] for hit in expected[query]], query
        assert [hit[1:] for hit in seen[query]] == [pytest.approx(hit[1:], abs=1e-6)
                                                    for hit in expected[query]], query
    assert not (b_dir / ".ragloom").exists()
    assert not (a_dir / ".ragloom").exists()  # nothing of the index lives in files


def test_process_b_reindexes_only_what_changed(postgres_server, postgres_schema,
                                               tmp_path: Path) -> None:
    config = pg_config(postgres_server, postgres_schema)
    a_dir = project(tmp_path / "a")
    with RAGEngine(config, a_dir) as a:
        first = a.index_directory()
        total = a.count()
    assert first.chunks_embedded == total
    b_dir = project(tmp_path / "b", version="two")  # same files, one function changed
    report = child("reindex", b_dir, config)
    assert report["embedded"] == 1  # the changed chunk; the rest come from the shared cache
    assert report["count"] == total
    assert not (b_dir / ".ragloom").exists()
    with RAGEngine(config, tmp_path / "c", read_only=True) as reader:
        hits = reader.search("slice fruit apple halves", top_k=1)
        assert "# two" in hits[0].text


def test_second_writer_is_refused_naming_host_and_pid(postgres_server, postgres_schema,
                                                      tmp_path: Path) -> None:
    config = pg_config(postgres_server, postgres_schema)
    with RAGEngine(config, project(tmp_path / "a")):
        with pytest.raises(IndexLockedError, match=rf"pid {os.getpid()}\b"):
            RAGEngine(config, tmp_path / "b")
        with RAGEngine(config, tmp_path / "c", read_only=True) as reader:  # readers need no lock
            assert reader.count() == 0


def test_model_change_is_refused_not_dropped(postgres_server, postgres_schema, tmp_path: Path) -> None:
    config = pg_config(postgres_server, postgres_schema)
    with RAGEngine(config, project(tmp_path / "a")) as a:
        a.index_directory()
        count = a.count()
    other = pg_config(postgres_server, postgres_schema, embedding={"dim": 64})
    with pytest.raises(IndexMismatchError, match=r"never drops it implicitly; rebuild it on "
                       r"purpose with 'ragloom index --rebuild'"):
        RAGEngine(other, tmp_path / "a")
    with RAGEngine(config, tmp_path / "a", read_only=True) as reader:
        assert reader.count() == count
    # rebuilding on purpose, as with every store: dropped, then indexed again for 64-d
    with RAGEngine(config, tmp_path / "b", read_only=True) as reader, \
            pytest.raises(IndexMismatchError, match=r"reading never rebuilds"):
        RAGEngine(other, tmp_path / "b", read_only=True)
    with RAGEngine(other, tmp_path / "a", rebuild=True) as rebuilt:
        rebuilt.index_directory()
        assert rebuilt.count() == count
        assert len(rebuilt.search("rocket orbit", top_k=2)) == 2


def test_restart_between_calls_reconnects(postgres_server, postgres_schema, tmp_path: Path) -> None:
    if not postgres_server.restartable:
        pytest.skip("the server of RAGLOOM_TEST_POSTGRES_URL is not restarted by the tests")
    config = pg_config(postgres_server, postgres_schema)
    with RAGEngine(config, project(tmp_path / "a")) as engine:
        engine.index_directory()
        before = [r.id for r in engine.search("rocket orbit", top_k=3)]
        postgres_server.restart()
        assert [r.id for r in engine.search("rocket orbit", top_k=3)] == before
        write(tmp_path / "a", "more.md", "# More\nA third stage circularises the orbit.\n")
        assert engine.index_directory().files_indexed == 1


def test_connection_dropped_mid_search_is_a_clear_error(postgres_server, postgres_schema,
                                                        tmp_path: Path) -> None:
    config = pg_config(postgres_server, postgres_schema)
    with RAGEngine(config, project(tmp_path / "a")) as engine:
        engine.index_directory()
        expected = [r.id for r in engine.search("rocket orbit", top_k=3)]
        import psycopg

        blocker = psycopg.connect(postgres_server.url)  # holds the table: the search waits
        blocker.execute(f'LOCK TABLE "{postgres_schema}".ragloom_ragloom IN ACCESS EXCLUSIVE MODE')
        outcome: list[BaseException | list] = []
        search = threading.Thread(target=lambda: outcome.append(_search(engine)))
        search.start()
        killed = 0
        while not killed:  # the search's backend is waiting for the lock: end it
            killed = postgres_server.execute(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE "
                "wait_event_type = 'Lock' AND application_name LIKE 'ragloom reader%'")[0][0]
        search.join()
        blocker.close()
        assert isinstance(outcome[0], StoreError)
        assert "failed on Postgres at postgresql://" in str(outcome[0])
        assert [r.id for r in engine.search("rocket orbit", top_k=3)] == expected


def _search(engine: RAGEngine) -> BaseException | list:
    try:
        return engine.search("rocket orbit", top_k=3, mode="dense")
    except BaseException as exc:  # noqa: BLE001 - handed to the test thread
        return exc


def test_a_question_asked_again_is_embedded_once_across_writers(postgres_server, postgres_schema,
                                                                 tmp_path: Path) -> None:
    """Query vectors go into the shared cache table: the next writer, on another folder,
    asks the provider for none of them; a reader keeps its own in memory."""
    from fakes.counting_embedder import TaskCountingProvider

    config = pg_config(postgres_server, postgres_schema, relevance_gate=0.0)
    first, second, reader = (TaskCountingProvider(384) for _ in range(3))
    with RAGEngine(config, project(tmp_path / "a"), embedding_provider=first) as a:
        a.index_directory()
        expected = {query: [r.id for r in a.search(query)] for query in QUERIES * 2}
    assert first.embedded["query"] == len(QUERIES)
    (tmp_path / "b").mkdir()
    with RAGEngine(config, tmp_path / "b", embedding_provider=second) as b:
        assert {query: [r.id for r in b.search(query)] for query in QUERIES} == expected
    assert second.embedded["query"] == 0
    with RAGEngine(config, tmp_path / "b", embedding_provider=reader, read_only=True) as c:
        for query in QUERIES * 2:
            c.search(query)
    assert reader.embedded["query"] == len(QUERIES)
