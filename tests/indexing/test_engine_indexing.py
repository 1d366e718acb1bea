"""The write path end to end: ids, idempotence, partial re-embedding, deletions, skips."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from helpers import write
from ragloom import IndexProgress, RAGEngine, RagloomError
from ragloom.chunking import chunk_id


def make_tree(root: Path) -> None:
    write(root, "src/app.py", "".join(f"def step_{i}():\n    print('step {i}')\n" for i in range(40)))
    write(root, "docs/guide.md", "# Guide\n\nInstall the package, then run it.\n")
    write(root, "notes.txt", "Parsers turn text into trees.\n")


def test_index_directory_reports_and_stores_relative_paths(make_engine, project: Path) -> None:
    make_tree(project)
    engine = make_engine()
    report = engine.index_directory()
    assert report.files_indexed == 3
    assert report.chunks_added == engine.count() == report.chunks_embedded
    assert engine.get_all_indexed_paths() == ["docs/guide.md", "notes.txt", "src/app.py"]
    assert not engine.is_empty()


def test_chunk_ids_are_path_and_index(make_engine, project: Path) -> None:
    make_tree(project)
    engine = make_engine()
    engine.index_directory()
    result = engine.search("Parsers turn text into trees", top_k=1)[0]
    assert result.id == chunk_id("notes.txt", 0)
    assert result.metadata["path"] == "notes.txt"


def test_reindexing_unchanged_tree_is_idempotent(make_engine, project: Path) -> None:
    make_tree(project)
    engine = make_engine()
    first = engine.index_directory()
    count = engine.count()
    second = engine.index_directory()
    assert engine.count() == count
    assert (second.files_indexed, second.files_unchanged, second.chunks_embedded) == (0, 3, 0)
    assert first.files_indexed == 3


def test_touched_but_identical_file_is_not_reindexed(make_engine, project: Path) -> None:
    make_tree(project)
    engine = make_engine()
    engine.index_directory()
    path = project / "notes.txt"
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 5_000_000_000))
    report = engine.index_directory()
    assert (report.files_indexed, report.files_unchanged) == (0, 3)


def test_editing_one_file_reembeds_only_its_changed_chunks(make_engine, project: Path) -> None:
    paragraphs = [f"Paragraph {i} talks about topic {i} at some length.\n" * 3 for i in range(6)]
    write(project, "a.txt", "".join(paragraphs))
    write(project, "b.txt", "Another file entirely.\n")
    engine = make_engine(chunk_size=150, chunk_overlap=0)
    engine.index_directory()
    count = engine.count()
    old_text = (project / "a.txt").read_text()
    new_text = old_text[:-10] + "CHANGED!!\n"  # same length: only the last window changes
    assert len(new_text) == len(old_text)
    (project / "a.txt").write_text(new_text)
    report = engine.index_directory()
    assert report.files_indexed == 1 and report.files_unchanged == 1
    assert report.chunks_embedded == 1
    assert engine.count() == count


def test_shrinking_a_file_removes_its_extra_chunks(make_engine, project: Path) -> None:
    write(project, "a.txt", "word " * 1000)
    engine = make_engine(chunk_size=100, chunk_overlap=0)
    engine.index_directory()
    assert engine.count() == 50
    write(project, "a.txt", "word " * 100)
    report = engine.index_directory()
    assert engine.count() == 5
    assert report.chunks_removed == 45
    assert engine.store.get([chunk_id("a.txt", 5)]) == []


def test_deleted_file_is_removed(make_engine, project: Path) -> None:
    make_tree(project)
    engine = make_engine()
    engine.index_directory()
    (project / "notes.txt").unlink()
    report = engine.index_directory()
    assert report.files_removed == 1
    assert "notes.txt" not in engine.get_all_indexed_paths()
    assert all(r.metadata["path"] != "notes.txt" for r in engine.search("parsers trees", top_k=10))


def test_deletion_outside_the_indexed_subtree_is_left_alone(make_engine, project: Path) -> None:
    make_tree(project)
    engine = make_engine()
    engine.index_directory()
    (project / "notes.txt").unlink()
    engine.index_directory("src")
    assert "notes.txt" in engine.get_all_indexed_paths()


def test_index_file_and_delete_by_path(make_engine, project: Path) -> None:
    make_tree(project)
    engine = make_engine()
    report = engine.index_file("docs/guide.md")
    assert report.files_indexed == 1
    assert engine.get_all_indexed_paths() == ["docs/guide.md"]
    assert engine.delete_documents_by_path("docs/guide.md") == 1
    assert engine.is_empty()
    again = engine.index_file(project / "docs/guide.md")
    assert again.files_indexed == 1, "a deleted path must be indexable again"
    with pytest.raises(FileNotFoundError, match="missing.txt"):
        engine.index_file("missing.txt")


def test_default_excludes_and_secrets(make_engine, project: Path) -> None:
    write(project, "keep.py", "x = 1\n")
    for relative in [".git/config", "node_modules/m/index.js", ".venv/lib/site.py",
                     "pkg/__pycache__/m.py", ".env", ".env.local", "certs/server.pem",
                     "deploy.key", "home/id_rsa", "home/id_rsa.pub"]:
        write(project, relative, "SECRET=1\n")
    engine = make_engine()
    report = engine.index_directory()
    assert engine.get_all_indexed_paths() == ["keep.py"]
    skipped = {s.path: s.reason for s in report.skipped}
    assert set(skipped) == {".env", ".env.local", "certs/server.pem", "deploy.key",
                            "home/id_rsa", "home/id_rsa.pub"}
    assert all("secret" in reason for reason in skipped.values())


def test_secret_file_indexed_when_named_by_include(make_engine, project: Path) -> None:
    write(project, "config/.env.staging", "API_URL=http://localhost\n")
    write(project, "a.py", "x = 1\n")
    engine = make_engine()
    engine.index_directory(include=["*"])
    assert engine.get_all_indexed_paths() == ["a.py"]
    engine.index_directory(include=[".env.staging"])
    assert "config/.env.staging" in engine.get_all_indexed_paths()


def test_committed_env_template_indexed_with_values_redacted(make_engine, project: Path) -> None:
    write(project, ".env", "DB_PASSWORD=Qz7kLm2pXw9v\n")
    write(project, ".env.example", "# Which database the app talks to\nDB_CONNECTION=mysql\n"
                                   "DB_PASSWORD=Qz7kLm2pXw9v\n")
    engine = make_engine()
    report = engine.index_directory()
    assert engine.get_all_indexed_paths() == [".env.example"]
    assert [s.path for s in report.skipped] == [".env"]
    result = engine.search("which database connection does the app use", top_k=1)[0]
    assert result.metadata["path"] == ".env.example"
    assert result.text.splitlines()[-2:] == ["DB_CONNECTION=mysql", "DB_PASSWORD=[REDACTED:secret]"]


def test_full_env_settings_reference_is_a_template_whatever_its_last_suffix(make_engine,
                                                                          project: Path) -> None:
    write(project, ".env.local", "MAIL_PASSWORD=Qz7kLm2pXw9v\n")
    write(project, ".env.example.complete", "# Outgoing mail server\nMAIL_HOST=smtp.example.com\n"
                                            "MAIL_PASSWORD=Qz7kLm2pXw9v\n")
    engine = make_engine()
    report = engine.index_directory()
    assert engine.get_all_indexed_paths() == [".env.example.complete"]
    assert [s.path for s in report.skipped] == [".env.local"]
    result = engine.search("which mail server sends email", top_k=1)[0]
    assert result.text.splitlines()[-1] == "MAIL_PASSWORD=[REDACTED:secret]"


def test_include_and_exclude_globs(make_engine, project: Path) -> None:
    make_tree(project)
    write(project, "src/gen/big.py", "x = 2\n")
    engine = make_engine()
    engine.index_directory(include=["*.py"], exclude=["src/gen/"])
    assert engine.get_all_indexed_paths() == ["src/app.py"]


def test_binary_file_skipped_with_reason(make_engine, project: Path) -> None:
    (project / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00binary")
    write(project, "a.txt", "text\n")
    engine = make_engine()
    report = engine.index_directory()
    assert engine.get_all_indexed_paths() == ["a.txt"]
    assert [(s.path, s.reason) for s in report.skipped] == [("image.png", "binary file (NUL bytes)")]


def test_mostly_invalid_utf8_is_skipped_slightly_invalid_is_kept(make_engine, project: Path) -> None:
    (project / "latin1.txt").write_bytes(("café au lait " * 50).encode("latin-1"))
    (project / "mostly.txt").write_bytes(b"good text " * 100 + b"\xff")
    engine = make_engine()
    report = engine.index_directory()
    assert engine.get_all_indexed_paths() == ["mostly.txt"]
    assert ("latin1.txt", "not UTF-8 text") in [(s.path, s.reason) for s in report.skipped]
    assert any(w.startswith("mostly.txt: invalid UTF-8") for w in report.warnings)


def test_oversized_file_skipped(make_engine, project: Path) -> None:
    write(project, "big.txt", "x" * 2000)
    engine = make_engine(max_file_bytes=1000)
    report = engine.index_directory()
    assert engine.is_empty()
    assert "larger than max_file_bytes" in report.skipped[0].reason


def test_file_that_became_binary_loses_its_chunks(make_engine, project: Path) -> None:
    write(project, "a.dat", "readable text\n")
    engine = make_engine()
    engine.index_directory()
    (project / "a.dat").write_bytes(b"\x00\x01\x02")
    report = engine.index_directory()
    assert engine.is_empty() and report.files_removed == 1


def test_documents_survive_directory_reindex(make_engine, project: Path) -> None:
    make_tree(project)
    engine = make_engine()
    engine.add_documents(["faq-1"], ["How do I reset my password?"])
    engine.index_directory()
    engine.index_directory()
    [hit] = engine.search("reset password", top_k=1, filters={"source_id": "faq-1"})
    assert hit.text == "How do I reset my password?"


def test_progress_counts_files_and_chunks_embedded(make_engine, project: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    import ragloom.indexing.indexer as indexer

    monkeypatch.setattr(indexer, "EMBED_WINDOW_CHUNKS", 4)  # several windows
    for index in range(12):
        body = "".join(f"    x{n} = {n} * {index}\n" for n in range(20))  # no small functions to merge
        write(project, f"m{index:02d}.py", "".join(f"def f{index}_{i}():\n{body}\n\n"
                                                   for i in range(3)))
    calls: list[IndexProgress] = []
    engine = make_engine()
    report = engine.index_directory(progress=calls.append)
    last = calls[-1]
    assert (last.files_done, last.files_total) == (12, 12)
    assert last.chunks_embedded == last.chunks_to_embed == report.chunks_added == 36
    assert not last.estimated and last.eta_seconds == 0
    assert [c.files_done for c in calls] == sorted(c.files_done for c in calls)
    assert [c.chunks_embedded for c in calls] == sorted(c.chunks_embedded for c in calls)
    # 3 chunks x 12 files, estimated within a factor of two: 15 kB of modules are far fewer
    # bytes than PRIOR_BYTES, so the chunk window's guess leads (test_progress_estimate.py)
    assert calls[0].estimated and 18 <= calls[0].chunks_to_embed <= 72
    assert any(0 < c.chunks_embedded < 36 for c in calls)  # progress while the run goes on
    write(project, "m00.py", "def changed():\n    return 0\n")
    calls.clear()
    engine.index_directory(progress=calls.append)
    assert (calls[-1].files_done, calls[-1].chunks_embedded, calls[-1].chunks_to_embed) == (12, 1, 1)


def test_disabled_engine_builds_nothing_and_finds_nothing(make_engine, project: Path) -> None:
    engine = make_engine(enabled=False)
    assert engine.search("anything") == []
    assert engine.is_empty()
    with pytest.raises(RagloomError, match="disabled"):
        engine.index_directory()


def test_index_directory_on_a_file_is_a_clear_error(make_engine, project: Path) -> None:
    make_tree(project)
    with pytest.raises(NotADirectoryError, match="notes.txt"):
        make_engine().index_directory("notes.txt")


def test_a_closed_engine_refuses_searches_like_writes(make_engine, project: Path) -> None:
    make_tree(project)
    engine = make_engine()
    engine.index_directory()
    engine.close()
    with pytest.raises(RagloomError, match="this RAGEngine is closed"):
        engine.search("alpha")
    with pytest.raises(RagloomError, match="this RAGEngine is closed"):
        engine.index_directory()


def test_stopping_auto_sync_on_a_disabled_engine_is_a_no_op(make_engine) -> None:
    engine = make_engine(enabled=False)
    engine.stop_auto_sync()
    engine.close()


def test_reports_merge_counts_skips_and_warnings() -> None:
    from ragloom import IndexReport
    from ragloom.types import SkippedFile

    total = IndexReport(files_indexed=1, chunks_added=3, seconds=0.5, warnings=["a"])
    total.merge(IndexReport(files_indexed=2, files_removed=1, chunks_added=4, seconds=0.25,
                            skipped=[SkippedFile("x.bin", "binary")], warnings=["b"]))
    assert (total.files_indexed, total.files_removed, total.chunks_added, total.seconds) == (3, 1, 7, 0.75)
    assert total.skipped == [SkippedFile("x.bin", "binary")] and total.warnings == ["a", "b"]


def _notes_in_small_windows(project: Path, monkeypatch: pytest.MonkeyPatch, count: int) -> None:
    """``count`` one-chunk notes n00.md, n01.md, ..., embedded in windows of 2, 4, 8, ..."""
    import ragloom.indexing.indexer as indexer

    monkeypatch.setattr(indexer, "FIRST_WINDOW_CHUNKS", 2)
    for index in range(count):
        write(project, f"n{index:02d}.md", f"note {index} about wings\n")


def test_the_next_files_are_chunked_while_a_window_is_embedded(make_engine, project: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Windows start small and double (2, 4, ...); while the first one is being embedded,
    the worker threads go on reading and chunking the files after it."""
    _notes_in_small_windows(project, monkeypatch, 12)
    engine = make_engine()
    chunked: list[str] = []
    last_file_chunked = threading.Event()
    chunk = engine._indexer.chunker.chunk

    def spy(text: str, path: str, *args: object, **kwargs: object) -> object:
        chunked.append(path)
        if path == "n11.md":
            last_file_chunked.set()
        return chunk(text, path, *args, **kwargs)

    monkeypatch.setattr(engine._indexer.chunker, "chunk", spy)
    windows: list[tuple[int, int]] = []  # (texts embedded, files chunked by then)
    embed = engine.provider._embed_batch

    def first_waits(texts: list[str], task: str) -> object:
        if not windows:  # the first window waits for the last file to be chunked
            assert last_file_chunked.wait(timeout=60), "the files after the first window were not chunked"
        windows.append((len(texts), len(chunked)))
        return embed(texts, task)

    monkeypatch.setattr(engine.provider, "_embed_batch", first_waits)
    report = engine.index_directory()
    assert report.files_indexed == 12 and engine.count() == 12
    assert windows == [(2, 12), (4, 12), (6, 12)]  # windows of 2, 4, then the last 6 of 8


def _first_write_waits_for_the_second_window(engine: RAGEngine, monkeypatch: pytest.MonkeyPatch
                                              ) -> tuple[list[int], list[list[str]]]:
    """Record each embedding call's size and each store write's paths; the first write waits
    until the model has started on the second window (done in the wrong order, it times out)."""
    embedded: list[int] = []
    written: list[list[str]] = []
    second_window_started = threading.Event()
    embed, upsert = engine.provider._embed_batch, engine.store.upsert

    def spy(texts: list[str], task: str) -> object:
        embedded.append(len(texts))
        if len(embedded) == 2:
            second_window_started.set()
        return embed(texts, task)

    def first_write_waits(ids: list[str], vectors: object, texts: list[str], metadatas: list[dict]) -> object:
        if not written:
            assert second_window_started.wait(timeout=60), "the second window was not started first"
        written.append(sorted(str(metadata["path"]) for metadata in metadatas))
        return upsert(ids, vectors, texts, metadatas)

    monkeypatch.setattr(engine.provider, "_embed_batch", spy)
    monkeypatch.setattr(engine.store, "upsert", first_write_waits)
    return embedded, written


def test_the_next_window_is_embedded_while_the_one_before_is_written(make_engine, project: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The first window's store write waits until the model has started on the second one
    (done one after the other, it would wait forever); progress is still told on the
    caller's thread, and windows are written in order."""
    _notes_in_small_windows(project, monkeypatch, 6)
    engine = make_engine()
    embedded, written = _first_write_waits_for_the_second_window(engine, monkeypatch)
    told_on: set[threading.Thread] = set()
    report = engine.index_directory(progress=lambda _: told_on.add(threading.current_thread()))
    assert report.files_indexed == 6 and engine.count() == 6
    assert embedded == [2, 4]
    assert written == [["n00.md", "n01.md"], ["n02.md", "n03.md", "n04.md", "n05.md"]]
    assert told_on == {threading.current_thread()}


def test_the_next_window_is_queued_before_an_embedded_one_is_written(make_engine, project: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Progressive indexing: when the first window's vectors are ready before the second
    window is read (a fast model), the second is handed to the model before the first one's
    vectors are written, so the model never waits for the store."""
    _notes_in_small_windows(project, monkeypatch, 6)
    engine = make_engine()
    assert engine.config.progressive_indexing
    embedded, written = _first_write_waits_for_the_second_window(engine, monkeypatch)
    import ragloom.indexing.backfill as backfill_module

    backfills: list[backfill_module.Backfill] = []
    make_backfill = backfill_module.Backfill.__init__

    def remembered(self: backfill_module.Backfill, *args: object, **kwargs: object) -> None:
        make_backfill(self, *args, **kwargs)  # type: ignore[arg-type]
        backfills.append(self)

    monkeypatch.setattr(backfill_module.Backfill, "__init__", remembered)
    writer = engine._indexer.writer
    write_sparse = writer.write_sparse
    sparse_writes: list[int] = []

    def second_sparse_write_after_the_first_vectors(window: object, report: object) -> object:
        sparse_writes.append(1)
        if len(sparse_writes) == 2:  # the order a fast model makes: window 1 embedded already
            backfills[0]._in_flight[0].future.result(timeout=60)
        return write_sparse(window, report)

    monkeypatch.setattr(writer, "write_sparse", second_sparse_write_after_the_first_vectors)
    report = engine.index_directory()
    assert report.files_indexed == 6 and engine.count() == 6
    assert embedded == [2, 4]
    assert written == [["n00.md", "n01.md"], ["n02.md", "n03.md", "n04.md", "n05.md"]]


def test_after_a_window_fails_the_windows_behind_it_are_not_embedded(make_engine, project: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    _notes_in_small_windows(project, monkeypatch, 14)  # windows of 2, 4 and 8
    engine = make_engine()
    calls: list[int] = []
    embed = engine.provider._embed_batch

    def second_fails(texts: list[str], task: str) -> object:
        calls.append(len(texts))
        if len(calls) == 2:
            raise RuntimeError("the model fell over")
        return embed(texts, task)

    monkeypatch.setattr(engine.provider, "_embed_batch", second_fails)
    with pytest.raises(RuntimeError, match="the model fell over"):
        engine.index_directory()
    assert calls == [2, 4]  # the third window was queued, never embedded
    stored = sorted(str(chunk.metadata["path"]) for chunk in engine.store.get(engine.store.ids()))
    assert engine.count() == 2 and stored == ["n00.md", "n01.md"]  # BM25 holds more (progressive)


@pytest.mark.parametrize("failing", ["chunker", "reader"])
def test_one_files_failing_chunker_or_reader_never_aborts_the_run(
        make_engine, project: Path, monkeypatch: pytest.MonkeyPatch, failing: str) -> None:
    """A chunker or reader that raises on one file (a parser bug, a CPython bug such as
    gh-106905 under threads) skips that file with the reason; the rest is indexed."""
    from ragloom.chunking.registry import FileChunker
    from ragloom.readers.registry import FileReaders

    for index in range(12):
        write(project, f"src/module_{index}.py", f"def function_{index}():\n    return {index}\n")
    if failing == "chunker":
        real = FileChunker.chunk

        def chunk(self, text, path, *args, **kwargs):  # type: ignore[no-untyped-def]
            if path.endswith("module_7.py"):
                raise SystemError("AST constructor recursion depth mismatch")
            return real(self, text, path, *args, **kwargs)

        monkeypatch.setattr(FileChunker, "chunk", chunk)
    else:
        real_for_path = FileReaders.for_path

        def for_path(self, relative):  # type: ignore[no-untyped-def]
            reader = real_for_path(self, relative)
            if not relative.endswith("module_7.py"):
                return reader

            class Broken:
                def read(self, relative, data):  # type: ignore[no-untyped-def]
                    raise MemoryError("reader blew up")

            return Broken()

        monkeypatch.setattr(FileReaders, "for_path", for_path)
    engine = make_engine()
    report = engine.index_directory()
    assert report.files_indexed == 11
    assert [s.path for s in report.skipped] == ["src/module_7.py"]
    reason = report.skipped[0].reason
    assert ("SystemError: AST constructor recursion depth mismatch" in reason if failing == "chunker"
            else "MemoryError: reader blew up" in reason), reason
    assert engine.search("function_3", top_k=1)[0].metadata["path"] == "src/module_3.py"
    monkeypatch.undo()
    again = engine.index_directory()  # fixed: the skipped file is indexed next time
    assert (again.files_indexed, again.files_skipped) == (1, 0)
