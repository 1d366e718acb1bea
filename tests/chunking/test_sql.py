"""SQL files are cut between statements: a function's dollar-quoted body and a trigger's
BEGIN ... END block stay whole, comments stay with the statement below them, and each chunk
names the tables, indexes and functions its statements create."""

from __future__ import annotations

from ragloom.chunking.registry import FileChunker
from ragloom.chunking.sql import SqlChunker, statements
from ragloom.config import RAGConfig

MIGRATION = """-- Builds of a release, one row per attempt.
CREATE TABLE IF NOT EXISTS builds (
    id SERIAL PRIMARY KEY,
    release_id INTEGER NOT NULL REFERENCES releases(id),
    status TEXT NOT NULL DEFAULT 'queued', -- queued; running; done
    started_at TIMESTAMPTZ
);

CREATE INDEX builds_release_idx ON builds (release_id);

-- Keeps releases.latest_build pointing at the newest build.
CREATE OR REPLACE FUNCTION touch_latest_build() RETURNS trigger AS $$
BEGIN
    UPDATE releases SET latest_build = NEW.id WHERE id = NEW.release_id;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER builds_touch_latest
AFTER INSERT ON builds
FOR EACH ROW
BEGIN
    UPDATE releases SET latest_build = NEW.id WHERE id = NEW.release_id;
    DELETE FROM pending WHERE release_id = NEW.release_id;
END;

ALTER TABLE ONLY "releases" ADD COLUMN latest_build INTEGER;
INSERT INTO build_states (name) VALUES ('queued'), ('running');
"""


def test_statements_end_at_semicolons_outside_bodies() -> None:
    assert statements(MIGRATION.split("\n")) == [(1, 7), (8, 9), (10, 17), (18, 25), (26, 27), (28, 28)]


def test_chunks_are_whole_statements_named_by_what_they_touch() -> None:
    chunks = SqlChunker(chunk_size=330).chunk(MIGRATION, "migrations/0004_builds.up.sql")
    spans = [(c.metadata["start_line"], c.metadata["end_line"]) for c in chunks]
    assert spans == [(1, 9), (11, 17), (19, 27), (28, 28)]
    # named by what they create; ALTER TABLE releases and INSERT INTO build_states only refer
    assert [c.metadata.get("symbol") for c in chunks] == [
        "builds", "touch_latest_build", "builds_touch_latest", None]
    assert chunks[0].metadata["symbols"] == "builds, builds_release_idx"
    assert not any("symbols" in c.metadata for c in chunks[1:])
    assert chunks[1].text.startswith("-- Keeps releases.latest_build")  # the comment with it
    assert {c.metadata["kind"] for c in chunks} == {"statement"}
    assert {c.metadata["chunker"] for c in chunks} == {"sql"}


def test_a_statement_longer_than_a_window_is_cut_between_lines() -> None:
    columns = ",\n".join(f"    column_{n} INTEGER NOT NULL DEFAULT {n}" for n in range(60))
    text = f"CREATE TABLE wide (\n{columns}\n);\nCREATE TABLE narrow (id INTEGER);\n"
    chunks = SqlChunker(chunk_size=400).chunk(text, "schema.sql")
    assert len(chunks) > 3 and chunks[0].metadata["symbol"] == "wide"
    assert chunks[-1].text.rstrip().endswith("CREATE TABLE narrow (id INTEGER);")
    assert all(len(c.text) <= 400 for c in chunks)
    ends = [c.metadata["end_line"] for c in chunks]
    assert ends == sorted(ends) and ends[-1] == 63


def test_sql_files_get_the_sql_chunker_and_a_file_without_semicolons_is_one_statement() -> None:
    chunks = FileChunker(RAGConfig(chunk_size=1000)).chunk(MIGRATION, "db/migrations/001.sql")
    assert {c.metadata["language"] for c in chunks} == {"sql"}
    assert {c.metadata["chunker"] for c in chunks} == {"sql"}
    assert statements(["SELECT 1", "", "-- no end"]) == [(1, 3)]
    assert statements(["", "  ", "-- only a comment"]) == [(1, 3)]  # kept: nothing is lost
    assert statements(["", "  "]) == []
    unnamed = SqlChunker().chunk("CREATE INDEX ON builds (release_id);\n", "x.sql")
    assert "symbol" not in unnamed[0].metadata


def test_a_sql_comment_stays_with_the_statement_below_it() -> None:
    from ragloom.chunking.registry import FileChunker
    from ragloom.config import RAGConfig

    source = ("CREATE TABLE favorites (\n  user_uuid TEXT NOT NULL,\n  cipher_uuid TEXT NOT NULL\n);\n\n"
              "-- Copy the favorite flag of items owned by a user.\n"
              "INSERT INTO favorites(user_uuid, cipher_uuid)\nSELECT user_uuid, uuid FROM ciphers\n"
              "WHERE favorite = 1;\n\n-- The old column goes.\nALTER TABLE ciphers DROP COLUMN favorite;\n")
    config = RAGConfig(embedding={"provider": "hash"}, chunk_size=200, chunk_overlap=40)
    chunks = FileChunker(config).chunk(source, "migrations/2020_add_favorites/up.sql")
    # each statement whole, its comment above it, no overlap (windows of 200 characters)
    assert [(c.metadata["start_line"], c.metadata["end_line"], c.metadata["language"]) for c in chunks] == [
        (1, 4, "sql"), (6, 9, "sql"), (11, 12, "sql")]
    assert all(c.text == source[c.metadata["start_char"]:c.metadata["end_char"]] for c in chunks)
    # a statement longer than a window is cut between its lines
    small = RAGConfig(embedding={"provider": "hash"}, chunk_size=100, chunk_overlap=20)
    assert [(c.metadata["start_line"], c.metadata["end_line"])
            for c in FileChunker(small).chunk(source, "up.sql")] == [(1, 4), (6, 7), (8, 9), (11, 12)]
