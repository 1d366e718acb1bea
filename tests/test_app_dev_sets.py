"""The application dev sets (bench/app_sets) load, cover what issue 36 asks of them, and
are graded as bench/app_questions.py documents."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

from app_questions import (  # noqa: E402
    KINDS,
    Span,
    app_set_names,
    hit_at,
    is_import_only,
    is_test_path,
    load_app_set,
    ndcg_at,
    parse_span,
    with_copies,
)


def test_three_apps_over_a_hundred_questions_every_kind() -> None:
    sets = [load_app_set(name) for name in app_set_names()]
    assert len(sets) >= 3
    assert sum(len(s.questions) for s in sets) >= 100
    assert {q.kind for s in sets for q in s.questions} == set(KINDS)
    for app in sets:
        assert len(app.commit) == 40 and "/" in app.repo
        assert all(q.gold for q in app.questions)


def test_bad_span_and_kind_named(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"q1.*'a.php:9-3' ends before it starts"):
        parse_span("a.php:9-3", "q1")
    with pytest.raises(ValueError, match="is not 'path:first-last'"):
        parse_span("a.php", "q1")
    file = tmp_path / "x.toml"
    file.write_text('name = "x"\nrepo = "o/x"\ncommit = "c"\n[[questions]]\nid = "x1"\n'
                    'kind = "weather"\nquestion = "q"\ngold = ["a:1"]\n')
    with pytest.raises(ValueError, match="x.toml question 'x1': kind 'weather'"):
        load_app_set(file)


def test_ndcg_credits_each_gold_span_once() -> None:
    gold = (Span("a.php", 10, 20), Span("b.php", 5, 5))
    assert ndcg_at([("a.php", 1, 9), ("a.php", 18, 30), ("b.php", 1, 5)], gold) == pytest.approx(
        (1 / 1.5849625 + 1 / 2) / (1 + 1 / 1.5849625))
    # a second piece of an answer already credited gains nothing
    assert ndcg_at([("a.php", 10, 12), ("a.php", 13, 20)], gold[:1]) == 1.0
    assert ndcg_at([("c.php", 10, 20)], gold) == 0.0
    assert hit_at([("x", 1, 1)] * 5 + [("b.php", 5, 5)], gold, 5) is False
    assert hit_at([("b.php", 4, 6)], gold, 5) is True


def test_identical_copies_take_the_places_after_their_result(tmp_path: Path) -> None:
    up = "CREATE TABLE event (\n  uuid CHAR(36) NOT NULL\n);\n"
    for db, text in (("sqlite", up), ("mysql", "-- mysql\n" + up), ("pg", "DROP TABLE x;\n")):
        (tmp_path / db).mkdir()
        (tmp_path / db / "up.sql").write_text(text)
    results = [("sqlite/up.sql", 1, 3, up), ("a.rs", 1, 9, "fn a() {}")]
    copies = [["mysql/up.sql", "pg/up.sql", "gone/up.sql"], []]
    # mysql's copy is one line lower; pg's file lacks the text; a missing file is no copy
    assert with_copies(results, copies, tmp_path) == [
        ("sqlite/up.sql", 1, 3, up), ("mysql/up.sql", 2, 4, up), ("a.rs", 1, 9, "fn a() {}")]
    gold = tuple(Span(f"{db}/up.sql", 1, 4) for db in ("sqlite", "mysql"))
    assert ndcg_at([r[:3] for r in with_copies(results, copies, tmp_path)], gold) == 1.0
    assert ndcg_at([r[:3] for r in results], gold) == pytest.approx(1 / (1 + 1 / 1.5849625))
    # the copies push later results out of the cut
    assert with_copies(results, copies, tmp_path, k=2)[-1][0] == "mysql/up.sql"


@pytest.mark.parametrize(("path", "test"), [
    ("tests/Unit/FooTest.php", True), ("resources/js/a.spec.ts", True),
    ("core/tests/test_models.py", True), ("internal/x_test.go", True),
    ("src/__snapshots__/a.snap", True), ("app/Models/Test.php", False),
    ("app/Console/Commands/Test/TestJobCommand.php", False), ("core/models.py", False),
    ("spec/models/user_spec.rb", True), ("spec/fixtures/feed.md", True),
    ("website/src/content/docs/spec/http-signatures.mdx", False)])  # a specification
def test_test_paths(path: str, test: bool) -> None:
    assert is_test_path(path) is test


@pytest.mark.parametrize(("text", "only"), [
    ("<?php\n\nnamespace App\\X;\n\nuse A\\B;\nuse C\\{D, E};\n", True),
    ("import { a,\n  b } from 'x';\nimport c from \"d\"\n// note\n", True),
    ("package main\n\nimport (\n\t\"fmt\"\n\t\"os\"\n)\n", True),
    ("from django.db import models\nimport os\n", True),
    ('<script setup lang="ts">\nimport A from "./A.vue";\n', True),
    ("import os\nos.remove(x)\n", False),
    ("use App\\Models\\User;\n\nclass A {}\n", False),
    ("# just a comment\n", False)])
def test_import_only(text: str, only: bool) -> None:
    assert is_import_only(text) is only
