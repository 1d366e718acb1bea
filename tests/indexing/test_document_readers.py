"""PDF, HTML, notebook and reStructuredText files, read and chunked: PDFs made here from
known text and real ones from Debian's documentation, real HTML and notebooks from
installed packages, and the broken files a folder of documents always has."""

from __future__ import annotations

import importlib.util
import logging
import re
import shutil
from pathlib import Path

import pytest

from helpers import hash_config, write
from ragloom import RAGEngine
from ragloom.prompt import describe_source
from ragloom.readers.library_logs import summary
from ragloom.types import Chunk

pytest.importorskip("pypdf", reason="the pdf extra is not installed")
pytest.importorskip("fpdf", reason="fpdf2 (a dev dependency) makes the test PDFs")

import documents  # noqa: E402

REAL_PDF = Path("/usr/share/doc/libtasn1-doc/libtasn1.pdf")
REAL_HTML = Path("/usr/share/doc/libffi8/html/The-Basics.html")


def indexed(folder: Path, **overrides: object) -> tuple[list[Chunk], dict[str, str], list[str]]:
    """Every chunk (in file and chunk order), the skip reasons and the warnings."""
    with RAGEngine(hash_config(**overrides), folder) as engine:
        report = engine.index_directory()
        chunks = engine.store.get(engine.store.ids())
    chunks.sort(key=lambda c: (str(c.metadata["path"]), int(c.metadata["chunk_index"])))
    return chunks, {s.path: s.reason for s in report.skipped}, report.warnings


def test_pdf_text_page_by_page_with_page_numbers(tmp_path: Path) -> None:
    (tmp_path / "wing.pdf").write_bytes(documents.text_pdf().data)
    chunks, skipped, warnings = indexed(tmp_path, chunk_size=80, chunk_overlap=0)
    page1, page3 = documents.PAGES[0], documents.PAGES[2]
    pages = [(c.metadata["page"], c.metadata.get("page_end")) for c in chunks]
    assert pages == [(1, None), (1, None), (3, None)]
    assert documents.normalized(" ".join(c.text for c in chunks[:2])) == page1
    assert chunks[2].text == page3 + "\n"
    assert skipped == {} and warnings == ["wing.pdf: 1 of 3 pages have no text layer"]
    assert describe_source_of(chunks[2]) == "File: wing.pdf (pdf, page 3, chunk 2)"
    whole, _, _ = indexed(tmp_path, chunk_size=1000)
    assert (whole[0].metadata["page"], whole[0].metadata["page_end"]) == (1, 3)
    assert describe_source_of(whole[0]) == "File: wing.pdf (pdf, pages 1-3, chunk 0)"


def describe_source_of(chunk: Chunk) -> str:
    from ragloom.types import SearchResult

    return describe_source(SearchResult(chunk.id, chunk.text, chunk.metadata, 1.0, 0.0))


def test_pdf_in_two_columns_keeps_each_column_readable(tmp_path: Path) -> None:
    made = documents.two_column_pdf()
    (tmp_path / "columns.pdf").write_bytes(made.data)
    chunks, _, _ = indexed(tmp_path)
    text = documents.normalized(" ".join(c.text for c in chunks))
    for sentence in made.sentences[1]:
        assert text.count(sentence) == 4
    assert text.index(documents.RIGHT_COLUMN) > text.rindex(documents.LEFT_COLUMN)


def test_broken_pdfs_are_skipped_with_a_reason(tmp_path: Path) -> None:
    good = documents.text_pdf().data
    (tmp_path / "good.pdf").write_bytes(good)
    (tmp_path / "scan.pdf").write_bytes(documents.image_only_pdf())
    (tmp_path / "locked.pdf").write_bytes(documents.encrypted_pdf())
    (tmp_path / "empty.pdf").write_bytes(documents.zero_page_pdf())
    (tmp_path / "cut.pdf").write_bytes(good[: len(good) // 3])
    (tmp_path / "fake.pdf").write_bytes(b"this is not a PDF at all\n")
    chunks, skipped, _ = indexed(tmp_path)
    assert {c.metadata["path"] for c in chunks} == {"good.pdf"}
    assert skipped["scan.pdf"] == ("no text layer on any of its 2 page(s) (an image-only or scanned "
                                   "PDF; OCR it first)")
    assert skipped["locked.pdf"] == "encrypted PDF (needs a password)"
    assert skipped["empty.pdf"] == "PDF has no pages"
    assert skipped["cut.pdf"].startswith("not a readable PDF (")
    assert skipped["fake.pdf"].startswith("not a readable PDF (")


class _Kept(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def test_what_pypdf_logs_about_a_repaired_pdf_is_its_warning_not_stderr(tmp_path: Path) -> None:
    """A wrong startxref offset: pypdf repairs it and logs why; the file indexes, the log
    lines are its reader warning and reach no handler of the application (nor the
    last-resort one printing to stderr); pypdf's records outside a read still do."""
    (tmp_path / "repaired.pdf").write_bytes(re.sub(rb"startxref\s+\d+", b"startxref\n1",
                                                   documents.text_pdf().data))
    application = _Kept()
    logging.getLogger().addHandler(application)
    try:
        chunks, skipped, warnings = indexed(tmp_path)
        assert application.messages == []
        logging.getLogger("pypdf._reader").warning("logged by the application itself")
        assert application.messages == ["logged by the application itself"]
    finally:
        logging.getLogger().removeHandler(application)
    assert skipped == {}
    assert "Swept wings delay the rise." in documents.normalized(" ".join(c.text for c in chunks))
    assert warnings == ["repaired.pdf: 1 of 3 pages have no text layer; incorrect startxref pointer(1); "
                        "parsing for Object Streams"]


def test_a_library_log_summary_names_each_message_once() -> None:
    assert summary([]) is None
    assert summary(["a", "b", "a", "c", "d", "e"]) == "a; b; c (+2 more)"


@pytest.mark.skipif(not REAL_PDF.is_file(), reason="Debian's libtasn1-doc is not installed")
def test_a_real_pdf_from_debian_documentation(tmp_path: Path) -> None:
    shutil.copy(REAL_PDF, tmp_path / "libtasn1.pdf")
    chunks, skipped, _ = indexed(tmp_path)
    assert skipped == {}
    pages = {int(c.metadata["page"]) for c in chunks} | {int(c.metadata.get("page_end", 0)) for c in chunks}
    assert max(pages) == 36
    sentence = "Creates the structures needed to manage the ASN.1 definitions."
    holding = [c for c in chunks if sentence in documents.normalized(c.text)]
    assert holding and all(c.metadata["page"] <= 12 <= c.metadata.get("page_end", c.metadata["page"])
                           for c in holding)


def test_html_keeps_visible_text_with_headings_as_sections(tmp_path: Path) -> None:
    write(tmp_path, "guide.html", """<!doctype html><html><head><title>Guide</title>
<style>p { color: red }</style><script>var secretToken = 1;</script></head><body>
<nav><a href="/">Home</a> | <a href="/docs">Docs</a></nav>
<header><div class="logo">ACME</div></header>
<main><h1>Wing design</h1><p>Lift depends on the <b>angle</b> of attack.</p>
<h2>Stall</h2><p>Past the critical angle&nbsp;the flow separates.</p>
<ul><li>rough wings stall early</li><li>flaps delay it</li></ul>
<pre>def lift(angle):
    return 2 * angle</pre>
<table><tr><th>angle</th><th>lift</th></tr><tr><td>5</td><td>0.5</td></tr></table>
<div hidden>draft notes</div></main>
<footer>Copyright ACME</footer><aside class="sidebar">Related links</aside></body></html>
""")
    chunks, _, _ = indexed(tmp_path, chunk_size=1000)
    assert [c.text for c in chunks] == [
        "# Wing design\n\nLift depends on the angle of attack.\n",
        "## Stall\n\nPast the critical angle the flow separates.\n\n- rough wings stall early\n\n"
        "- flaps delay it\n\n```\ndef lift(angle):\n    return 2 * angle\n```\n\n"
        "angle | lift\n\n5 | 0.5\n"]
    assert [c.metadata["heading_path"] for c in chunks] == ["Wing design", "Wing design > Stall"]
    assert {c.metadata["language"] for c in chunks} == {"markdown"}


@pytest.mark.skipif(not REAL_HTML.is_file(), reason="Debian's libffi8 documentation is not installed")
def test_real_html_documentation_page(tmp_path: Path) -> None:
    shutil.copy(REAL_HTML, tmp_path / "basics.html")
    chunks, _, _ = indexed(tmp_path)
    text = "".join(c.text for c in chunks)
    assert "Next: Simple Example" not in text  # the navigation header
    assert "The first thing you must do is create an ffi_cif object" in text
    assert "2.1 The Basics" in {str(c.metadata["heading"]) for c in chunks}


def test_a_real_notebook_cells_by_their_own_chunkers(tmp_path: Path) -> None:
    spec = importlib.util.find_spec("chromadb")
    if spec is None or spec.origin is None:
        pytest.skip("chromadb (its package ships the notebook) is not installed")
    notebook = Path(spec.origin).parent / "experimental" / "density_relevance.ipynb"
    shutil.copy(notebook, tmp_path / "density.ipynb")
    chunks, skipped, _ = indexed(tmp_path)
    assert skipped == {}
    kinds = {(c.metadata["cell_type"], c.metadata["language"]) for c in chunks}
    assert kinds == {("code", "python"), ("markdown", "markdown")}
    assert {c.metadata["chunker"] for c in chunks if c.metadata["cell_type"] == "markdown"} == {"markdown"}
    assert "python_ast" in {c.metadata["chunker"] for c in chunks if c.metadata["cell_type"] == "code"}
    assert [int(c.metadata["chunk_index"]) for c in chunks] == list(range(len(chunks)))
    assert "outputs" not in "".join(c.text for c in chunks)


def test_notebook_cells_line_numbers_and_broken_notebooks(tmp_path: Path) -> None:
    import json

    cells = [{"cell_type": "markdown", "source": ["# Wings\n", "Lift and drag."]},
             {"cell_type": "code", "source": "def lift(angle):\n    return 2 * angle\n",
              "outputs": [{"output_type": "stream", "text": "SHOULD NOT APPEAR"}]},
             {"cell_type": "code", "source": ""},
             {"cell_type": "code", "source": ["%matplotlib inline\n", "plot(lift)"]}]
    write(tmp_path, "wings.ipynb", json.dumps({"cells": cells, "metadata": {}, "nbformat": 4}))
    write(tmp_path, "broken.ipynb", "{not json")
    write(tmp_path, "old.ipynb", json.dumps({"nbformat": 3, "worksheets": []}))
    chunks, skipped, _ = indexed(tmp_path)
    wings = [c for c in chunks if c.metadata["path"] == "wings.ipynb"]
    cells = [(c.metadata["cell"], c.metadata["start_line"], c.metadata["end_line"], c.text) for c in wings]
    assert cells == [
        (0, 1, 2, "# Wings\nLift and drag.\n"),
        (1, 4, 5, "def lift(angle):\n    return 2 * angle\n"),
        (3, 7, 8, "%matplotlib inline\nplot(lift)\n"),
    ]
    assert wings[1].metadata["symbol"] == "lift"
    assert skipped["broken.ipynb"].startswith("not a Jupyter notebook (invalid JSON:")
    assert skipped["old.ipynb"] == "not an nbformat 4 notebook (nbformat 3, no 'cells')"


def test_rst_sections_follow_title_underlines(tmp_path: Path) -> None:
    write(tmp_path, "guide.rst", "=====\nGuide\n=====\n\nIntro.\n\nInstall\n=======\n\npip install.\n\n"
                                 "From source\n-----------\n\nClone it::\n\n    ----\n    make\n\n"
                                 "Usage\n=====\n\nRun it.\n")
    chunks, _, _ = indexed(tmp_path, chunk_size=1000)
    assert [(c.metadata["heading_path"], c.metadata["start_line"], c.metadata["end_line"])
            for c in chunks] == [("Guide", 1, 5), ("Guide > Install", 7, 10),
                                 ("Guide > Install > From source", 12, 18), ("Guide > Usage", 20, 23)]
    assert {c.metadata["chunker"] for c in chunks} == {"rst"}
