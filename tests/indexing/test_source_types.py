"""Every chunk's source_type: the default classification, a project's own patterns first,
filters on it, and a change of patterns re-chunks without re-embedding."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import hash_config, write
from ragloom import RAGEngine
from ragloom.indexing.source_types import DEFAULT_SOURCE_TYPES, SourceTypes, inline_test


@pytest.mark.parametrize(("path", "language", "expected"), [
    ("src/app.py", "python", "code"),
    ("app.py", "python", "code"),
    ("tests/test_app.py", "python", "test"),
    ("test_app.py", "python", "test"),
    ("pkg/app_test.go", "go", "test"),
    ("web/button.test.tsx", "typescript", "test"),
    ("conftest.py", "python", "test"),
    ("api/tests.py", "python", "test"),  # Django's per-app test module
    ("api/testsuite.py", "python", "code"),
    ("babybuddy/settings/test.py", "python", "test"),  # Django's settings for the test run
    ("specs/checkout.js", "javascript", "test"),
    ("spec/models/user_spec.rb", "ruby", "test"),
    ("website/src/content/docs/spec/http-signatures.mdx", "markdown", "docs"),  # a specification
    ("specs/design/sync-protocol.md", "markdown", "docs"),
    ("spec/protocol.rst", "rst", "docs"),
    ("spec/fixtures/feed.md", "markdown", "test"),  # a fixture is still a test's data
    ("tests/README.md", "markdown", "test"),  # only spec folders hold specifications
    ("src/cart_spec.ts", "typescript", "test"),
    ("src/parser_test.rs", "rust", "test"),
    ("src/components/Button.snap", "text", "test"),
    ("src/testing.py", "python", "code"),
    ("e2e/utils/api.ts", "typescript", "test"),  # end-to-end suites and their helpers
    ("cypress/support/commands.js", "javascript", "test"),
    ("playwright/tests/login.spec.ts", "typescript", "test"),
    ("playwright/docker-compose.yml", "yaml", "test"),
    ("docs/conf.py", "python", "code"),  # a program under docs/ is code, the pages are docs
    ("docs/views.py", "python", "code"),  # a Django app named ``docs``
    ("app/docs/[slug]/page.tsx", "typescript", "code"),
    ("docs/templates/docs/doc.html", "django-template", "code"),
    ("docs/guide.md", "markdown", "docs"),
    ("docs/build-notes", "text", "docs"),
    ("README.md", "markdown", "docs"),
    ("guide.rst", "rst", "docs"),
    ("pyproject.toml", "toml", "config"),
    (".github/workflows/ci.yml", "yaml", "config"),
    ("package.json", "json", "config"),
    ("data/points.csv", "text", "data"),
    ("tests/fixtures/points.csv", "text", "test"),
    ("analysis.ipynb", "text", "notebook"),
    ("papers/lift.pdf", "text", "pdf"),
    ("Makefile", "text", "config"),
    ("styles/site.css", "css", "text"),
    ("notes", "text", "text"),
    ("routes/web.php", "php", "route"),
    ("shop/routes/api.php", "php", "route"),
    ("database/migrations/2024_01_01_000000_create_orders_table.php", "php", "migration"),
    ("migrations/mysql/2021-08-30-193501_create_emergency_access/up.sql", "sql", "migration"),
    ("server/migrations/20240105120000_add_events.up.sql", "sql", "migration"),
    ("src/main/resources/db/migration/V3__add_events.sql", "sql", "migration"),
    ("core/migrations/0028_auto_20240101_1200.py", "python", "migration"),
    ("core/migrations/__init__.py", "python", "code"),
    ("db/migrate/20240101120000_create_orders.rb", "ruby", "migration"),
    ("alembic/versions/3f2a_add_events.py", "python", "migration"),
    ("db/migrations/20240101120000_create_users.js", "javascript", "migration"),  # Knex, Sequelize
    ("src/migrations/1612345678901-CreateUser.ts", "typescript", "migration"),  # TypeORM
    ("db/migrations/00003_add_tags.go", "go", "migration"),  # goose
    ("migration/src/m20220101_000001_create_post_table.rs", "rust", "migration"),  # SeaORM
    ("src/migrations/V2__add_events.rs", "rust", "migration"),  # refinery
    ("migration/src/lib.rs", "rust", "code"),  # SeaORM's runner
    ("src/migrations/index.ts", "typescript", "code"),
    ("schema/seed.sql", "sql", "code"),
    ("tests/migrations/0001_initial.py", "python", "test"),
    ("app/Http/Controllers/InvoiceController.php", "php", "controller"),
    ("app/Http/Controllers/Admin/UserController.php", "php", "controller"),
    ("app/Models/Invoice.php", "php", "model"),
    ("config/queue.php", "php", "config"),
    ("app/Services/Billing.php", "php", "code"),
    ("tests/Feature/routes/web.php", "php", "test"),
])
def test_default_classification(path: str, language: str, expected: str) -> None:
    assert SourceTypes().of(path, language) == expected


def test_project_patterns_come_first() -> None:
    types = SourceTypes({"generated": ["src/gen/**"], "docs": ["notes/**"]})
    assert types.of("src/gen/model.py", "python") == "generated"
    assert types.of("notes/todo.py", "python") == "docs"
    assert types.of("src/app.py", "python") == "code"


def test_chunks_carry_it_filters_select_by_it_and_a_change_rechunks_only(tmp_path: Path) -> None:
    write(tmp_path, "src/lift.py", "def lift(angle):\n    return 2 * angle\n")
    write(tmp_path, "tests/test_lift.py", "def test_lift():\n    assert lift(1) == 2\n")
    write(tmp_path, "docs/lift.md", "# Lift\nLift grows with the angle.\n")
    config = hash_config(vector_store={"provider": "turboquant"}, relevance_gate=0.0)
    with RAGEngine(config, tmp_path) as engine:
        engine.index_directory()
        found = {r.path: r.metadata["source_type"] for r in engine.search("lift angle", top_k=10)}
        code_only = engine.search("lift angle", top_k=10, filters={"source_type": {"$in": ["code"]}})
    assert found == {"src/lift.py": "code", "tests/test_lift.py": "test", "docs/lift.md": "docs"}
    assert [r.path for r in code_only] == ["src/lift.py"]
    config = hash_config(vector_store={"provider": "turboquant"}, relevance_gate=0.0,
                         source_types={"spec": ["tests/**"]})
    with RAGEngine(config, tmp_path) as engine:
        report = engine.index_directory()
        found = {r.path: r.metadata["source_type"] for r in engine.search("lift angle", top_k=10)}
        assert engine.verify().ok
    assert (report.files_indexed, report.chunks_embedded) == (3, 0)
    assert found["tests/test_lift.py"] == "spec"


def test_new_default_patterns_retype_an_old_index_without_embedding(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An index made before a release added a default pattern takes the new type on the
    next run: the defaults are part of the chunking signature."""
    write(tmp_path, "settings/test.py", "EMAIL_BACKEND = 'locmem'\n")
    config = hash_config(vector_store={"provider": "turboquant"}, relevance_gate=0.0)
    tests_before = tuple(p for p in DEFAULT_SOURCE_TYPES["test"] if p != "**/test.py")
    monkeypatch.setitem(DEFAULT_SOURCE_TYPES, "test", tests_before)
    with RAGEngine(config, tmp_path) as engine:
        engine.index_directory()
        assert engine.search("email backend", top_k=1)[0].metadata["source_type"] == "code"
    monkeypatch.undo()
    with RAGEngine(config, tmp_path) as engine:
        report = engine.index_directory()
        assert engine.search("email backend", top_k=1)[0].metadata["source_type"] == "test"
    assert (report.files_indexed, report.chunks_embedded) == (1, 0)



SLUG_RS = '''/// Turns a title into the slug of its URL.
pub fn slugify(title: &str) -> String {
    title.to_lowercase().replace(' ', "-")
}

#[test]
fn slugify_lowercases_and_joins() {
    assert_eq!(slugify("Hello World"), "hello-world");
}

// Reads the slug back from a request path.
#[tokio::test]
async fn slug_from_path() {
    assert_eq!(slug_of("/p/hello-world").await, "hello-world");
}

#[sqlx::test(migrations = "./migrations")]
async fn stores_the_slug(pool: PgPool) {
    insert_post(&pool, "Hello").await;
}

#[derive(Debug)]
#[cfg_attr(test, derive(PartialEq))]
pub struct Slug(String);

#[cfg(not(test))]
fn clock() -> Instant {
    Instant::now()
}
'''


def _items(text: str) -> list[str]:
    """The file cut before each item (its doc comment and attributes with it)."""
    blocks, current = [], []
    for line in text.splitlines():
        if not line.strip():
            if current:
                blocks.append("\n".join(current))
            current = []
        else:
            current.append(line)
    return blocks + (["\n".join(current)] if current else [])


def test_rust_item_with_a_test_attribute_is_an_inline_test() -> None:
    items = _items(SLUG_RS)
    assert [inline_test(None, "rust", item) for item in items] == [
        False, True, True, True, False, False]
    assert inline_test("tests::it_adds", "rust") and inline_test("net::test::it_connects", "rust")
    assert not inline_test("testing::helpers", "rust") and not inline_test("Slug", "rust", items[4])
    assert not inline_test(None, "go", items[1])  # only Rust marks tests so
