"""The reader seam: which reader reads a file, span metadata, and a failing reader skips
its file with a reason instead of stopping the run."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers import hash_config, write
from ragloom import RAGEngine
from ragloom.config import RAGConfig
from ragloom.readers import ReadText, SkipFile, SpanLookup, TextSpan, reader_name_for, readers
from ragloom.readers.text import TextReader
from registries import restored


@pytest.fixture
def registered() -> Iterator[None]:
    """Two test readers: one for ``.crash`` files that raises, one for a media type."""

    class Crashing:
        def read(self, path: str, data: bytes) -> ReadText:
            raise ValueError("bad xref table")

    class Upper:
        def read(self, path: str, data: bytes) -> ReadText:
            return ReadText(data.decode().upper())

    with restored(readers):
        readers.register("crash")(lambda config: Crashing())
        readers.register("text/csv")(lambda config: Upper())
        yield


def test_reader_lookup_goes_extension_then_media_type_then_text(registered: None) -> None:
    assert reader_name_for("docs/Report.CRASH") == "crash"
    assert reader_name_for("data/table.csv") == "text/csv"  # by media type
    assert reader_name_for("src/app.py") == "text"
    assert reader_name_for("Makefile") == "text"


def test_a_failing_reader_skips_its_file_with_the_reason(tmp_path: Path, registered: None) -> None:
    write(tmp_path, "a.crash", "anything")
    write(tmp_path, "table.csv", "name,value\nlift,3\n")
    with RAGEngine(hash_config(), tmp_path) as engine:
        report = engine.index_directory()
        [chunk] = engine.store.get(engine.store.ids())
    assert [(s.path, s.reason) for s in report.skipped] == [
        ("a.crash", "Crashing failed: ValueError: bad xref table")]
    assert chunk.text == "NAME,VALUE\nLIFT,3\n"


def test_span_metadata_takes_the_first_value_and_marks_a_range() -> None:
    spans = SpanLookup((TextSpan(1, 4, {"page": 1}), TextSpan(5, 9, {"page": 2}),
                        TextSpan(10, 12, {"page": 3, "section": "B"})))
    assert spans.metadata_for(2, 3) == {"page": 1}
    assert spans.metadata_for(4, 10) == {"page": 1, "page_end": 3, "section": "B"}
    assert spans.metadata_for(13, 20) == {}


def test_the_text_reader_keeps_todays_rules() -> None:
    reader = TextReader()
    assert reader.read("a.txt", "\ufeffcafé\n".encode()).text == "café\n"
    with pytest.raises(SkipFile, match=r"^binary file \(NUL bytes\)$"):
        reader.read("a.bin", b"ELF\x00\x01")
    with pytest.raises(SkipFile, match=r"^not UTF-8 text$"):
        reader.read("a.txt", "é".encode("latin-1") * 50)
    almost = reader.read("a.txt", b"x" * 200 + b"\xff")
    assert almost.warning == "invalid UTF-8 replaced by U+FFFD in 1 place(s)"


def test_readers_get_the_engine_config(tmp_path: Path) -> None:
    seen: list[RAGConfig] = []
    with restored(readers):
        readers.register("seen")(lambda config: seen.append(config) or TextReader())
        write(tmp_path, "a.seen", "hello\n")
        write(tmp_path, "b.seen", "world\n")
        config = hash_config()
        with RAGEngine(config, tmp_path) as engine:
            engine.index_directory()
    assert seen == [config]  # built once per engine, shared by its reading threads
