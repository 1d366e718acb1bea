"""A file's pragmas (`# frozen_string_literal: true`, `# typed: false`, `// @ts-nocheck`,
`"use client"`, a shebang) open what follows, and a trailing export list of the file's own
names ends the code before it: neither is a chunk of its own (issue 36: a Next.js
component's one-line `"use client"` chunk reached the top 5 of a question about it)."""

from __future__ import annotations

import pytest

from helpers import hash_config
from ragloom.chunking.registry import FileChunker

pytest.importorskip("tree_sitter", reason="ragloom[code] is part of the CI install")

NAV = """"use client"

import Link from "next/link"
import { usePathname } from "next/navigation"

export function SidebarNav({ items }: { items: { href: string; title: string }[] }) {
  const path = usePathname()
  return items.map((item) => (
    <Link key={item.href} href={item.href} aria-current={path === item.href}>{item.title}</Link>
  ))
}
"""

MODEL = """# frozen_string_literal: true
# typed: false

class Invoice < ApplicationRecord
  belongs_to :customer

  def overdue?
    due_on < Date.current && !paid?
  end
end
"""

BADGE = """import * as React from "react"

function badgeClass(tone: string) {
  return tone === "warn" ? "badge badge-warn" : "badge"
}

function Badge({ tone, children }: { tone: string; children: React.ReactNode }) {
  return <span className={badgeClass(tone)}>{children}</span>
}

export {
  Badge,
  badgeClass as badgeVariants,
}
"""

SCRIPT = """#!/usr/bin/env node
'use strict';

function main(argv) {
  return argv.length
}

main(process.argv)
"""


def spans(source: str, path: str) -> list[tuple[int, int, object, object]]:
    chunks = FileChunker(hash_config(chunk_size=400, chunk_overlap=80)).chunk(source, path)
    return [(c.metadata["start_line"], c.metadata["end_line"], c.metadata.get("kind"),
             c.metadata.get("symbol")) for c in chunks]


def test_a_directive_opens_the_imports() -> None:
    assert spans(NAV, "components/sidebar-nav.tsx") == [
        (1, 4, "imports", None), (6, 11, "function", "SidebarNav")]


def test_magic_comments_open_the_class() -> None:
    assert spans(MODEL, "app/models/invoice.rb") == [(1, 10, "class", "Invoice")]


def test_a_shebang_and_use_strict_open_the_first_function() -> None:
    assert spans(SCRIPT, "bin/count.js")[0][:3] == (1, 6, "function")


def test_a_trailing_export_list_ends_the_definition_before_it() -> None:
    assert spans(BADGE, "components/ui/badge.tsx") == [
        (1, 1, "imports", None), (3, 14, "function", "badgeClass")]


def test_a_licence_longer_than_the_pragmas_stays_out_of_a_definition() -> None:
    licence = ("// Copyright 2026 The Shop Authors.\n// Licensed under MIT.\n// See LICENSE.\n"
               "// No warranty.\n\n")
    found = spans(licence + "export function total(a: number, b: number) {\n  return a + b\n}\n", "t.ts")
    assert found == [(1, 4, "module", None), (6, 8, "function", "total")]


def test_pragmas_apart_by_blank_lines_open_the_code_together() -> None:
    source = '// @ts-check\n\n"use strict";\n\nfunction main() {\n  return 1\n}\n'
    assert spans(source, "app/javascript/application.js") == [(1, 7, "function", "main")]
