"""One engine shared by threads, and two processes on one index."""

from __future__ import annotations

import random
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from trees import initial_tree, reindex_rounds, tree_config

from helpers import hash_config
from ragloom import IndexLockedError, RAGEngine

ROUNDS = 30
SEARCHERS = 8
#: Searches each thread must finish between two re-index rounds before the next starts.
SEARCHES_PER_ROUND = 2


@pytest.mark.slow
def test_searches_during_reindexing_see_whole_file_versions(tmp_path: Path) -> None:
    root = tmp_path / "project"
    rng, versions = initial_tree(root, seed=7)
    engine = RAGEngine(tree_config(), root)
    engine.index_directory()
    stop = threading.Event()
    errors: list[BaseException] = []
    problems: list[str] = []
    searches = [0] * SEARCHERS
    progressed = threading.Condition()

    def searcher(slot: int) -> None:
        local = random.Random(slot)
        while not stop.is_set():
            try:
                results = engine.search(f"handler request respond {local.randrange(100)}", top_k=10)
            except BaseException as exc:  # noqa: BLE001 - every failure is a finding
                errors.append(exc)
                return
            with progressed:
                searches[slot] += 1
                progressed.notify_all()
            seen: dict[str, str] = {}
            for result in results:
                path, file_hash = result.metadata["path"], result.metadata["file_hash"]
                if file_hash not in versions.get(path, set()):
                    problems.append(f"{path}: version {file_hash} never existed")
                if seen.setdefault(path, file_hash) != file_hash:
                    problems.append(f"{path}: chunks of two versions in one search")

    def wait_for_searches(minimum: int) -> None:
        """Until every thread has finished ``minimum`` searches (or one failed)."""
        with progressed:
            progressed.wait_for(lambda: errors or min(searches) >= minimum, timeout=300)

    threads = [threading.Thread(target=searcher, args=(i,)) for i in range(SEARCHERS)]
    for thread in threads:
        thread.start()
    changes = 0
    try:
        changes = reindex_rounds(engine, root, rng, versions, ROUNDS,
                                 lambda done: wait_for_searches(done * SEARCHES_PER_ROUND))
    finally:
        stop.set()
        for thread in threads:
            thread.join(30)
    assert not errors, errors[:3]
    assert not problems, problems[:5]
    assert min(searches) >= ROUNDS * SEARCHES_PER_ROUND
    assert engine.verify().ok
    final = {(c.id, c.text) for c in engine.store.get(engine.store.ids())}
    engine.close()
    fresh_config = hash_config(chunk_size=300, chunk_overlap=50)
    with RAGEngine(fresh_config, root) as fresh:
        fresh.index_directory()
        assert final == {(c.id, c.text) for c in fresh.store.get(fresh.store.ids())}
    print(f"\nstress: {sum(searches)} searches by {SEARCHERS} threads during {ROUNDS} re-index "
          f"rounds ({changes} file changes)")


def test_second_process_gets_a_clear_lock_error(tmp_path: Path) -> None:
    config = hash_config(vector_store={"provider": "turboquant"})
    with RAGEngine(config, tmp_path):
        code = ("import sys; sys.path.insert(0, 'tests'); from helpers import hash_config;"
                "from ragloom import RAGEngine;"
                f"RAGEngine(hash_config(vector_store={{'provider': 'turboquant'}}), {str(tmp_path)!r})")
        result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                cwd=Path(__file__).resolve().parents[2], timeout=120)
        assert result.returncode != 0
        assert "IndexLockedError" in result.stderr
        assert f"is locked by pid {__import__('os').getpid()}" in result.stderr
    with RAGEngine(config, tmp_path) as again:  # released on close
        assert again.is_empty()


def test_second_engine_in_the_same_process_is_refused_too(tmp_path: Path) -> None:
    config = hash_config(vector_store={"provider": "turboquant"})
    with RAGEngine(config, tmp_path):
        with pytest.raises(IndexLockedError, match="locked by pid"):
            RAGEngine(config, tmp_path)


def test_an_index_whose_lock_files_an_older_ragloom_wrote_still_opens(tmp_path: Path) -> None:
    """Before 0.2 the lock files were plain files holding a pid, which SQLite cannot open."""
    config = hash_config(vector_store={"provider": "turboquant"})
    (tmp_path / "doc.md").write_text("# Launch\nRockets reach orbit.\n", encoding="utf-8")
    with RAGEngine(config, tmp_path) as engine:
        engine.index_directory()
    index_dir = tmp_path / ".ragloom"
    for name in ("lock", "state.lock", "intent.lock"):
        (index_dir / name).write_text("12345", encoding="ascii")
    with RAGEngine(config, tmp_path, read_only=True) as reader:
        assert [r.metadata["path"] for r in reader.search("rockets orbit", top_k=1)] == ["doc.md"]
    with RAGEngine(config, tmp_path), pytest.raises(IndexLockedError, match="locked by pid"):
        RAGEngine(config, tmp_path)
    assert (index_dir / "lock").read_text(encoding="ascii") == "12345"  # left as it was
