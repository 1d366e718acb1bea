"""Exact names win: a query naming a defined identifier ranks its definition first."""

from __future__ import annotations

from pathlib import Path

from helpers import write
from ragloom.retrieval.symbols import MAX_DEFINITIONS, SymbolTable, defined_names, query_names


def test_query_words_that_look_like_code_are_names() -> None:
    assert query_names("should_strip_auth") == ["should_strip_auth"]
    assert query_names("how does Session.rebuild_auth() work") == ["Session.rebuild_auth", "rebuild_auth"]
    assert query_names("where is parseHeader used") == ["parseHeader"]
    assert query_names("parse") == ["parse"]  # a whole query of one word
    assert query_names("open the file for reading") == []


def test_definitions_come_from_symbol_and_symbols_first_parts_only() -> None:
    assert defined_names({"symbol": "Parser.parse"}) == ["Parser.parse", "parse"]
    assert defined_names({"symbol": "A.send", "symbols": "A.send, A.close"}) == [
        "A.send", "send", "A.close", "close"]
    assert defined_names({"symbol": "big", "part": 2}) == []
    assert defined_names({"heading": "Install"}) == []


def test_a_name_defined_in_too_many_places_identifies_nothing() -> None:
    entries = [(f"c{i}", {"symbol": f"Mod{i}.run"}) for i in range(MAX_DEFINITIONS + 1)]
    table = SymbolTable([*entries, ("x", {"symbol": "should_strip_auth"})])
    assert table.lookup("run") == []
    assert table.lookup("Mod1.run") == ["c1"]
    assert table.lookup("does should_strip_auth strip it") == ["x"]


def callers_and_definition(project: Path) -> None:
    calls = "".join(f"    if should_strip_auth(old_url, new_url_{i}):\n        strip(headers)\n"
                    for i in range(12))
    write(project, "sessions.py", f"def rebuild_auth(headers, old_url):\n{calls}")
    write(project, "auth.py", "def should_strip_auth(old, new):\n    return old.host != new.host\n")
    for i in range(5):
        write(project, f"other{i}.py", f"def helper_{i}(value):\n    return value + {i}\n")


def test_the_definition_ranks_first_and_filters_still_apply(make_engine, project: Path) -> None:
    callers_and_definition(project)
    engine = make_engine()
    engine.index_directory()
    results = engine.search("should_strip_auth", top_k=3)
    assert results[0].metadata["symbol"] == "should_strip_auth"
    assert results[0].retrievers["name"].rank == 1
    assert engine.search("why would should_strip_auth return True?", top_k=3)[0].path == "auth.py"
    filtered = engine.search("should_strip_auth", top_k=3, filters={"path": "sessions.py"})
    assert [r.path for r in filtered] == ["sessions.py"]


def test_exact_names_can_be_switched_off(make_engine, project: Path) -> None:
    callers_and_definition(project)
    engine = make_engine(retrieval={"exact_names": False})
    engine.index_directory()
    assert all("name" not in r.retrievers for r in engine.search("should_strip_auth", top_k=3))


def test_every_languages_notation_is_found_by_any_tail() -> None:
    """PHP ``Namespace\\Class::method``, Rust/C++ ``a::b``, Ruby ``Class#method``: found
    whole, by any tail, and with ``.`` or the language's own separators in the query."""
    table = SymbolTable([
        ("php", {"symbol": "App\\Http\\Controllers\\UserController::index"}),
        ("rust", {"symbol": "net::Server::start"}),
        ("ruby", {"symbol": "Billing::Invoice#total"}),
        ("go", {"symbol": "Cache.Get"}),
    ])
    assert table.lookup("what does UserController::index return") == ["php"]
    assert table.lookup("App\\Http\\Controllers\\UserController::index") == ["php"]
    assert table.lookup("UserController.index") == ["php"]
    assert table.lookup("how is Server::start called") == ["rust"]
    assert table.lookup("Invoice#total") == ["ruby"]
    assert table.lookup("Cache.Get") == ["go"]
    assert defined_names({"symbol": "net::Server::start"}) == ["net.Server.start", "Server.start", "start"]
    assert query_names("call Server::start()") == ["Server.start", "start"]
