"""The optional "path: symbol" header the embedder and BM25 read; stored text stays exact."""

from __future__ import annotations

import shutil
from pathlib import Path

from helpers import write
from ragloom.chunking.context import HEADER_CHARACTERS, chunk_header, indexed_text, short_symbols
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


def test_header_of_an_ingested_text_names_its_place_not_its_id() -> None:
    assert chunk_header({"source": "text", "source_id": "1042"}) == ""
    assert chunk_header({"source": "text", "source_id": "ticket-7",
                         "heading_path": "Install > Pip"}) == "Install > Pip\n"


def test_header_names_each_symbol_once_without_what_the_path_says() -> None:
    # a PHP chunk: the class once, its namespace (the path's folders) not repeated per name
    php = "App\\Models\\User, App\\Models\\User, App\\Models\\User::save, App\\Models\\User::delete"
    assert chunk_header({"source": "file", "path": "app/Models/User.php", "symbols": php}) == (
        "app/Models/User.php: User, save, delete\n")
    # a PHP namespace goes even when the path does not name it (PSR-4 ``src/``)
    assert short_symbols("GuzzleHttp\\Psr7\\Uri::withQuery", "src/Uri.php") == "Uri::withQuery"
    # leading parts the path names go, owner and name stay; an owner is not repeated
    assert short_symbols("net::server::Server::start, net::server::Server::stop",
                         "src/net/server.rs") == "Server::start, stop"
    assert short_symbols("Box.open, Box.close, helper, Box.size", "lib/box.js") == (
        "Box.open, close, helper, Box.size")
    assert short_symbols("rotate", "geo/rotate.py") == "rotate"


def test_an_over_budget_header_drops_folders_before_names() -> None:
    with_header = indexed_text(CHARACTERS)
    path = "/".join(f"folder{i}" for i in range(12)) + "/User.php"
    text = with_header("body\n", {"source": "file", "path": path, "symbols": "User::save, User::delete"})
    header = text[: -len("body\n")]
    assert len(header) <= HEADER_CHARACTERS + 1
    assert header.endswith("/User.php: User::save, delete\n") and header.startswith("folder")


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
