"""A question about where a table is created or defined ranks the migration creating the
table it names above the later migrations altering it."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import first_path_per_weight
from ragloom.retrieval import table_prior
from ragloom.retrieval.model_prior import query_words
from ragloom.retrieval.priors import reweigh
from ragloom.retrieval.table_prior import created_tables, names_table, prior_for_tables
from ragloom.types import SearchResult


def _migration(doc_id: str, path: str, text: str, score: float) -> SearchResult:
    metadata = {"path": path, "language": "php", "source_type": "migration"}
    return SearchResult(doc_id, text, metadata, 0.5, 0.5, rank_score=score)


@pytest.mark.parametrize(("text", "tables"), [
    ("Schema::create('invoices', function (Blueprint $table) {", {"invoices"}),
    ("CREATE TABLE IF NOT EXISTS \"custom_emojis\" (\n id uuid PRIMARY KEY", {"custom_emojis"}),
    ("CREATE TABLE public.jobs (id BIGSERIAL);\nCREATE TABLE job_runs (id INT);", {"jobs", "job_runs"}),
    ("migrations.CreateModel(\n    name='RecurringInvoice',\n    fields=[", {"RecurringInvoice"}),
    ("    create_table :invoices do |t|", {"invoices"}),
    ("    op.create_table('invoices', sa.Column('id', sa.Integer))", {"invoices"}),
    ("  return knex.schema.createTable('invoices', (table) => {", {"invoices"}),
    ("Schema::table('invoices', function (Blueprint $table) {", set()),
])
def test_created_tables(text: str, tables: set[str]) -> None:
    assert created_tables(_migration("a", "database/migrations/x.php", text, 1.0)) == tables


def test_only_migrations_create_tables() -> None:
    result = _migration("a", "app/Services/Installer.php", "Schema::create('invoices', fn () => 1);", 1.0)
    result.metadata["source_type"] = "code"
    assert created_tables(result) == set()


def test_a_table_is_named_by_its_name_or_every_word_of_it() -> None:
    words = query_words("which migration defines the columns of the table of recurring invoices")
    assert names_table(words, "invoices") and names_table(words, "recurring_invoices")
    assert names_table(words, "RecurringInvoice")
    assert not names_table(words, "invoice_items")


def test_the_creating_migration_goes_up() -> None:
    results = [_migration("alter", "database/migrations/2021_add_base_columns_into_invoices_table.php",
                          "Schema::table('invoices', function (Blueprint $table) {", 0.6),
               _migration("create", "database/migrations/2017_create_invoices_table.php",
                          "Schema::create('invoices', function (Blueprint $table) {", 0.5),
               _migration("other", "database/migrations/2017_create_items_table.php",
                          "Schema::create('items', function (Blueprint $table) {", 0.55)]
    factors = prior_for_tables("which migration defines the columns of the invoices table", results, 0.5)
    # 0.5 (creates invoices); 0.6 * 0.5 = 0.3; 0.55 * 0.5 = 0.275
    assert [r.id for r in reweigh(results, factors)] == ["create", "alter", "other"]


@pytest.mark.parametrize("query", [
    "which migration adds the overdue column to the invoices table",  # a change
    "database table for invoices that repeat on a schedule",  # no definition asked for
    "how are invoices created",  # no migration part named
    "migration that created the missing invoices rows for old customers",  # rows, not a table
])
def test_no_prior_for_changes_or_other_questions(query: str) -> None:
    results = [_migration("create", "database/migrations/2017_create_invoices_table.php",
                          "Schema::create('invoices', function (Blueprint $table) {", 0.5)]
    assert prior_for_tables(query, results) == []


def test_no_prior_when_no_candidate_creates_a_named_table() -> None:
    results = [_migration("create", "database/migrations/2017_create_items_table.php",
                          "Schema::create('items', function (Blueprint $table) {", 0.5)]
    assert prior_for_tables("which migration creates the invoices table", results) == []


def test_engine_answers_a_table_question_with_its_creating_migration(
        make_engine, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = {"database/migrations/2017_04_12_create_invoices_table.php":
             "<?php\nclass CreateInvoicesTable extends Migration\n{\n    public function up()\n    {\n"
             "        Schema::create('invoices', function (Blueprint $table) {\n"
             "            $table->id();\n            $table->date('due_date');\n        });\n    }\n}\n",
             "database/migrations/2021_07_16_add_base_columns_into_invoices_table.php":
             "<?php\nclass AddBaseColumnsIntoInvoicesTable extends Migration\n{\n    public function up()\n"
             "    {\n        // more columns of the invoices table, the invoices table's base columns\n"
             "        Schema::table('invoices', function (Blueprint $table) {\n"
             "            $table->decimal('base_total');\n        });\n    }\n}\n"}
    assert first_path_per_weight(make_engine, project, files, monkeypatch, table_prior, "TABLE_WEIGHT",
                                 "which migration defines the columns of the invoices table", (1.0, 0.5)) == [
        "database/migrations/2021_07_16_add_base_columns_into_invoices_table.php",
        "database/migrations/2017_04_12_create_invoices_table.php"]
