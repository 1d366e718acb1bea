"""A question asking which values something can take ranks the enumeration listing them
above the code that switches over them; documents keep their place."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import first_path_per_weight, write
from ragloom.retrieval import enum_prior
from ragloom.retrieval.enum_prior import (
    defines_enumeration,
    enumeration_words,
    named_enumerations,
    prior_for_enums,
    search_depth,
)
from ragloom.retrieval.layout_priors import layout_priors
from ragloom.retrieval.priors import _product, reweigh
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
    ("    method = models.CharField(\n        choices=[\n            (\"bottle\", _(\"Bottle\")),", True),
    ("    status = models.CharField(choices=Status.choices, max_length=9)", True),
    ("export type Role = 'owner' | 'admin' | 'employee'", True),
    ("enum :status, { active: 0, archived: 1 }", True),
    ("enum class Level { LOW, HIGH }", True),
    ("type Props = { role: string }", False),
    ("STATUSES = (\n    (\"up\", \"Up\"),\n    (\"down\", \"Down\"),\n)", True),
    ("export const USER_ROLES = ['owner', 'admin']", True),
    ("export const ROLES = Object.freeze({ OWNER: 'owner' })", True),
    ("  STATUSES = %w[active archived].freeze", True),
    ("class Post extends Model\n{\n    const STATUS_DRAFT = 'draft';\n"
     "    const STATUS_PUBLISHED = 'published';\n}", True),
    ("class Post extends Model\n{\n    const PER_PAGE = 20;\n\n    public function user() {}\n}", False),
    ("const API_URL = '/api';\nconst TIMEOUT = 30;", False),
    ("DEBUG = True", False),
    ("class Status(str, Enum):\n    ACTIVE = 'active'", True),
    ("export const Status = Object.freeze({\n  Active: 'active',\n})", True),
    ("export const Role = {\n  Owner: 'owner',\n  Admin: 'admin',\n} as const", True),
    ("export type Role =\n  | 'owner'\n  | 'admin'", True),
    ("export const config = {\n  debug: true,\n}", False),
    ("class Base(object):\n    pass", False),
])
def test_defines_enumeration(text: str, defines: bool) -> None:
    assert defines_enumeration(text) is defines


def test_an_enumeration_the_query_does_not_name_goes_up_documents_keep_their_place() -> None:
    results = [_result("handler", "fn get_twofactor() { match TwoFactorType::Email {} }", 0.9),
               _result("readme", "Two-factor methods: authenticator apps, email, Duo", 0.5, "docs"),
               _result("enum", "pub enum Provider {\n    Authenticator = 0,\n    Email = 1,\n}", 0.6)]
    factors = prior_for_enums("which two-factor methods can a user set up", results)
    # 0.6 (an enumeration, not named by the query); 0.5 (a document, unweighed); 0.9 * 0.5 = 0.45
    assert [r.id for r in reweigh(results, factors)] == ["enum", "readme", "handler"]


def test_the_enumeration_the_query_names_comes_first_even_from_far_down() -> None:
    results = [_result("handler", "fn get_twofactor() { match TwoFactorType::Email {} }", 0.9),
               _result("readme", "Two-factor methods: authenticator apps, email, Duo", 0.5, "docs"),
               _result("other", "pub enum EventType {\n    Login = 1000,\n}", 0.7),
               _result("enum", "pub enum TwoFactorType {\n    Authenticator = 0,\n    Email = 1,\n}", 0.2)]
    factors = prior_for_enums("which two-factor methods can a user set up", results)
    # 0.2 (named: two, factor); 0.5 * 0.3 (a document); 0.9 * 0.1; 0.7 * 0.1 (EventType
    # names no query word)
    assert [r.id for r in reweigh(results, factors)] == ["enum", "readme", "handler", "other"]
    results[1].rank_score = 0.8  # a much better page stays above: 0.8 * 0.3 = 0.24
    assert [r.id for r in reweigh(results, factors)][:2] == ["readme", "enum"]
    assert named_enumerations("which two-factor methods can a user set up", results) == {"enum"}


@pytest.mark.parametrize(("query", "text", "named", "source_type"), [
    # an abbreviation in the name, a plural in the query
    ("which organization policies are supported", "pub enum OrgPolicyType {\n    SingleOrg = 3,\n}",
     True, "code"),
    # a word derived from the query's (membership / member)
    ("which roles can a member have", "pub enum MembershipType {\n    Owner = 0,\n}", True, "code"),
    ("what roles can a member have", "enum Role: string\n{\n    case Owner = 'owner';\n}", True, "code"),
    # a Go block names its values by its constants
    ("what statuses can an entry have", "const (\n\tEntryStatusUnread = \"unread\"\n)", True, "code"),
    # a Django field's choices are named by the field and its model
    ("which feeding methods can be recorded",
     "class Feeding(models.Model):\n    method = models.CharField(\n"
     "        choices=[(\"bottle\", \"Bottle\")],\n    )",
     True, "code"),
    ("what kinds of items can a vault hold", "export type Role = 'owner' | 'admin'", False, "code"),
    # ``Type`` says what the name is, not what it is about
    ("what types of reports exist", "pub enum EventType {\n    Login = 1000,\n}", False, "code"),
    # a test is never the enumeration
    ("what roles can a member have", "enum Role: string\n{\n    case Owner = 'owner';\n}", False, "test"),
])
def test_named_enumerations(query: str, text: str, named: bool, source_type: str) -> None:
    result = _result("e", text, 0.5, source_type)
    assert named_enumerations(query, [result]) == ({"e"} if named else set())


@pytest.mark.parametrize(("text", "words"), [
    ("pub enum OrgPolicyType {\n    SingleOrg = 3,\n}", {"org", "policy"}),
    ("const (\n\t// unread\n\tEntryStatusUnread = \"unread\"\n\tLimit = 3\n)",
     {"entry", "status", "unread", "limit"}),
    ("enum :status, { active: 0 }", {"status"}),
    ("enum class Level { LOW, HIGH }", {"level"}),
    ("export const PlanStatus = Object.freeze({\n  Active: 'active',\n})", {"plan", "status"}),
    ("class Status(str, Enum):\n    ACTIVE = 'active'", {"status", "active"}),
    ("STATUSES = (\n    (\"up\", \"Up\"),\n)", {"statuses"}),
    ("class Post\n{\n    const STATUS_DRAFT = 'draft';\n    const STATUS_LIVE = 'live';\n}",
     {"status", "draft", "live"}),
])
def test_enumeration_words(text: str, words: set[str]) -> None:
    assert enumeration_words(_result("e", text, 0.5)) == words


def test_enumeration_words_take_a_symbol_without_its_namespace() -> None:
    result = SearchResult("e", "enum Role: string\n{\n}", {"symbol": "App\\Enums\\Role"}, 0.5, 0.5)
    assert enumeration_words(result) == {"role"}


def test_only_a_question_for_values_looks_deeper() -> None:
    assert search_depth("which roles can a member have", 100) == 100 * enum_prior.ENUM_DEPTH
    assert search_depth("how is a member's role changed", 100) == 100


def test_engine_finds_the_named_enumeration_beyond_the_candidates(make_engine, project: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """30 handlers share the question's words; the enumeration only says ``Role``: BM25
    ranks it after all of them, beyond ``candidate_k``; looking deeper finds it."""
    for n in range(30):
        write(project, f"app/Service/Member{n}.php", f"<?php\nfunction change{n}($member) {{\n"
              f"    // roles a member of an organization can have: check the member role\n"
              f"    return $member->role;\n}}\n")
    write(project, "app/Enums/Role.php", "<?php\nenum Role: string\n{\n    case Owner = 'owner';\n"
          "    case Employee = 'employee';\n}\n")
    engine = make_engine(retrieval={"candidate_k": 20})
    engine.index_directory()
    question = "what roles can a member of an organization have"
    first = [str(engine.search(question, top_k=3, mode="sparse")[0].metadata["path"])]
    monkeypatch.setattr(enum_prior, "ENUM_DEPTH", 1)
    first.append(str(engine.search(question, top_k=3, mode="sparse")[0].metadata["path"]))
    assert first[0] == "app/Enums/Role.php"
    assert first[1].startswith("app/Service/Member")


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
    assert first_path_per_weight(make_engine, project, files, monkeypatch, enum_prior, "NAMED_WEIGHT",
                                 "which two-factor methods can a user set up", (1.0, 0.1)) == [
        "src/api/two_factor.rs", "src/models/two_factor.rs"]


def test_the_model_prior_stands_aside_for_a_named_enumeration() -> None:
    """``app/Enums/Role.php`` is under no models folder; the member model would otherwise
    go above it for "roles of a member"."""
    model = SearchResult("model", "class Member extends Model {}", {
        "path": "app/Models/Member.php", "source_type": "code", "symbol": "App\\Models\\Member"}, 0.5, 0.5,
        rank_score=0.9)
    enum = SearchResult("enum", "enum Role: string\n{\n    case Owner = 'owner';\n}", {
        "path": "app/Enums/Role.php", "source_type": "code", "symbol": "App\\Enums\\Role"}, 0.5, 0.5,
        rank_score=0.3)
    factors = layout_priors("what roles can a member have", [model, enum])
    assert [_product(r, factors) for r in (model, enum)] == [enum_prior.NAMED_WEIGHT, 1.0]
    # without the enumeration named, the model prior weighs as before
    factors = layout_priors("what roles can a member have", [model])
    assert _product(model, factors) == 1.0
    assert layout_priors("how is a member's role changed", [model, enum]) != []
