"""The tree-sitter chunker on realistic code of every language it knows (samples written
for these tests): whole definitions, symbols in each language's notation, imports apart,
whole lines and the bounds of issue 26; one warning and line chunks without a grammar."""

from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path

import pytest
from code_properties import check_code_chunks

from ragloom.chunking.context import indexed_text
from ragloom.chunking.measure import CHARACTERS
from ragloom.chunking.registry import FileChunker, language_for_path
from ragloom.chunking.treesitter import LANGUAGES, LanguageRow, TreeSitterChunker
from ragloom.config import RAGConfig
from ragloom.types import Chunk

pytest.importorskip("tree_sitter", reason="ragloom[code] is part of the CI install")

SAMPLES = Path(__file__).parent / "samples"

#: file, language, {symbol: (first line, last line) of the definition}, import lines.
CASES = [
    ("inventory.php", "php", {
        "App\\Services\\Inventory\\StockLedger::receive": (23, 29),
        "App\\Services\\Inventory\\StockLedger::lowStock": (36, 41),
        "App\\Services\\Inventory\\ReorderPolicy": (44, 47),
        "App\\Services\\Inventory\\format_units": (49, 52)}, (1, 7)),
    ("checkout.ts", "typescript", {
        "PaymentGateway": (4, 7), "CheckoutResult": (9, 9), "CheckoutService.subtotal": (19, 24),
        "CheckoutService.checkout": (26, 31), "describeTotal": (34, 35), "emptyCart": (37, 39)},
     (1, 2)),
    ("Basket.tsx", "typescript", {"BasketProps": (4, 7), "EmptyBasket": (28, 28)},
     (1, 2)),
    ("router.js", "javascript", {
        "matchPath": (5, 14), "Router.add": (21, 24), "Router.dispatch": (26, 32),
        "userHandler": (35, 35)}, (1, 2)),
    ("cache.go", "go", {"Entry": (9, 12), "Cache": (15, 19), "New": (22, 24), "Cache.Get": (27, 35),
                        "Cache.Set": (38, 42)}, (1, 6)),
    ("queue.rs", "rust", {"RingQueue::new": (12, 14), "RingQueue::push": (17, 21),
                          "metrics": (34, 38)}, (1, 2)),
    ("Library.java", "java", {"Library.lend": (17, 24), "Library.isLent": (26, 28),
                              "Library.overdue": (30, 32), "Library.Loan": (34, 34),
                              "Catalogue": (37, 39)}, (1, 5)),
    ("Thermostat.swift", "swift", {"Thermostat": (5, 17), "ThermostatView": (19, 28), "Sensor": (30, 32),
                                   "celsius": (34, 36)}, (1, 2)),
    ("ring.c", "c", {"ring": (5, 10), "ring_new": (12, 22), "ring_push": (25, 33), "ring_free": (35, 39)},
     (1, 2)),
    ("matrix.cpp", "cpp", {"linalg::Matrix::Matrix": (9, 9), "linalg::Matrix::at": (11, 14),
                           "linalg::trace": (33, 33)}, (1, 2)),
    ("Ledger.cs", "csharp", {"Ledger.Balance": (12, 15), "Ledger.Transfer": (17, 25),
                             "Ledger.Count": (27, 27), "Posting": (30, 30), "IAuditLog": (32, 35)},
     (1, 3)),
    ("invoice.rb", "ruby", {"Billing::Invoice#initialize": (9, 13), "Billing::Invoice#add_line": (15, 20),
                            "Billing::Invoice#total": (22, 25), "Billing::Invoice.draft": (27, 29)},
     (1, 2)),
    ("Scheduler.kt", "kotlin", {"Scheduler.schedule": (10, 14), "Scheduler.runDue": (16, 24),
                                "Scheduler.Companion": (26, 28), "Job": (31, 31),
                                "formatDuration": (33, 35)}, (1, 4)),
]


def names(chunk: Chunk) -> list[str]:
    listed = chunk.metadata.get("symbols") or chunk.metadata.get("symbol") or ""
    return [name.strip() for name in str(listed).split(",") if name.strip()]


@pytest.mark.parametrize(("file", "language", "definitions", "imports"), CASES,
                         ids=[case[1] + ":" + case[0] for case in CASES])
def test_every_language_chunks_by_definition(file: str, language: str,
                                             definitions: dict[str, tuple[int, int]],
                                             imports: tuple[int, int]) -> None:
    """Small enough a window that containers split per member: each named definition is
    whole in the one chunk naming it, imports open the first chunk (one of their own
    before a function or when it would not fit beside them), and the bounds
    hold; at a large window and a tiny one the bounds hold too."""
    source = (SAMPLES / file).read_text()
    chunks = TreeSitterChunker(language, 400, 80).chunk(source, file)
    check_code_chunks(chunks, source, 400)
    assert {c.metadata["chunker"] for c in chunks} == {"tree_sitter"}
    for symbol, (first, last) in definitions.items():
        holders = [c for c in chunks if symbol in names(c)]
        assert len(holders) == 1, (symbol, [(c.metadata["start_line"], names(c)) for c in chunks])
        meta = holders[0].metadata
        assert meta["start_line"] <= first and last <= meta["end_line"], (symbol, meta)
        assert "part" not in meta or meta["part"] == 0
    head, following = chunks[0].metadata, chunks[1]
    assert head["start_line"] == 1 and head["end_line"] >= imports[1]
    if head["kind"] == "imports":  # alone before a function, or when the next would not fit
        assert head["end_line"] == imports[1], head
        body = following.metadata["end_char"] - head["start_char"]
        assert following.metadata["kind"] in ("function", "method") or body > 400 \
            or following.text != source[following.metadata["start_char"]:
                                        following.metadata["end_char"]], head
    for window in (2000, 120, 60):
        check_code_chunks(TreeSitterChunker(language, window, window // 5).chunk(source, file),
                          source, window)


def test_a_container_too_big_repeats_its_short_header() -> None:
    source = (SAMPLES / "inventory.php").read_text()
    chunks = TreeSitterChunker("php", 400, 80).chunk(source, "inventory.php")
    receive = next(c for c in chunks if c.metadata.get("symbol", "").endswith("StockLedger::receive"))
    assert receive.text.startswith("class StockLedger\n{\n    /**\n     * Adds received units")
    assert receive.metadata["kind"] == "method"


def test_small_adjacent_definitions_share_a_chunk_and_list_every_name() -> None:
    source = (SAMPLES / "cache.go").read_text()
    chunks = TreeSitterChunker("go", 2000, 400).chunk(source, "cache.go")
    # the imports open the first chunk; the definitions fill one window
    assert [(c.metadata["kind"], c.metadata["start_line"], names(c)) for c in chunks] == [
        ("type", 1, ["Entry", "Cache", "New", "Cache.Get", "Cache.Set"])]
    # ... and share chunks only while the next one fits beside them
    chunks = TreeSitterChunker("go", 800, 160).chunk(source, "cache.go")
    assert [(c.metadata["start_line"], c.metadata["end_line"], names(c)) for c in chunks] == [
        (1, 35, ["Entry", "Cache", "New", "Cache.Get"]), (37, 42, ["Cache.Set"])]
    swift = (SAMPLES / "Thermostat.swift").read_text()
    members = TreeSitterChunker("swift", 200, 40).chunk(swift, "Thermostat.swift")
    assert ["Thermostat.target", "Thermostat.hysteresis"] in [names(c) for c in members]
    should_heat = next(c for c in members if names(c) == ["Thermostat.shouldHeat"])
    assert should_heat.text.startswith("final class Thermostat: ObservableObject {\n    func shouldHeat(")


def test_a_function_longer_than_a_chunk_is_split_by_lines_with_its_signature() -> None:
    body = "".join(f"\ttotal += values[{i}] * weights[{i}] // weight {i}\n" for i in range(80))
    source = f"package calc\n\nfunc Weighted(values []int, weights []int) int {{\n\ttotal := 0\n{body}" \
             "\treturn total\n}\n"
    chunks = TreeSitterChunker("go", 500, 100).chunk(source, "calc.go")
    parts = [c for c in chunks if c.metadata.get("symbol") == "Weighted"]
    assert [c.metadata["part"] for c in parts] == list(range(len(parts))) and len(parts) > 3
    for part in parts[1:]:
        assert part.text.startswith("func Weighted(values []int, weights []int) int {\n")
    assert parts[-1].text.endswith("\treturn total\n}\n")  # the brace stays with its code
    check_code_chunks(chunks, source, 500)


def test_a_missing_grammar_means_line_chunks_and_one_warning(monkeypatch: pytest.MonkeyPatch,
                                                              caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setitem(LANGUAGES, "cobol", LanguageRow("tree_sitter_cobol_not_installed"))
    chunker = TreeSitterChunker("cobol", 200, 40)
    source = "IDENTIFICATION DIVISION.\nPROGRAM-ID. HELLO.\n" * 20
    with caplog.at_level(logging.WARNING, logger="ragloom"):
        first = chunker.chunk(source, "a.cob")
        second = chunker.chunk(source, "b.cob")
    assert first and {c.metadata["chunker"] for c in first + second} == {"character"}
    warnings = [r.getMessage() for r in caplog.records if "cobol" in r.getMessage()]
    assert len(warnings) == 1
    assert warnings[0].startswith("cobol files are chunked by lines: the tree-sitter grammar "
                                  "(tree-sitter-cobol-not-installed) is not installed; "
                                  "pip install 'ragloom[code]' (ModuleNotFoundError: No module named")


def test_the_registry_picks_the_chunker_by_extension() -> None:
    chunker = FileChunker(RAGConfig())
    source = (SAMPLES / "Basket.tsx").read_text()
    chunks = chunker.chunk(source, "web/Basket.tsx")
    assert {c.metadata["chunker"] for c in chunks} == {"tree_sitter"}
    assert {c.metadata["language"] for c in chunks} == {"typescript"}
    assert "Basket" in {name for c in chunks for name in names(c)}
    plain = FileChunker(RAGConfig(chunking={"ast_chunking": False}))
    assert plain.chunker_for("a.go").__class__.__name__ == "CharacterChunker"


def test_a_row_is_the_whole_entry_of_a_language() -> None:
    """Each row's extensions name its language (a second grammar's, its language's) and
    pick the tree-sitter chunker: nothing else lists the language."""
    chunker = FileChunker(RAGConfig())
    routed = {(extension, language_for_path(f"src/a{extension}"),
               type(chunker.chunker_for(f"src/a{extension}")).__name__)
              for name, row in LANGUAGES.items() for extension in row.extensions}
    assert {(".tsx", "typescript", "TreeSitterChunker"), (".php", "php", "TreeSitterChunker"),
            (".hxx", "cpp", "TreeSitterChunker")} <= routed
    expected = {(extension, row.grammar_of or name, "TreeSitterChunker")
                for name, row in LANGUAGES.items() for extension in row.extensions}
    assert routed == expected


def test_a_rows_path_hook_adds_the_frameworks_definitions(monkeypatch: pytest.MonkeyPatch) -> None:
    """Laravel's routes come from the PHP row's ``path_definitions`` hook: without it a
    route file has no route chunks; a hook is called with the file's path."""
    source = (LARAVEL / "routes/web.php").read_text()
    monkeypatch.setitem(LANGUAGES, "php-plain", replace(LANGUAGES["php"], path_definitions=None))
    plain = TreeSitterChunker("php-plain", 2000, 400).chunk(source, "routes/web.php")
    assert "route" not in {c.metadata["kind"] for c in plain}
    calls: list[str] = []
    monkeypatch.setitem(LANGUAGES, "php-hooked", replace(
        LANGUAGES["php"], path_definitions=lambda path, root, found: calls.append(path)))
    TreeSitterChunker("php-hooked", 2000, 400).chunk(source, "routes/web.php")
    assert calls == ["routes/web.php"]


def test_unknown_language_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="no tree-sitter row for language 'cobol'; known: c, cpp"):
        TreeSitterChunker("cobol")


LARAVEL = SAMPLES / "laravel"


def laravel_chunks(relative: str, window: int) -> tuple[str, list[Chunk]]:
    source = (LARAVEL / relative).read_text()
    chunks = TreeSitterChunker("php", window, window // 5).chunk(source, relative)
    check_code_chunks(chunks, source, window)
    return source, chunks


def test_laravel_routes_share_chunks_by_section_named_by_method_and_uri() -> None:
    _, chunks = laravel_chunks("routes/web.php", 2000)
    assert [(c.metadata["kind"], c.metadata.get("symbol"), c.metadata["start_line"], c.metadata["end_line"])
            for c in chunks] == [
        ("route", "GET /", 1, 11),  # the `use` lines open the first routes' chunk
        ("route_group", "GROUP /billing", 13, 21),  # a group that fits is a chunk of its own
        ("route", "RESOURCE /profiles", 23, 23)]
    assert chunks[0].metadata["symbols"] == "GET /, GET /about"
    # a group too big for one chunk is split by its routes, URIs with the groups' prefixes
    _, small = laravel_chunks("routes/web.php", 160)
    symbols = [c.metadata.get("symbol") for c in small if c.metadata.get("part", 0) == 0]
    assert symbols == [None, "GET /", "GET /billing/invoices", "POST /billing/invoices",
                       "GET|POST /billing/invoices/{invoice}/pay", "GROUP /billing/admin",
                       "RESOURCE /profiles"]
    _, tiny = laravel_chunks("routes/web.php", 100)
    assert "DELETE /billing/admin/invoices/{invoice}" in {c.metadata.get("symbol") for c in tiny}


def test_a_route_table_is_chunked_by_its_commented_sections() -> None:
    """58 lines of one-line registrations are six chunks, not 36: consecutive routes share
    a chunk up to the window, and a chunk ends where a comment or a blank line opens the
    next section once it holds half a window; inside a group too big for one chunk the
    same, each part repeating the group's opening line."""
    source, chunks = laravel_chunks("routes/shop.php", 1000)
    assert [(c.metadata["kind"], c.metadata["start_line"], c.metadata["end_line"]) for c in chunks] == [
        ("route", 1, 21), ("route", 23, 28), ("route", 30, 36), ("route", 38, 43),
        ("route_group", 45, 51), ("route", 53, 58)]
    assert chunks[1].metadata["symbols"] == ("GET /cart, POST /cart/items, PATCH /cart/items/{item}, "
                                             "DELETE /cart/items/{item}, POST /cart/coupon")
    assert chunks[3].metadata["symbol"] == "GET /orders"
    assert chunks[3].text.startswith("Route::middleware('auth')->group(function () {\n    // Orders\n")
    assert chunks[4].metadata["symbols"] == ("GROUP /admin, GET /admin/stock, PUT /admin/stock/{product}, "
                                             "GET /admin/reports/sales")
    lines = source.splitlines()
    assert lines[52] == "// Login and password reset"
    assert lines[57].startswith("Route::post('/password/email'")
    # a smaller window still cuts between sections, not inside a line
    _, small = laravel_chunks("routes/shop.php", 600)
    assert [(c.metadata["start_line"], c.metadata["end_line"]) for c in small] == [
        (1, 11), (13, 21), (23, 28), (30, 36), (38, 43), (45, 51), (53, 58)]


def test_laravel_migrations_one_chunk_per_table() -> None:
    source, chunks = laravel_chunks("database/migrations/2024_01_01_000000_create_orders_table.php", 500)
    tables = [(c.metadata["symbol"], c.metadata["start_line"], c.metadata["end_line"])
              for c in chunks if c.metadata["kind"] == "table"]
    # the migration's header (`use` lines, `return new class extends Migration {`) opens
    # the first table's chunk: no chunk of imports alone; down() (lines 26-30, which
    # drops what up() made, in the same names) joins the chunk before it
    assert tables == [("orders", 1, 16), ("order_lines", 18, 31)]
    assert "Schema::create('order_lines'" in chunks[1].text
    assert "Schema::create('orders'" not in chunks[1].text
    # a migration that fits one chunk is one chunk, named by every table it touches
    _, whole = laravel_chunks("database/migrations/2024_01_01_000000_create_orders_table.php", 1000)
    assert [(c.metadata["symbol"], c.metadata["symbols"], c.metadata["start_line"], c.metadata["end_line"])
            for c in whole] == [("orders", "orders, order_lines", 1, 31)]


def test_laravel_config_one_chunk_per_top_level_key_named_as_config_reads_it() -> None:
    _, chunks = laravel_chunks("config/queue.php", 1000)
    assert [(c.metadata["symbol"], c.metadata["start_line"], c.metadata["end_line"]) for c in chunks] == [
        ("queue.default", 1, 8), ("queue.connections", 10, 20), ("queue.failed", 22, 27)]
    assert chunks[0].text.startswith("<?php\n\nreturn [\n")
    assert chunks[-1].text.endswith("    ],\n\n];\n")
    # an application filing its config under another case of the folder (app/Config)
    source = (LARAVEL / "config/queue.php").read_text()
    moved = TreeSitterChunker("php", 1000, 200).chunk(source, "app/Config/queue.php")
    assert [c.metadata["symbol"] for c in moved] == ["queue.default", "queue.connections", "queue.failed"]


def test_other_php_files_are_not_laravel_units() -> None:
    source = (LARAVEL / "config/queue.php").read_text()
    chunks = TreeSitterChunker("php", 1000, 200).chunk(source, "lib/queue.php")
    assert {c.metadata["kind"] for c in chunks} <= {"imports", "module", "statements"}


ODD_INPUTS = ["", "\n\n   \n", "\x00\x00 function q() {}\n", "class A {\r  m() {}\r}\r", "}}}}\n{{{{\n" * 30,
              "x = \"\udcff\";\nfunction f() {}\n", "class A {\u2028 m() {}\u2028}\n",
              "namespace A { namespace B { class C { void m() { if (x) { y(); } } } } }\n" * 5]


@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_odd_input_never_raises_and_keeps_the_bounds(language: str) -> None:
    chunker = TreeSitterChunker(language, 120, 24)
    for source in ODD_INPUTS:
        chunks = chunker.chunk(source, f"odd.{language}")
        check_code_chunks(chunks, source, 120)
        assert bool(chunks) == bool(source.strip())


OVERLOADS = """import { Scheduler } from './scheduler';

export function delay<T>(due: number): (source: T[]) => T[];
export function delay<T>(due: Date, scheduler: Scheduler): (source: T[]) => T[];
export function delay<T>(due: number | Date, scheduler?: Scheduler): (source: T[]) => T[] {
  const wait = typeof due === 'number' ? due : due.getTime() - Date.now();
  return (source) => source.map((value) => scheduler ? scheduler.after(wait, value) : value);
}

export class Channel {
  send(message: string): void;
  send(message: Uint8Array): void;
  send(message: string | Uint8Array): void {
    this.queue.push(typeof message === 'string' ? encode(message) : message);
  }
}
"""


@pytest.mark.parametrize("size", [120, 160, 600])
def test_typescript_overload_signatures_open_their_implementation(size: int) -> None:
    """An overload signature is part of its function: never a nameless chunk of its own,
    and with a window that fits them, signatures and body are one chunk."""
    chunks = TreeSitterChunker("typescript", size, 20).chunk(OVERLOADS, "delay.ts")
    check_code_chunks(chunks, OVERLOADS, size)
    for chunk in chunks:
        first, last = chunk.metadata["start_line"], chunk.metadata["end_line"]
        if first >= 3 and last <= 8:
            assert chunk.metadata["symbol"] == "delay", chunk.metadata
        if first >= 11 and last <= 15:
            assert chunk.metadata["symbol"] == "Channel.send", chunk.metadata
    if size == 600:
        spans = {(c.metadata["start_line"], c.metadata["end_line"]) for c in chunks}
        assert (3, 8) in spans or any(f <= 3 and end >= 8 for f, end in spans)


def test_a_rust_attribute_stays_with_the_use_it_gates() -> None:
    source = ("#[cfg(feature = \"std\")]\nuse std::io::IoSlice;\n\n"
              "pub fn total(values: &[u64]) -> u64 {\n    values.iter().sum()\n}\n")
    chunks = TreeSitterChunker("rust", 70, 14).chunk(source, "sum.rs")  # too small to join them
    assert [(c.metadata["start_line"], c.metadata["end_line"], c.metadata["kind"]) for c in chunks] == [
        (1, 2, "imports"), (4, 6, "function")]


def test_php_declare_strict_types_opens_the_import_run() -> None:
    source = ("<?php\n\ndeclare(strict_types=1);\n\nnamespace App\\Jobs;\n\nuse App\\Models\\User;\n\n"
              "function notify(User $user): void\n{\n    $user->notify(new Reminder());\n}\n")
    chunks = TreeSitterChunker("php", 100, 20).chunk(source, "app/Jobs/notify.php")
    assert [(c.metadata["start_line"], c.metadata["end_line"], c.metadata["kind"]) for c in chunks] == [
        (1, 7, "imports"), (9, 12, "function")]


def test_a_rust_file_chunks_by_type_with_every_impl_and_member_named() -> None:
    """Trait signatures, the methods of an impl chunked whole and impls for a reference
    type are named (``Buffer``, not ``&'a Buffer``); small impls of one type pack
    together; a member split from its impl repeats the impl line for the reader, and the
    index does not read that line again (the header names ``Buffer::take``)."""
    source = (SAMPLES / "buffer.rs").read_text()
    chunks = TreeSitterChunker("rust", 300, 60).chunk(source, "buffer.rs")
    assert [(c.metadata["start_line"], c.metadata["end_line"], c.metadata["kind"], names(c))
            for c in chunks] == [
        (1, 12, "interface", ["Source", "Source::remaining", "Source::has_remaining"]),
        (14, 18, "class", ["Buffer"]),
        (20, 29, "method", ["Buffer::new", "Buffer::extend"]),
        (31, 38, "method", ["Buffer::take"]),
        (40, 51, "impl", ["Buffer", "Buffer::remaining", "Buffer::write_str"]),
        (53, 57, "impl", ["Buffer", "Buffer::eq"])]
    check_code_chunks(chunks, source, 300)
    take = chunks[3]
    assert take.text.startswith("impl Buffer {\n    /// Takes the next `n` bytes")
    assert take.metadata["header_lines"] == 1
    assert "header_lines" not in chunks[2].metadata  # opens with the impl's own line
    metadata = {**take.metadata, "source": "file"}  # as the indexer stores it
    indexed = indexed_text(CHARACTERS)(take.text, metadata)
    assert indexed == "buffer.rs: Buffer::take\n" + take.text.removeprefix("impl Buffer {\n")
    # without a symbol to name the owner, the repeated line stays in what is indexed
    anonymous = {k: v for k, v in metadata.items() if k != "symbol"}
    assert indexed_text(CHARACTERS)(take.text, anonymous) == "buffer.rs\n" + take.text


@pytest.mark.parametrize("language", ["javascript", "typescript", "tsx"])
def test_re_exports_are_imports(language: str) -> None:
    """``export ... from`` lines are imports (a barrel ``index.ts`` is nothing else): they
    join the import run, and a file of only them is one ``imports`` chunk."""
    source = ("import { a } from './a';\nexport * from './b';\nexport { c as d } from './c';\n\n"
              "export function run(x) {\n  return a(x) + 1;\n}\n")
    chunks = TreeSitterChunker(language, 60, 10).chunk(source, "run.ts")
    assert [(c.metadata["kind"], c.metadata["start_line"], c.metadata["end_line"]) for c in chunks] == [
        ("imports", 1, 3), ("function", 5, 7)]
    barrel = "".join(f"export {{ default as Part{n} }} from './Part{n}.vue';\n" for n in range(12))
    chunks = TreeSitterChunker(language, 400, 80).chunk(barrel, "index.ts")
    assert [(c.metadata["kind"], c.metadata["start_line"], c.metadata["end_line"]) for c in chunks] == [
        ("imports", 1, 12)]


def test_rust_types_never_share_a_chunk_with_the_next_type() -> None:
    """Each struct or enum keeps the impl blocks (generic ones too) and functions after it
    and stops at the next type: two small enums in one chunk named after the first left
    the second unfindable. A one-line type stays with the chunk before (alone it would be
    a near-empty chunk); an inline ``mod tests`` starts its own, named ``tests``; the
    imports open the first chunk."""
    source = (SAMPLES / "membership.rs").read_text()
    chunks = TreeSitterChunker("rust", 2000, 400).chunk(source, "membership.rs")
    assert [(c.metadata["start_line"], c.metadata["end_line"], c.metadata["kind"], names(c))
            for c in chunks] == [
        (1, 9, "class", ["Invite", "InviteId"]),
        (11, 27, "class", ["InviteState", "InviteState::from_i32"]),
        (29, 50, "class", ["Role", "Role::eq", "default_role", "invite_ttl_days", "RoleName"]),
        (52, 60, "module", ["tests", "tests::viewer_is_the_default"])]
    assert chunks[2].text.startswith("/// What a member may do, lowest first.\npub enum Role {")
    check_code_chunks(chunks, source, 2000)
    # other languages keep packing small types together
    go = TreeSitterChunker("go", 2000, 400).chunk((SAMPLES / "cache.go").read_text(), "cache.go")
    assert len(go) == 1


def test_a_rust_module_with_a_body_shares_its_chunk_with_nothing() -> None:
    source = ("pub struct Port(u16);\n\n#[cfg(test)]\nmod tests {\n    #[test]\n"
              "    fn opens() {\n        assert!(true);\n    }\n}\n\n"
              "pub fn default_port() -> u16 {\n    8080\n}\n")
    chunks = TreeSitterChunker("rust", 2000, 400).chunk(source, "port.rs")
    assert [(c.metadata["start_line"], c.metadata["end_line"], names(c)) for c in chunks] == [
        (1, 1, ["Port"]), (3, 9, ["tests", "tests::opens"]), (11, 13, ["default_port"])]
