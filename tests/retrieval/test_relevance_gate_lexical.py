"""The relevance gate's second signal: a result holding most of the query's words passes
a query whose best cosine is a little under the gate; small talk does not."""

from __future__ import annotations

from ragloom.retrieval.relevance_gate import LEXICAL_MARGIN, lexical_evidence, passes_gate
from ragloom.retrieval.tokenize import tokenize
from ragloom.types import RetrieverHit, SearchResult


def _hit(text: str, score: float, path: str = "src/app.ts", **meta: str) -> SearchResult:
    return SearchResult("x", text, {"path": path, **meta}, score, 1 - score)


SHORTCUTS = _hit("export const keyboardShortcuts = { play: 'space', next: 'n' }", 0.348,
                 "resources/assets/js/utils/shortcuts.ts")


def test_evidence_is_the_share_of_query_terms_one_result_holds() -> None:
    terms = tokenize("where are the keyboard shortcuts defined")  # keyboard, shortcut, defin
    assert lexical_evidence(terms, [SHORTCUTS], tokenize) == 2 / 3
    assert lexical_evidence(tokenize("tell me a joke"), [_hit("tell the user", 0.3)], tokenize) == 0.0
    assert lexical_evidence(tokenize("medicine doses table"), [_hit("Schema::create('doses')", 0.3)],
                            tokenize) == 0.0  # one word held is no evidence
    symbol = _hit("return 1", 0.3, symbol="Player.transcodeSong")
    assert lexical_evidence(tokenize("transcode song"), [symbol], tokenize) == 1.0


def test_a_real_question_just_under_the_gate_passes_small_talk_does_not() -> None:
    question = tokenize("where are the keyboard shortcuts defined")
    assert passes_gate([SHORTCUTS], 0.35, question, tokenize)
    weather = tokenize("what is the weather like in madrid in may")  # weather, like, madrid, may
    assert not passes_gate([_hit("weather widget for madrid", 0.24)], 0.35, weather, tokenize)
    assert passes_gate([_hit("weather widget for madrid", 0.26)], 0.35, weather, tokenize)  # half
    assert not passes_gate([_hit("weather widget", 0.3)], 0.35, weather, tokenize)  # one word
    far = _hit(SHORTCUTS.text, 0.35 - LEXICAL_MARGIN - 0.01, str(SHORTCUTS.metadata["path"]))
    assert not passes_gate([far], 0.35, question, tokenize)  # too far under the gate
    assert passes_gate([_hit("unrelated", 0.36)], 0.35, weather, tokenize)
    named = _hit("unrelated", 0.1)
    named.retrievers["name"] = RetrieverHit(1, 1.0)
    assert passes_gate([named], 0.35, weather, tokenize)


def test_a_third_of_a_long_questions_words_is_evidence() -> None:
    question = tokenize("how many failed logins lock a user out and for how long")
    assert len(set(question)) == 6  # mani, fail, login, lock, user, long
    settings = _hit("AXES_FAILURE_LIMIT = 5  # failed login attempts before the lockout", 0.29,
                    "babybuddy/settings/base.py")
    assert lexical_evidence(question, [settings], tokenize) == 2 / 6
    assert passes_gate([settings], 0.35, question, tokenize)
    one_word = _hit("LOGIN_REDIRECT_URL = '/'", 0.29, "babybuddy/settings/base.py")
    assert not passes_gate([one_word], 0.35, question, tokenize)


def test_results_with_no_vector_yet_need_half_the_words() -> None:
    question = tokenize("how many failed logins lock a user out and for how long")
    third = _hit("failed login", 0.0)
    half = _hit("failed login lock", 0.0)
    assert not passes_gate([third], 0.35, question, tokenize, unscored=[third])
    assert passes_gate([half], 0.35, question, tokenize, unscored=[half])
