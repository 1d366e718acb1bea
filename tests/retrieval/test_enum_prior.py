"""A question asking which values something can take ranks the enumeration listing them
above the code that switches over them; documents keep their place."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import first_path_per_weight
from ragloom.retrieval import enum_prior
from ragloom.retrieval.enum_prior import defines_enumeration, prior_for_enums
from ragloom.retrieval.priors import reweigh
from ragloom.types import SearchResult


def _result(doc_id: str, text: str, score: float, source_type: str = "code") -> SearchResult:
    return SearchResult(doc_id, text, {"path": f"{doc_id}.x", "source_type": source_type}, 0.5, 0.5,
                        rank_score=score)


@pytest.mark.parametrize(("text", "defines"), [
    ("#[derive(Debug)]\npub enum TwoFactorType {\n    Authenticator = 0,\n}", True),
    ("enum Role: string\n{\n    case Owner = 'owner';\n}", True),
    ("export const enum Status { Active, Archived }", True),
    ("class FeedingType(models.TextChoices):\n    BREAST_MILK = 'breast milk'", True),
    ("class Color(enum.Enum):\n    RED = 1", True),
    ("const (\n\t// unread\n\tEntryStatusUnread = \"unread\"\n\tEntryStatusRead = \"read\"\n)", True),
    ("const (\n\tLevelLow Level = iota\n\tLevelHigh\n)", True),
    ("match atype {\n    TwoFactorType::Email => send_email(),\n}", False),
    ("// the enum of roles lives in Role.php\nfunction roles() {}", False),
    ("const limit = 10", False),
])
def test_defines_enumeration(text: str, defines: bool) -> None:
    assert defines_enumeration(text) is defines


def test_the_enumeration_goes_up_documents_keep_their_place() -> None:
    results = [_result("handler", "fn get_twofactor() { match TwoFactorType::Email {} }", 0.9),
               _result("readme", "Two-factor methods: authenticator apps, email, Duo", 0.5, "docs"),
               _result("enum", "pub enum TwoFactorType {\n    Authenticator = 0,\n    Email = 1,\n}", 0.6)]
    factors = prior_for_enums("which two-factor methods can a user set up", results)
    # 0.6 (the enum); 0.5 (a document, unweighed); 0.9 * 0.5 = 0.45
    assert [r.id for r in reweigh(results, factors)] == ["enum", "readme", "handler"]


@pytest.mark.parametrize("query", ["how is a two-factor code sent by email",  # asks for no values
                                   "which endpoint disables two-factor"])
def test_no_prior_for_other_questions(query: str) -> None:
    results = [_result("enum", "pub enum TwoFactorType {\n    Email = 1,\n}", 0.6)]
    assert prior_for_enums(query, results) == []


def test_no_prior_when_no_candidate_defines_an_enumeration() -> None:
    results = [_result("handler", "fn get_twofactor() {}", 0.9)]
    assert prior_for_enums("what kinds of two-factor methods exist", results) == []


def test_engine_answers_a_which_kinds_question_with_the_enum(make_engine, project: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    files = {"src/api/two_factor.rs": "fn activate(kind: TwoFactorType) {\n"
             "    // two-factor methods a user can set up: each one\n"
             "    match kind { TwoFactorType::Email => send_email(), _ => () }\n}\n",
             "src/models/two_factor.rs": "/// Two-factor methods\npub enum TwoFactorType {\n"
             "    Authenticator = 0,\n"
             "    Email = 1,\n    Duo = 2,\n}\n"}
    assert first_path_per_weight(make_engine, project, files, monkeypatch, enum_prior, "ENUM_WEIGHT",
                                 "which two-factor methods can a user set up", (1.0, 0.5)) == [
        "src/api/two_factor.rs", "src/models/two_factor.rs"]
