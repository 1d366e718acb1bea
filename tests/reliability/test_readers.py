"""Several processes read one index while another writes it."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from trees import initial_tree, reindex_rounds, tree_config

from helpers import hash_config, write
from ragloom import IndexLockedError, RAGEngine

TESTS = Path(__file__).resolve().parents[1]
CHILD = Path(__file__).resolve().parent / "reader_child.py"
READERS = 4
ROUNDS = 10
SEARCHES_PER_ROUND = 2


def searches_done(count_files: list[Path]) -> list[int]:
    return [int(f.read_text()) if f.is_file() else 0 for f in count_files]


@pytest.mark.slow
@pytest.mark.parametrize("store", ["turboquant", "postgres"])
def test_four_readers_search_while_a_fifth_process_indexes(tmp_path: Path, store: str,
                                                           request: pytest.FixtureRequest) -> None:
    root = tmp_path / "project"
    rng, versions = initial_tree(root, seed=3)
    stop_file = tmp_path / "stop"
    count_files = [tmp_path / f"count{i}" for i in range(READERS)]
    config, extra, reader_root = tree_config(), [], root
    if store == "postgres":  # readers on folders of their own: the index lives in the database
        server = request.getfixturevalue("postgres_server")
        settings = {"provider": "postgres", "url": server.url,
                    "postgres": {"schema": request.getfixturevalue("postgres_schema")}}
        config = config.model_copy(update={"vector_store": type(config.vector_store).model_validate(
            settings)})
        extra, reader_root = [json.dumps(settings)], tmp_path / "elsewhere"
        reader_root.mkdir()
    with RAGEngine(config, root) as writer:  # held open by this process the whole time
        writer.index_directory()
        readers = [subprocess.Popen([sys.executable, str(CHILD), str(reader_root), str(TESTS),
                                     str(count_files[i]), str(stop_file), str(i), *extra],
                                    stderr=subprocess.PIPE, text=True)
                   for i in range(READERS)]
        def wait_for_readers(done: int) -> None:
            """Count-bound: every reader searches a few more times before the next round."""
            while min(searches_done(count_files)) < done * SEARCHES_PER_ROUND:
                assert all(r.poll() is None for r in readers), [r.stderr.read() for r in readers
                                                                if r.poll() is not None]
                time.sleep(0.05)

        try:
            reindex_rounds(writer, root, rng, versions, ROUNDS, wait_for_readers)
        finally:
            stop_file.touch()
            outcomes = [(r.wait(120), r.stderr.read()) for r in readers]
    assert all(code == 0 for code, _ in outcomes), outcomes
    served = sum(searches_done(count_files))
    assert served >= READERS * ROUNDS * SEARCHES_PER_ROUND
    print(f"\nreaders: {READERS} processes served {served} searches while a fifth process held the "
          f"index open for writing and ran {ROUNDS} re-index rounds")


def test_embedded_chroma_refuses_a_reader_beside_its_writer(tmp_path: Path) -> None:
    pytest.importorskip("chromadb")
    write(tmp_path, "a.py", "def alpha():\n    return 1\n")
    config = hash_config(vector_store={"provider": "chroma"})
    with RAGEngine(config, tmp_path) as writer:
        writer.index_directory()
        with pytest.raises(IndexLockedError, match="cannot be read beside its writer"):
            RAGEngine(config, tmp_path, read_only=True)
    with RAGEngine(config, tmp_path, read_only=True) as reader:
        assert reader.count() == 1
        with pytest.raises(IndexLockedError, match="or by processes reading it"):
            RAGEngine(config, tmp_path)  # no writer while a reader holds embedded Chroma


def test_a_reader_cannot_write(tmp_path: Path) -> None:
    write(tmp_path, "a.py", "def alpha():\n    return 1\n")
    config = hash_config(vector_store={"provider": "turboquant"})
    with RAGEngine(config, tmp_path) as writer:
        writer.index_directory()
    from ragloom import ReadOnlyError

    with RAGEngine(config, tmp_path, read_only=True) as reader:
        with pytest.raises(ReadOnlyError, match="reading only"):
            reader.index_directory()
        with pytest.raises(ReadOnlyError):
            reader.delete_documents_by_path("a.py")
