"""A Go file holding an application's migrations as one list: each element a chunk of its
own, named by what it creates or changes."""

from __future__ import annotations

import pytest

from ragloom.chunking.treesitter import TreeSitterChunker
from ragloom.chunking.treesitter.migration_lists import element_name, holds_migrations

pytest.importorskip("tree_sitter_go")

MIGRATIONS = '''package database

import "database/sql"

var schemaVersion = len(migrations)

// Order is important. Add new migrations at the end of the list.
var migrations = [...]func(tx *sql.Tx) error{
	func(tx *sql.Tx) (err error) {
		sql := `
			CREATE TABLE users (
				id SERIAL,
				username text not null unique,
				primary key (id)
			);
		`
		_, err = tx.Exec(sql)
		return err
	},
	func(tx *sql.Tx) (err error) {
		// This used to create a column that is no longer used.
		return nil
	},
	func(tx *sql.Tx) (err error) {
		sql := `
			CREATE TABLE api_keys (
				id SERIAL,
				user_id int not null references users(id) on delete cascade,
				token text not null unique
			);
		`
		_, err = tx.Exec(sql)
		return err
	},
	func(tx *sql.Tx) (err error) {
		sql := `
			ALTER TABLE entries ADD COLUMN share_code text not null default '';
			CREATE UNIQUE INDEX entries_share_code_idx ON entries USING btree(share_code);
		`
		_, err = tx.Exec(sql)
		return err
	},
}
'''


def _chunks(path: str, text: str = MIGRATIONS) -> list[tuple[int, int, object, object]]:
    chunks = TreeSitterChunker("go", chunk_size=1000).chunk(text, path)
    return [(c.metadata["start_line"], c.metadata["end_line"], c.metadata.get("symbol"),
             c.metadata.get("symbols")) for c in chunks]


def test_each_migration_of_a_list_is_a_chunk_named_by_what_it_changes() -> None:
    assert _chunks("internal/database/migrations.go") == [
        (1, 5, None, None),  # the package, imports and the first var
        (7, 19, "users", None),  # the comment and the list's opening line open its first element
        (20, 23, "migrations[1]", None),  # nothing created: its place in the list
        (24, 34, "api_keys", None),
        (35, 43, "entries.share_code", "entries.share_code, entries_share_code_idx"),
    ]


def test_a_list_in_a_file_not_named_for_migrations_is_cut_as_before() -> None:
    assert _chunks("internal/storage/queries.go") == [(1, 43, None, None)]  # fits one window


def test_a_list_of_strings_is_no_list_of_migrations() -> None:
    names = 'package migrations\n\nvar tables = []string{\n\t"users",\n\t"feeds",\n\t"entries",\n}\n'
    assert _chunks("internal/migrations/tables.go", names) == [(1, 7, None, None)]
    structs = ('package migrations\n\nvar all = []*Migration{\n\t{ID: "1", Up: up1},\n'
               '\t{ID: "2", Up: up2},\n\t&Migration{ID: "3", Up: up3},\n}\n')
    assert [symbol for _, _, symbol, _ in _chunks("internal/migrations/all.go", structs)] == [
        "1", "2", "3"]  # the package line opens the first


@pytest.mark.parametrize(("path", "holds"), [
    ("internal/database/migrations.go", True),
    ("db/migrate.go", True),
    ("internal/migrations/list.go", True),
    ("internal/storage/migrator.go", False),
    ("internal/model/entry.go", False),
])
def test_files_holding_migrations(path: str, holds: bool) -> None:
    assert holds_migrations(path) is holds


def test_a_migration_is_named_by_its_own_id_else_tables_and_columns_else_its_place() -> None:
    assert element_name('{ID: "202101011200_add_tags", Migrate: func(tx *gorm.DB) error {}}',
                        "migrations", 3) == "202101011200_add_tags"
    assert element_name("ALTER TABLE feeds\n ADD COLUMN block_rules text,\n ADD COLUMN keep_rules text;\n"
                        "ALTER TABLE feeds ADD CONSTRAINT feeds_unique UNIQUE (url);",
                        "migrations", 7) == "feeds.block_rules, feeds.keep_rules"
    assert element_name("ALTER TABLE users ALTER COLUMN theme SET DEFAULT 'light';", "m", 1) == "users.theme"
    assert element_name("return nil", "all", 4) == "all[4]"
