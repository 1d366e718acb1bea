"""A question about how entities relate ranks the ORM's relation declarations above the
code that only uses the related entities, unless it names another part of the application."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import first_path_per_weight
from ragloom.retrieval import relation_prior
from ragloom.retrieval.priors import reweigh
from ragloom.retrieval.relation_prior import asks_about_relations, declares_relations, prior_for_relations
from ragloom.types import SearchResult


def _result(doc_id: str, path: str, text: str, score: float, language: str = "php",
            source_type: str = "code") -> SearchResult:
    metadata = {"path": path, "language": language, "source_type": source_type}
    return SearchResult(doc_id, text, metadata, 0.5, 0.5, rank_score=score)


@pytest.mark.parametrize("query", [
    "relationships of the customer model: invoices, payments and addresses",
    "relations of a time entry to its member, project and task",
    "how is a user linked to the companies they can access",
    "how are replies linked into a thread, with a parent and a root post",
    "which team does a project belong to",
    "is the tag to post association many-to-many",
])
def test_words_for_relations(query: str) -> None:
    assert asks_about_relations(query)


@pytest.mark.parametrize("query", [
    "how is the invoice total calculated", "which links are shown in the footer",
    "settings associated with the mailer", "how does a relay forward messages",
    "which pages are linked to from the footer",
    "how does sign-up check that an email address belongs to an allowed domain",
    "make sure the invoice belongs to the company of the user",
])
def test_other_questions_are_not_about_relations(query: str) -> None:
    assert not asks_about_relations(query)


@pytest.mark.parametrize("text", [
    "public function invoices()\n{\n    return $this->hasMany(Invoice::class);\n}",
    "return $this->belongsToMany(Company::class, 'user_company');",
    "return $this->morphTo();",
    "    child = models.ForeignKey(Child, on_delete=models.CASCADE)",
    "    tags = models.ManyToManyField(Tag)",
    "    invoices = relationship('Invoice', back_populates='customer')",
    "class Invoice < ApplicationRecord\n  belongs_to :customer\n  has_many :items\nend",
    "    #[ORM\\ManyToOne(targetEntity: Customer::class)]",
    "  @OneToMany(() => Photo, (photo) => photo.user)",
    "#[diesel(belongs_to(User))]\npub struct Post {",
    "  author User @relation(fields: [authorId], references: [id])",
])
def test_declarations_of_every_orm(text: str) -> None:
    assert declares_relations(_result("a", "app/x", text, 1.0))


def test_uses_tests_components_and_prose_declare_nothing() -> None:
    assert not declares_relations(_result("a", "app/Models/Customer.php",
                                          "$customer->invoices()->delete();\n$this->has_many = 3;", 1.0))
    assert not declares_relations(_result("b", "tests/Unit/CustomerTest.php",
                                          "$this->assertInstanceOf(HasMany::class, $c->hasMany(X::class));",
                                          1.0, source_type="test"))
    assert not declares_relations(_result("c", "resources/js/Customer.vue",
                                          "<script>const r = $this->hasMany(Invoice)</script>", 1.0,
                                          language="vue"))
    assert not declares_relations(_result("d", "docs/flow.md", "the relationship (2) between lift and drag",
                                          1.0, language="markdown", source_type="docs"))
    assert declares_relations(_result("e", "app/models.py", "invoices = relationship('Invoice')", 1.0,
                                      language="python"))


def test_the_declarations_go_up() -> None:
    results = [_result("create", "app/Models/Customer.php",
                       "$customer->addresses()->createMany($rows);", 0.9),
               _result("relations", "app/Models/Customer.php",
                       "return $this->hasMany(Invoice::class);", 0.3),
               _result("controller", "app/Http/Controllers/CustomersController.php",
                       "Customer::create()", 0.5)]
    factors = prior_for_relations("relationships of the customer model: invoices and addresses",
                                  results, weight=0.25)
    # 0.3 (declares); 0.9 * 0.25 = 0.225; 0.5 * 0.25 = 0.125
    assert [r.id for r in reweigh(results, factors)] == ["relations", "create", "controller"]
    # much the better match elsewhere still comes first: 0.9 * 0.25 = 0.225 > 0.2
    results[1].rank_score = 0.2
    assert [r.id for r in reweigh(results, factors)][0] == "create"


def test_no_prior_for_another_part_or_other_questions_or_no_declaration() -> None:
    results = [_result("migration", "database/migrations/2021_add_customer_id.php",
                       "$table->foreign('customer_id')->references('id')->on('customers');", 0.9),
               _result("relations", "app/Models/Invoice.php",
                       "return $this->belongsTo(Customer::class);", 0.3)]
    assert prior_for_relations("which migration adds the foreign key to customers", results) == []
    assert prior_for_relations("how is the invoice total calculated", results) == []
    assert prior_for_relations("relations of an invoice", results[:1]) == []


def test_engine_answers_a_relation_question_with_the_declarations(
        make_engine, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = {"app/Models/Customer.php": "<?php\nclass Customer extends Model\n{\n"
             "    public function invoices()\n    {\n"
             "        return $this->hasMany(Invoice::class);\n    }\n}\n",
             "app/Http/Controllers/CustomersController.php": "<?php\nclass CustomersController\n{\n"
             "    // a customer with the invoices and the payments of the customer\n"
             "    public function show(Customer $customer)\n    {\n"
             "        return $customer->load('invoices', 'payments');\n    }\n}\n"}
    assert first_path_per_weight(make_engine, project, files, monkeypatch, relation_prior,
                                 "RELATION_WEIGHT", "relationships of a customer: invoices and payments",
                                 (1.0, 0.25)) == [
        "app/Http/Controllers/CustomersController.php", "app/Models/Customer.php"]
