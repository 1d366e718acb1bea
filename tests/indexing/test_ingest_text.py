"""Texts from anywhere: ingest_text chunks and embeds under a stable source id with the
rules files follow (unchanged = nothing, changed = only new chunks embedded), survives a
reopen and a tree walk, is verified, and delete_source removes it."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import hash_config, write
from ragloom import RAGEngine
from ragloom.prompt import describe_source

TICKET = ("# Login fails\n\nUsers see error 500 after the password reset.\n\n"
          "## Cause\n\nThe session table was not migrated.\n")


def test_ingest_reingest_change_delete(tmp_path: Path) -> None:
    write(tmp_path, "src/app.py", "def login(user):\n    return user\n")
    config = hash_config(vector_store={"provider": "turboquant"}, relevance_gate=0.0, chunk_size=80,
                         chunk_overlap=0)
    with RAGEngine(config, tmp_path) as engine:
        engine.index_directory()
        first = engine.ingest_text("ticket-42", TICKET, {"url": "https://t.example/42"}, "markdown")
        assert (first.files_indexed, first.chunks_added, first.chunks_embedded) == (1, 2, 2)
        again = engine.ingest_text("ticket-42", TICKET, {"url": "https://t.example/42"}, "markdown")
        assert (again.files_unchanged, again.chunks_embedded) == (1, 0)
        [hit] = engine.search("session table migrated", top_k=1, filters={"source_id": "ticket-42"})
        assert hit.metadata["heading_path"] == "Login fails > Cause"
        assert (hit.metadata["source"], hit.metadata["source_type"], hit.metadata["url"]) == (
            "text", "text", "https://t.example/42")
        assert "path" not in hit.metadata
        assert describe_source(hit) == "Source: ticket-42 (text, chunk 1, lines 5-7)"
    with RAGEngine(config, tmp_path) as engine:  # reopen, and a walk does not drop it
        walked = engine.index_directory()
        assert walked.files_removed == 0
        changed = TICKET.replace("was not migrated", "lost its index")
        report = engine.ingest_text("ticket-42", changed, {"url": "https://t.example/42"}, "markdown")
        assert (report.files_indexed, report.chunks_embedded) == (1, 1)  # only the changed section
        assert engine.verify().ok
        texts = [r.text for r in engine.search("session table", top_k=5,
                                                filters={"source_id": "ticket-42"})]
        assert any("lost its index" in t for t in texts) and not any("not migrated" in t for t in texts)
        assert engine.get_all_indexed_paths() == ["src/app.py"]
        assert engine.delete_source("ticket-42") == 2
        assert engine.delete_source("ticket-42") == 0
        assert engine.search("session table", filters={"source_id": "ticket-42"}) == []
        assert engine.verify().ok


def test_a_text_id_never_clashes_with_a_file_path(tmp_path: Path) -> None:
    write(tmp_path, "notes.md", "# Notes\nfile text about gliders\n")
    with RAGEngine(hash_config(relevance_gate=0.0), tmp_path) as engine:
        engine.index_directory()
        engine.ingest_text("notes.md", "text about sailplanes\n")
        sources = {(r.metadata["source"], r.metadata.get("path"), r.metadata.get("source_id"))
                   for r in engine.search("gliders sailplanes", top_k=5)}
        assert sources == {("file", "notes.md", None), ("text", None, "notes.md")}
        assert engine.delete_documents_by_path("notes.md") == 1
        assert [r.metadata["source"] for r in engine.search("gliders sailplanes", top_k=5)] == ["text"]


@pytest.mark.parametrize(("arguments", "message"), [
    (("", "x"), "source_id must be a non-empty string"),
    (("a", b"bytes"), "source 'a': text must be a string, got bytes"),
    (("a", "x", {"path": "p"}), "source 'a': metadata key 'path' is set by ragloom"),
    (("a", "x", {"tags": ["x"]}), "source 'a': metadata 'tags' = \\['x'\\] must be a str"),
])
def test_bad_arguments_name_the_culprit_and_write_nothing(tmp_path: Path, arguments: tuple,
                                                          message: str) -> None:
    with RAGEngine(hash_config(), tmp_path) as engine:
        with pytest.raises(ValueError, match=message):
            engine.ingest_text(*arguments)
        assert engine.count() == 0


def test_secrets_in_texts_are_redacted(tmp_path: Path) -> None:
    with RAGEngine(hash_config(relevance_gate=0.0), tmp_path) as engine:
        report = engine.ingest_text("env-dump", "AWS key AKIAIOSFODNN7EXAMPLE in the log\n")
        [hit] = engine.search("aws key log", top_k=1)
    assert "AKIAIOSFODNN7EXAMPLE" not in hit.text and "[REDACTED:" in hit.text
    assert report.warnings and "redacted 1 secret" in report.warnings[0]
