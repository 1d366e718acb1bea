"""The BM25 tokenizer: identifiers, stopwords, stemming; queries and documents alike."""

from __future__ import annotations

from ragloom.retrieval.tokenize import Tokenizer, identifier_parts, tokenize


def test_camel_case_identifier_kept_whole_and_split() -> None:
    plain = Tokenizer(stem=False)
    assert plain("parseHTTPHeader") == ["parsehttpheader", "parse", "http", "header"]
    assert plain("snake_case_name") == ["snake_case_name", "snake", "case", "name"]
    assert plain("getX HTTP2Server") == ["getx", "get", "x", "http2server", "http", "2", "server"]


def test_identifier_parts_leave_non_ascii_whole() -> None:
    assert identifier_parts("naïve_bayesModel") == ["naïve", "bayes", "model"]


def test_stopwords_dropped_and_words_stemmed() -> None:
    assert tokenize("The flows of the studies are running") == ["flow", "studi", "run"]
    assert Tokenizer(stopwords=False, stem=False)("the flows") == ["the", "flows"]


def test_plain_words_are_not_duplicated() -> None:
    assert Tokenizer(stem=False)("parser") == ["parser"]


def test_unicode_words() -> None:
    assert Tokenizer(stem=False)("Straße café 東京") == ["straße", "café", "東京"]


def test_signature_changes_with_settings() -> None:
    assert Tokenizer().signature != Tokenizer(stem=False).signature
