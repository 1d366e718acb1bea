"""add_documents is ingest_text for a batch: each id is a source id, each text is ingested
with ingest_text's rules (redacted, chunked as plain text, versioned: the same text again
embeds nothing), in one write; delete_documents deletes those sources. A bad batch names
the culprit and writes nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import hash_config
from ragloom import RAGEngine

FRUIT = "Apples and pears grow in the orchard behind the old mill.\n"
FLIGHT = "Rockets and jets cross the sky above the launch pad.\n"
LONG = "".join(f"Paragraph {n} talks about topic number {n} in plain words.\n\n" for n in range(12))


def config(**overrides: object):
    return hash_config(relevance_gate=0.0, chunk_unit="characters", chunk_size=200, chunk_overlap=0,
                       **overrides)


def test_batch_add_then_search_finds_each_text_under_its_id(tmp_path: Path) -> None:
    with RAGEngine(config(), tmp_path) as engine:
        report = engine.add_documents(["d1", "d2"], [FRUIT, FLIGHT],
                                      [{"topic": "fruit"}, {"topic": "flight"}])
        assert (report.files_indexed, report.chunks_added, report.chunks_embedded) == (2, 2, 2)
        [top] = engine.search("apples pears orchard", top_k=1)
        assert (top.metadata["source_id"], top.metadata["topic"], top.metadata["source"]) == \
            ("d1", "fruit", "text")
        assert top.text == FRUIT
        # the same verb as ingest_text: the same text under the same id is nothing to do
        assert engine.ingest_text("d2", FLIGHT, {"topic": "flight"}).files_unchanged == 1


def test_re_adding_the_same_batch_embeds_nothing(tmp_path: Path) -> None:
    with RAGEngine(config(), tmp_path) as engine:
        engine.add_documents(["d1", "d2"], [FRUIT, FLIGHT])
        count = engine.count()
        again = engine.add_documents(["d1", "d2"], [FRUIT, FLIGHT])
        assert (again.files_unchanged, again.files_indexed, again.chunks_embedded) == (2, 0, 0)
        assert engine.count() == count


def test_a_changed_text_re_embeds_only_its_changed_chunks(tmp_path: Path) -> None:
    with RAGEngine(config(), tmp_path) as engine:
        first = engine.add_documents(["long", "d2"], [LONG, FLIGHT])
        chunks_of_long = first.chunks_added - 1
        assert chunks_of_long >= 3
        changed = LONG.replace("topic number 11", "an entirely new subject")
        report = engine.add_documents(["long", "d2"], [changed, FLIGHT])
        assert (report.files_indexed, report.files_unchanged) == (1, 1)
        assert report.chunks_embedded == 1  # the last chunk; the others come from the cache
        [hit] = engine.search("entirely new subject", top_k=1)
        assert hit.metadata["source_id"] == "long" and "entirely new subject" in hit.text


def test_delete_documents_removes_those_sources_and_returns_the_chunk_count(tmp_path: Path) -> None:
    with RAGEngine(config(), tmp_path) as engine:
        added = engine.add_documents(["long", "d1", "d2"], [LONG, FRUIT, FLIGHT])
        assert engine.delete_documents(["long", "d1"]) == added.chunks_added - 1
        assert {r.metadata["source_id"] for r in engine.search("topic apples rockets", top_k=20)} \
            == {"d2"}
        assert engine.delete_documents(["d2", "never-added"]) == 1
        assert engine.is_empty()
        assert engine.delete_source("d2") == 0


def test_added_texts_persist_across_a_reopen(tmp_path: Path) -> None:
    with RAGEngine(config(vector_store={"provider": "turboquant"}), tmp_path) as engine:
        engine.add_documents(["d1", "d2"], [FRUIT, FLIGHT])
    with RAGEngine(config(vector_store={"provider": "turboquant"}), tmp_path) as engine:
        assert engine.count() == 2
        assert engine.add_documents(["d1"], [FRUIT]).chunks_embedded == 0
        [top] = engine.search("rockets jets launch", top_k=1)
        assert top.metadata["source_id"] == "d2"
        assert engine.delete_documents(["d1", "d2"]) == 2
    with RAGEngine(config(vector_store={"provider": "turboquant"}), tmp_path) as engine:
        assert engine.is_empty()


def test_secrets_in_added_texts_are_redacted(tmp_path: Path) -> None:
    with RAGEngine(config(), tmp_path) as engine:
        report = engine.add_documents(["env"], ["AWS key AKIAIOSFODNN7EXAMPLE in the log\n"])
        [hit] = engine.search("aws key log", top_k=1)
    assert "AKIAIOSFODNN7EXAMPLE" not in hit.text and "[REDACTED:" in hit.text
    assert report.warnings and "env: redacted 1 secret" in report.warnings[0]


@pytest.mark.parametrize(("arguments", "message"), [
    ((["a", "b"], [FRUIT]), "ids and texts differ in length: 2, 1"),
    ((["a"], [FRUIT], [{}, {}]), "ids, texts and metadatas differ in length: 1, 1, 2"),
    ((["a", "b", "a"], [FRUIT, FLIGHT, FLIGHT]), "source 'a' appears more than once in ids"),
    ((["a", "b"], [FRUIT, b"bytes"]), "source 'b': text must be a string, got bytes"),
    ((["a", "b"], [FRUIT, None]), "source 'b': text must be a string, got NoneType"),
    ((["a", 7], [FRUIT, FLIGHT]), "source_id must be a non-empty string, got 7"),
    ((["a", ["b"]], [FRUIT, FLIGHT]), r"source_id must be a non-empty string, got \['b'\]"),
    ((["a", " "], [FRUIT, FLIGHT]), "source_id must be a non-empty string, got ' '"),
    ((["a", "b"], [FRUIT, FLIGHT], [{}, {"tags": ["x"]}]),
     r"source 'b': metadata 'tags' = \['x'\] must be a str"),
    ((["a"], [FRUIT], [{"source_id": "z"}]), "source 'a': metadata key 'source_id' is set by ragloom"),
    (("ab", ["x", "y"]), "ids must be a list, got str"),
])
def test_a_bad_batch_names_the_culprit_and_writes_nothing(tmp_path: Path, arguments: tuple,
                                                          message: str) -> None:
    with RAGEngine(config(), tmp_path) as engine:
        engine.add_documents(["kept"], [FRUIT])
        before = (engine.count(), engine.store.ids())
        with pytest.raises(ValueError, match=message):
            engine.add_documents(*arguments)
        assert (engine.count(), engine.store.ids()) == before
        assert engine.add_documents(["kept"], [FRUIT]).files_unchanged == 1


@pytest.mark.parametrize(("ids", "message"), [
    ("d1", "ids must be a list of source ids, got str"),
    (["d1", ""], "source id must be a non-empty string, got ''"),
    (["d1", 3], "source id must be a non-empty string, got 3"),
])
def test_delete_documents_refuses_bad_ids_and_deletes_nothing(tmp_path: Path, ids: object,
                                                               message: str) -> None:
    with RAGEngine(config(), tmp_path) as engine:
        engine.add_documents(["d1", "d2"], [FRUIT, FLIGHT])
        with pytest.raises(ValueError, match=message):
            engine.delete_documents(ids)  # type: ignore[arg-type]
        assert engine.count() == 2
