"""A doc comment written as a run of line comments (Go's `//`, Rust's `///`, Ruby's and
shell's `#`, PHP's and TypeScript's `//`) stays whole with the definition it documents:
each line is a node of its own in the grammar, and only the last one used to join the
definition, the others left behind with the imports (issue 36)."""

from __future__ import annotations

import pytest

from helpers import hash_config
from ragloom.chunking.registry import FileChunker

pytest.importorskip("tree_sitter", reason="ragloom[code] is part of the CI install")

GO = """package billing

import "fmt"

// Total sums the invoice lines.
// Discounts are applied per line,
// before taxes.
func Total(lines []Line) int {
\tsum := 0
\tfor _, l := range lines {
\t\tsum += l.Net()
\t}
\tfmt.Println(sum)
\treturn sum
}
"""

RUST = """use std::time::Duration;

/// How long a session lasts
/// when the user ticked "remember me".
/// Counted from the last request.
pub fn session_lifetime(remember: bool) -> Duration {
    if remember { Duration::from_secs(2_592_000) } else { Duration::from_secs(7_200) }
}
"""

RUBY = """require "digest"

# Ranks a story by votes and age:
# newer stories with the same score
# come first.
def hotness(score, created_at)
  order = Math.log([score.abs, 1].max, 10)
  order - (created_at.to_i / 45_000.0)
end
"""

TYPESCRIPT = """import { db } from "./db"

// Deletes a post and its comments.
// Only the author may do it.
export async function deletePost(id: string, user: string) {
  await db.comment.deleteMany({ where: { postId: id } })
  return db.post.delete({ where: { id, authorId: user } })
}
"""


def spans(source: str, path: str) -> list[tuple[int, int, object]]:
    chunks = FileChunker(hash_config(chunk_size=400, chunk_overlap=80)).chunk(source, path)
    return [(c.metadata["start_line"], c.metadata["end_line"], c.metadata.get("symbol"))
            for c in chunks]


@pytest.mark.parametrize(("path", "source", "expected"), [
    ("billing/total.go", GO, [(1, 3, None), (5, 15, "Total")]),
    ("src/session.rs", RUST, [(1, 1, None), (3, 8, "session_lifetime")]),
    ("lib/ranking.rb", RUBY, [(1, 1, None), (3, 9, "hotness")]),
    ("lib/posts.ts", TYPESCRIPT, [(1, 1, None), (3, 8, "deletePost")]),
])
def test_a_run_of_line_comments_opens_the_definition_it_documents(
        path: str, source: str, expected: list[tuple[int, int, object]]) -> None:
    assert spans(source, path) == expected


def test_a_licence_apart_from_the_doc_comment_still_opens_the_imports() -> None:
    source = ("// Copyright 2026 The Shop Authors.\n// Licensed under MIT.\n\nimport { db } from './db'\n\n"
              "// Lists the open orders.\n// Newest first.\nexport function openOrders() {\n"
              "  return db.order.findMany({ where: { open: true } })\n}\n")
    assert spans(source, "orders.ts") == [(1, 4, None), (6, 10, "openOrders")]


def test_a_module_doc_is_not_buried_in_the_imports() -> None:
    # Import runs rank last; a module's own doc (Rust `//!`, Go `// Package`) above them is
    # what a question about the module finds, so it keeps a chunk of its own.
    rust = ("//! Sync with the server.\n//!\n//! Uploads local history records in batches.\n\n"
            "use std::time::Duration;\nuse crate::api::Client;\n\n"
            "pub async fn sync(client: &Client) -> Result<(), Error> {\n"
            "    client.push(Duration::from_secs(5)).await\n}\n")
    assert spans(rust, "src/sync.rs") == [(1, 3, None), (5, 6, None), (8, 10, "sync")]
    go = ("// Package sync uploads local history\n// and downloads what other machines wrote.\n"
          "package sync\n\nimport \"time\"\n\nfunc Run() {\n\ttime.Sleep(1)\n}\n")
    assert spans(go, "sync/sync.go") == [(1, 2, None), (3, 5, None), (7, 9, "Run")]
    chunks = FileChunker(hash_config(chunk_size=400, chunk_overlap=80)).chunk(go, "sync/sync.go")
    assert [c.metadata["kind"] for c in chunks] == ["module", "imports", "function"]
