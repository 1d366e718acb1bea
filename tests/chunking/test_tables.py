"""A long table of keyed entries (options with their defaults) is cut between entries, each
part named by its keys; short literals, one-line entries and bare lists are cut by lines."""

from __future__ import annotations

import pytest

from ragloom.chunking.treesitter import TreeSitterChunker
from ragloom.types import Chunk

pytest.importorskip("tree_sitter", reason="ragloom[code] is part of the CI install")

NAMES = ["BASE_URL", "CLEANUP_DAYS", "DATABASE_URL", "LISTEN_ADDR", "LOG_LEVEL", "POLLING_FREQUENCY",
         "PROXY_MODE", "WORKER_POOL_SIZE", "HTTPS", "METRICS"]


def _go_options(lines_per_entry: int, commented: bool = True) -> tuple[str, dict[str, tuple[int, int]]]:
    """A Go constructor returning a map of options (each under a comment line when
    ``commented``); {name: (first, last) line}."""
    lines = ["package config", "", "func NewOptions() map[string]*option {",
             "\treturn map[string]*option{"]
    spans = {}
    for number, name in enumerate(NAMES):
        if commented:
            lines.append(f"\t\t// {name.lower().replace('_', ' ')} of the server")
        first = len(lines) + 1
        lines.append(f'\t\t"{name}": {{')
        lines += [f'\t\t\tfield{k}: "default value {number}-{k}",' for k in range(lines_per_entry - 2)]
        lines.append("\t\t},")
        spans[name] = (first, len(lines))
    lines += ["\t}", "}", ""]
    return "\n".join(lines), spans


def _chunks(source: str, path: str, language: str, size: int = 400) -> list[Chunk]:
    return TreeSitterChunker(language, size, 0).chunk(source, path)


def _holding(chunks: list[Chunk], first: int, last: int) -> list[Chunk]:
    return [c for c in chunks if c.metadata["start_line"] <= last and c.metadata["end_line"] >= first]


def test_every_option_stays_whole_in_a_part_named_by_its_keys() -> None:
    source, spans = _go_options(6)
    chunks = _chunks(source, "internal/config/options.go", "go")
    for name, (first, last) in spans.items():
        holding = _holding(chunks, first, last)
        assert len(holding) == 1, name  # never cut between a name and its default
        names = str(holding[0].metadata.get("symbols") or holding[0].metadata["symbol"]).split(", ")
        assert f"NewOptions.{name}" in names
        assert holding[0].metadata["start_line"] <= first - 1  # the comment above comes along
    # parts hold a quarter window of entries, not a whole window
    table = [c for c in chunks if "." in str(c.metadata.get("symbol"))]
    assert len(table) >= len(NAMES) // 2
    assert all(len(c.text) <= 400 for c in chunks)


def test_one_line_entries_and_short_literals_are_cut_by_lines() -> None:
    source, _ = _go_options(2, commented=False)  # two-line entries ("NAME": {\n},): kept whole
    assert not any("." in str(c.metadata.get("symbol")) for c in _chunks(source, "options.go", "go", 200))
    source, _ = _go_options(6)  # the whole table fits one chunk: nothing to cut
    chunks = _chunks(source, "options.go", "go", 4000)
    assert [c.metadata.get("symbol") for c in chunks if c.metadata["end_line"] > 3] == ["NewOptions"]


def test_a_php_list_of_bare_values_is_no_table() -> None:
    values = "".join(f"        'domain{n}.example',\n        // blocked since {n}\n"
                     f"        'other{n}.example',\n" for n in range(40))
    source = (f"<?php\n\nclass Providers\n{{\n    public function all(): array\n    {{\n"
              f"        return [\n{values}        ];\n    }}\n}}\n")
    chunks = _chunks(source, "app/Rules/Providers.php", "php")
    assert len(chunks) > 1
    assert {c.metadata["symbol"] for c in chunks} == {"Providers::all"}


def test_a_php_array_of_keyed_multi_line_entries_is_cut_between_keys() -> None:
    entries = "".join(f"            '{name.lower()}' => [\n                'default' => {n},\n"
                      f"                'env' => '{name}',\n            ],\n" for n, name in enumerate(NAMES))
    source = (f"<?php\n\nclass Defaults\n{{\n    public function options(): array\n    {{\n"
              f"        return [\n{entries}        ];\n    }}\n}}\n")
    chunks = _chunks(source, "app/Support/Defaults.php", "php", 300)
    named = {n for c in chunks for n in str(c.metadata.get("symbols") or c.metadata["symbol"]).split(", ")}
    assert {f"Defaults::options.{name.lower()}" for name in NAMES} <= named


def _laravel_config(comment_lines: int) -> tuple[str, dict[str, tuple[int, int]]]:
    """A PHP options file written as Laravel config files are: one-line ``'key' => env(...)``
    options, each under ``comment_lines`` lines of comment; {key: (first line, entry line)}."""
    lines = ["<?php", "", "return [", ""]
    spans = {}
    for number, name in enumerate(NAMES):
        first = len(lines) + 1
        lines += [f"    // The {name.lower().replace('_', ' ')} the application uses, line {k}."
                  for k in range(comment_lines)]
        lines += [f"    '{name.lower()}' => env('{name}', {number}),", ""]
        spans[name.lower()] = (first, len(lines) - 1)
    lines += ["];", ""]
    return "\n".join(lines), spans


def test_commented_one_line_options_of_a_config_file_are_a_table() -> None:
    source, spans = _laravel_config(3)
    chunks = _chunks(source, "lib/options.php", "php", 600)
    for key, (first, last) in spans.items():
        holding = _holding(chunks, first, last)
        assert len(holding) == 1, key  # the comment and the option it documents together
        assert key in str(holding[0].metadata.get("symbols") or holding[0].metadata.get("symbol"))
    assert all(len(c.text) <= 600 // 2 for c in chunks)  # a few options a part, not a window


def test_options_under_one_comment_line_are_still_cut_by_lines() -> None:
    source, _ = _laravel_config(1)  # two lines an entry: under ENTRY_LINES
    chunks = _chunks(source, "lib/options.php", "php", 400)
    assert len(chunks) > 1
    assert not any(c.metadata.get("symbol") or c.metadata.get("symbols") for c in chunks)


def _axum_router(routes: int) -> tuple[str, list[tuple[int, int]]]:
    """An axum router as rustfmt writes long registrations (the call, the path, the method
    router on lines of their own); each registration's (first, last) line."""
    lines = ["pub fn create(state: AppState) -> Router {", "    Router::new()"]
    spans = []
    for number in range(routes):
        first = len(lines) + 1
        lines += ["        .route(", f'            "/api/v1/resources_{number}/{{id}}/action",',
                  f"            routing::post(handler::api::v1::resources_{number}::action::post),",
                  "        )"]
        spans.append((first, len(lines)))
    lines += ["        .with_state(state)", "}", ""]
    return "\n".join(lines), spans


def test_a_builder_chain_is_cut_between_its_calls_written_over_lines() -> None:
    source, spans = _axum_router(12)
    chunks = _chunks(source, "src/http/router.rs", "rust", 500)
    assert len(chunks) > 2
    for first, last in spans:
        assert len(_holding(chunks, first, last)) == 1, (first, last)  # never cut inside one


def test_other_chained_calls_are_still_cut_by_lines() -> None:
    # a query builder's calls are not a router's: cut by lines as before
    lines = ["pub fn due() -> Query {", "    jobs::table"]
    for number in range(30):
        lines += ["        .filter(", f"            jobs::column_{number}.eq(value_{number}),", "        )"]
    lines += ["}", ""]
    chunks = _chunks("\n".join(lines), "src/queue.rs", "rust", 500)
    starts = [lines[c.metadata["start_line"] - 1].strip() for c in chunks]
    assert not all(start.startswith((".filter(", "pub fn")) for start in starts), starts
