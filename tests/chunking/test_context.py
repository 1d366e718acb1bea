"""The optional "path: symbol" header the embedder and BM25 read; stored text stays exact."""

from __future__ import annotations

import shutil
from pathlib import Path

from helpers import write
from ragloom.chunking.context import HEADER_CHARACTERS, chunk_header, indexed_text
from ragloom.chunking.measure import CHARACTERS

SOURCE = "def rotate(points, angle):\n    return [turn(p, angle) for p in points]\n"


def test_header_names_path_and_symbol_or_heading() -> None:
    assert chunk_header({"source": "file", "path": "geo/rotate.py", "symbol": "rotate"}) == (
        "geo/rotate.py: rotate\n")
    assert chunk_header({"source": "file", "path": "a.py", "symbol": "f", "symbols": "f, g"}) == (
        "a.py: f, g\n")
    assert chunk_header({"source": "file", "path": "d.md", "heading_path": "Install > Pip"}) == (
        "d.md: Install > Pip\n")
    assert chunk_header({"source": "other", "path": "x"}) == ""  # another source: as given


def test_a_long_header_is_cut_to_its_budget() -> None:
    with_header = indexed_text(CHARACTERS)
    text = with_header("body\n", {"source": "file", "path": "p/" * 100 + "x.py"})
    header = text[: -len("body\n")]
    assert len(header) <= HEADER_CHARACTERS + 1 and header.endswith("\n")


def test_indexed_text_has_the_header_but_stored_text_is_the_file_slice(make_engine,
                                                                        project: Path) -> None:
    write(project, "geometry/rotation.py", SOURCE)
    write(project, "other.py", "def unrelated():\n    return 42\n")
    settings = {"chunking": {"embed_header": True}, "vector_store": {"provider": "turboquant"}}
    engine = make_engine(**settings)
    engine.index_directory()
    chunk = next(c for c in engine.store.get(engine.store.ids())
                 if c.metadata["path"].endswith("rotation.py"))
    assert chunk.text == SOURCE
    with_header, plain = engine.provider.embed([f"geometry/rotation.py: rotate\n{SOURCE}", SOURCE])
    stored = engine.store.get_vectors([chunk.id])[0]  # 4-bit TurboQuant: close, not equal
    assert float(stored @ with_header) > 0.95 and float(stored @ with_header) > float(stored @ plain)
    # BM25 reads the header: the folder name finds the chunk although its text lacks it
    assert engine.sparse.search("geometry", 1)[0][0] == chunk.id
    engine.close()
    for saved in engine.index_dir.glob("bm25*.segments"):
        shutil.rmtree(saved)
    reopened = make_engine(**settings)  # BM25 rebuilt from the store, header included
    assert reopened.sparse.search("geometry", 1)[0][0] == chunk.id
