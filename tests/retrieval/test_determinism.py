"""The same files and settings give the same ranked results, whatever the store, the order
files were found and written in, or how the writes were split (issue 38, item 8)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from helpers import hash_config, write
from ragloom import RAGEngine

TOPICS = ["rocket fuel", "orbit transfer", "wing lift", "comet tail", "solar panel", "heat shield",
          "launch window", "docking port", "radio antenna", "crew cabin"]
QUERIES = [*TOPICS, "fuel and lift", "the crew checks the antenna", "shield", "window port cabin",
           "how does the rocket reach orbit", "def check", "panel"]


def corpus() -> dict[str, str]:
    """Files sharing words (near ties), copies of one text in several folders (exact ties),
    and functions long enough to be split into parts."""
    files: dict[str, str] = {}
    for i, topic in enumerate(TOPICS):
        other = TOPICS[(i + 3) % len(TOPICS)]
        files[f"src/part_{i}.py"] = "".join(
            f"def check_{i}_{j}(craft):\n    # {topic} {other if j % 2 else topic}\n"
            f"    return craft.{topic.split()[0]}_{j}\n\n\n" for j in range(6))
        files[f"docs/{topic.replace(' ', '_')}.md"] = (
            f"# {topic.title()}\n\nThe {topic} and the {other}.\n\n## Notes\n\nMore on the {topic}.\n")
    for folder in ("a", "b", "c"):  # identical texts: tied on every score
        files[f"packages/{folder}/license.txt"] = "Permission is granted to use the rocket fuel.\n"
        files[f"packages/{folder}/notes.md"] = "# Notes\n\nThe crew cabin and the radio antenna.\n"
    return files


def build(root: Path, store: str, shuffled: bool) -> RAGEngine:
    """An index of ``corpus()`` in ``root``: files written and indexed in path order in one
    run, or (``shuffled``) created in a random order and indexed one by one in another."""
    files = list(corpus().items())
    if shuffled:
        random.Random(7).shuffle(files)
    for relative, text in files:
        write(root, relative, text)
    engine = RAGEngine(hash_config(vector_store={"provider": store}, chunk_size=160,
                                   chunk_overlap=0, relevance_gate=False), base_dir=root)
    if shuffled:
        for relative, _ in random.Random(11).sample(files, len(files)):
            engine.index_file(root / relative)
    engine.index_directory()
    return engine


def answers(engine: RAGEngine) -> dict[tuple[str, str], list[tuple[str, str, float]]]:
    return {(query, mode): [(r.id, str(r.metadata.get("merged_ids")), round(r.score, 5))
                            for r in engine.search(query, top_k=10, mode=mode)]
            for query in QUERIES for mode in ("dense", "sparse", "hybrid")}


@pytest.mark.parametrize("store", ["memory", "turboquant", "chroma"])
def test_two_builds_give_the_same_top_10(tmp_path: Path, store: str) -> None:
    if store == "chroma":
        pytest.importorskip("chromadb")
    first = build(tmp_path / "one", store, shuffled=False)
    second = build(tmp_path / "two", store, shuffled=True)
    try:
        assert first.count() == second.count()
        assert sorted(first.store.ids()) == sorted(second.store.ids())
        one, two = answers(first), answers(second)
        differing = [key for key in one if one[key] != two[key]]
        assert not differing, [(key, one[key], two[key]) for key in differing[:2]]
    finally:
        first.close()
        second.close()


def test_chroma_collections_are_searched_exactly_up_to_20k(tmp_path: Path) -> None:
    """Chroma's default ``ef_search`` (100) is approximate from a few thousand chunks on, and
    its graph depends on write order and threads: ragloom raises it to EXACT_UP_TO."""
    pytest.importorskip("chromadb")
    from ragloom.stores.chroma import EXACT_UP_TO

    engine = RAGEngine(hash_config(vector_store={"provider": "chroma"}), base_dir=tmp_path)
    try:
        configuration = engine.store._collection.configuration_json
        assert configuration["hnsw"]["ef_search"] == EXACT_UP_TO == 20_000
    finally:
        engine.close()
