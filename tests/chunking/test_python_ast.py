"""The Python AST chunker: structure, headers, fallback, and the whole standard library."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from code_properties import check_code_chunks, check_definition_bounds
from properties import PYTHON_STRUCTURE_LINE, check_chunks, stdlib_sources

from ragloom.chunking.python_ast import PythonAstChunker

SOURCE = '''"""Module docstring."""
import os
import sys

LIMIT = 10  # a constant


# Leading comment of helper.
@functools.cache
def helper(value):
    """Double it."""
    return value * 2


async def fetch(url):
    return await get(url)


class Parser(Base):
    """Parse things.

    Longer description.
    """

    mode = "strict"

    def parse(self, text):
        tokens = self.lex(text)
        return [token.upper() for token in tokens if token and not token.startswith("#")]

    @staticmethod
    def lex(text):
        # split on whitespace, keeping punctuation attached to words as they were
        return text.split()


if __name__ == "__main__":
    print(helper(LIMIT))
'''


def by_symbol(chunks):
    return {c.metadata.get("symbol", ""): c for c in chunks}


def test_one_chunk_per_definition_and_statement_run() -> None:
    chunks = PythonAstChunker(1000, 200).chunk(SOURCE, "pkg/m.py")
    summary = [(c.metadata["kind"], c.metadata.get("symbol"), c.metadata["start_line"],
                c.metadata["end_line"]) for c in chunks]
    assert summary == [
        ("module", None, 1, 5),
        ("function", "helper", 8, 16),  # two small functions share a chunk
        ("class", "Parser", 19, 34),
        ("module", None, 37, 38),
    ]
    helper = by_symbol(chunks)["helper"]
    assert helper.metadata["symbols"] == "helper, fetch"
    assert helper.text.startswith("# Leading comment of helper.\n@functools.cache\ndef helper")
    assert all(c.metadata["chunker"] == "python_ast" for c in chunks)
    check_chunks(chunks, SOURCE, 1000)


def test_large_class_splits_per_method_with_class_header() -> None:
    chunks = PythonAstChunker(200, 20).chunk(SOURCE, "m.py")
    symbols = [(c.metadata["kind"], c.metadata.get("symbol")) for c in chunks]
    assert ("class", "Parser") in symbols
    assert ("method", "Parser.parse") in symbols and ("method", "Parser.lex") in symbols
    parse = by_symbol(chunks)["Parser.parse"]
    assert parse.text.startswith('class Parser(Base):\n    """Parse things."""\n    def parse(self, text):')
    lex = by_symbol(chunks)["Parser.lex"]
    assert lex.text.startswith('class Parser(Base):\n    """Parse things."""\n    @staticmethod\n')
    head = by_symbol(chunks)["Parser"]
    assert head.text.startswith("class Parser(Base):\n") and 'mode = "strict"' in head.text
    check_chunks(chunks, SOURCE, 200)


CLASS_WITHOUT_DOCSTRING = '''class Adapter(Base):
    # Transport settings
    # shared by every method.

    def close(self):
        for connection in self.pool.values():
            connection.close(force=True, reason="adapter closed", notify=self.listeners)

    @overload
    def send(self, request: str) -> str: ...
    @overload
    def send(self, request: bytes) -> bytes: ...
    def send(self, request):
        payload = encode(request, self.settings, self.timeout, self.retries, self.proxies)
        return self.transport.deliver(payload, verify=self.verify, stream=self.stream)
'''


def test_a_lone_class_line_opens_its_first_member_and_overloads_share_a_chunk() -> None:
    chunks = PythonAstChunker(300, 30).chunk(CLASS_WITHOUT_DOCSTRING, "a.py")
    # overloads share a chunk; their one name is its symbol (``symbols`` names each once)
    assert [(c.metadata["start_line"], c.metadata["end_line"], c.metadata.get("symbols"))
            for c in chunks] == [(1, 7, None), (9, 12, None), (13, 15, None)]
    assert chunks[1].metadata["symbol"] == "Adapter.send"
    assert chunks[0].text.startswith("class Adapter(Base):\n    # Transport settings\n")
    assert chunks[0].metadata["symbol"] == "Adapter.close"
    for later in chunks[1:]:  # the class line is repeated, without the comment block
        assert later.text.startswith("class Adapter(Base):\n    @overload\n" if later is chunks[1]
                                     else "class Adapter(Base):\n    def send(self, request):")
    check_chunks(chunks, CLASS_WITHOUT_DOCSTRING, 300)


def test_large_function_splits_with_signature_repeated() -> None:
    body = "".join(f"    total += item_{i} * {i}\n" for i in range(60))
    source = f"def accumulate(\n    items,\n):\n    total = 0\n{body}    return total\n"
    chunks = PythonAstChunker(300, 30).chunk(source, "f.py")
    assert len(chunks) > 3
    assert {c.metadata["symbol"] for c in chunks} == {"accumulate"}
    assert [c.metadata["part"] for c in chunks] == list(range(len(chunks)))
    for chunk in chunks[1:-1]:
        assert chunk.text.startswith("def accumulate(\n    items,\n):\n    total += item_")
    # the rest fits one chunk once the header shrinks to the definition's first line
    assert chunks[-1].text.startswith("def accumulate(\n    total += item_")
    check_chunks(chunks, source, 300)


def test_syntax_error_falls_back_to_characters() -> None:
    source = "def broken(:\n    pass\n" + "x = 1\n" * 50
    chunks = PythonAstChunker(100, 10).chunk(source, "bad.py")
    assert chunks and all(c.metadata["chunker"] == "character" for c in chunks)
    assert chunks[0].metadata["parse_error"].startswith("SyntaxError")
    assert "line 1" in chunks[0].metadata["parse_error"]
    check_chunks(chunks, source, 100)


def test_nul_bytes_and_empty_files() -> None:
    assert PythonAstChunker().chunk("", "e.py") == []
    assert PythonAstChunker().chunk("\n\n# only a comment\n", "c.py")[0].text == "# only a comment\n"
    chunks = PythonAstChunker().chunk("x = 1\x00\n", "n.py")
    assert "parse_error" in chunks[0].metadata


def test_engine_uses_ast_chunker_for_python(make_engine, project: Path) -> None:
    (project / "m.py").write_text(SOURCE)
    engine = make_engine()
    engine.index_directory()
    result = engine.search("Double it helper", top_k=1)[0]
    assert result.metadata["symbol"] == "helper"
    assert result.metadata["language"] == "python"
    plain = make_engine(chunking={"ast_chunking": False})
    assert plain._indexer.chunker.chunker_for("m.py").__class__.__name__ == "CharacterChunker"


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::SyntaxWarning")
def test_whole_standard_library() -> None:
    """Never raises; each top-level def/class that fits is whole in exactly one chunk;
    line ranges and slices are exact; no non-blank line is lost; the bounds of issue 26
    (header cap, half-window floor, chunks per definition) hold."""
    chunk_size = 1000
    chunker = PythonAstChunker(chunk_size, 200)
    checked_definitions = 0
    for path, source in stdlib_sources():
        chunks = chunker.chunk(source, path.name)
        check_code_chunks(chunks, source, chunk_size, PYTHON_STRUCTURE_LINE)
        if chunks and "parse_error" in chunks[0].metadata:
            continue
        check_definition_bounds(chunks, source, chunk_size)
        lines = source.split("\n")
        for node in ast.parse(source).body:
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            text = "\n".join(lines[first - 1: node.end_lineno])
            if len(text) + 1 > chunk_size:
                continue
            holders = [c for c in chunks if text in c.text
                       and c.metadata["start_line"] <= first <= c.metadata["end_line"]]
            assert len(holders) == 1, (path, node.name, len(holders))
            meta = holders[0].metadata
            assert node.name in (meta.get("symbols") or meta["symbol"]).split(", ")
            checked_definitions += 1
    assert checked_definitions > 5_000


def test_a_module_level_run_of_imports_alone_is_kind_imports() -> None:
    migration = ("# Generated by Django 4.2.6 on 2023-10-21 17:45\n\n"
                 "from django.db import migrations, models\n"
                 "\n\nclass Migration(migrations.Migration):\n    dependencies = [(\"core\", \"0031\")]\n"
                 "    operations = [migrations.AddField(\"child\", \"birth_time\", models.TimeField())]\n")
    chunks = PythonAstChunker(200, 40).chunk(migration, "core/migrations/0032_child_birth_time.py")
    assert [(c.metadata["start_line"], c.metadata["end_line"], c.metadata["kind"]) for c in chunks] == [
        (1, 3, "imports"), (6, 8, "class")]
    # a docstring or a constant among them: statements, not imports
    mixed = PythonAstChunker(60, 10).chunk('"""Tools."""\nimport os\n\n\ndef f():\n    return os.sep\n',
                                           "t.py")
    assert [(c.metadata["start_line"], c.metadata["kind"]) for c in mixed] == [(1, "module"), (5, "function")]


URLS = ("# This file is part of an app.\n#\n# Licensed under the AGPL.\n\n"
        "from django.urls import path\n\nfrom app import views\n\n\n"
        "urlpatterns = [\n"
        + "".join(f"    path('page{n}/', views.page{n}, name='page{n}'),\n" for n in range(12))
        + "]\n")


def spans(chunks):
    return [(c.metadata["start_line"], c.metadata["end_line"], c.metadata["kind"]) for c in chunks]


def test_a_long_statement_run_is_cut_where_its_opening_imports_end() -> None:
    # cut between lines, the first part held the imports and `urlpatterns = [`: a chunk
    # of imports in all but name
    chunks = PythonAstChunker(300, 40).chunk(URLS, "app/urls.py")
    assert spans(chunks)[0] == (1, 7, "imports")
    assert chunks[0].text.startswith("# This file is part of an app.")
    assert chunks[0].text.rstrip().endswith("from app import views")
    assert chunks[1].metadata["start_line"] == 10 and chunks[1].metadata["kind"] == "module"
    assert chunks[1].text.startswith("urlpatterns = [")
    assert all(c.metadata["kind"] == "module" for c in chunks[1:])
    assert chunks[-1].metadata["end_line"] == URLS.count("\n")


def test_opening_imports_open_the_code_after_them_when_both_fit() -> None:
    text = ("import os\n" * 30) + "\nROOT = os.sep\nNAME = 'x'\n"
    chunks = PythonAstChunker(200, 40).chunk(text, "settings.py")
    # the imports alone are over one window: their last part opens the constants' chunk
    assert [kind for _, _, kind in spans(chunks)] == ["imports", "module"]
    assert spans(chunks)[-1][1] == 33 and "ROOT = os.sep" in chunks[-1].text
    assert chunks[-1].text.startswith("import os")


def test_optional_and_type_checking_imports_are_imports() -> None:
    text = ("import os\ntry:\n    import ffmpeg\nexcept ImportError:\n    ffmpeg = None\n"
            "if TYPE_CHECKING:\n    from app.models import Video\n\n\nclass Player:\n    pass\n")
    chunks = PythonAstChunker(200, 20).chunk(text, "player.py")
    assert spans(chunks) == [(1, 7, "imports"), (10, 11, "class")]
    # a fallback doing more than naming the missing module is code
    for fallback in ("    ffmpeg = load()\n", "    ffmpeg = None\nelse:\n    Player = ffmpeg.Player\n",
                     "    ffmpeg = lambda: None\n"):
        code = text.replace("    ffmpeg = None\n", fallback)
        assert spans(PythonAstChunker(200, 20).chunk(code, "player.py"))[0][2] == "module", fallback


def test_a_run_opened_by_the_module_docstring_is_not_cut_at_its_imports() -> None:
    text = '"""Routes of the app."""\n' + URLS.split("\n\n", 1)[1]
    chunks = PythonAstChunker(300, 40).chunk(text, "app/urls.py")
    assert chunks[0].metadata["kind"] == "module"
    assert "Routes of the app." in chunks[0].text
