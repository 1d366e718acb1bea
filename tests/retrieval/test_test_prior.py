"""Tests rank below comparable code unless the query is about tests; ``include_tests =
false`` leaves them out; inline Rust test modules are tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import write
from ragloom.retrieval.test_prior import asks_about_tests, demote_tests, without_tests
from ragloom.types import RetrieverHit, SearchResult


@pytest.mark.parametrize("query", ["how is the transcoder tested", "TranscoderTest", "test_parse",
                                   "which fixtures load users", "where do we mock the mailer",
                                   "phpunit config", "snapshot of the queue screen", "e2e login flow",
                                   "which component snapshots changed", "where is toMatchSnapshot used"])
def test_queries_about_tests(query: str) -> None:
    assert asks_about_tests(query)


@pytest.mark.parametrize("query", ["how is ffmpeg invoked to transcode a song", "latest release notes",
                                   "contest entries", "attestation of builds", "where is the equalizer",
                                   # the application's own snapshots
                                   "which scheduled job picks up pending page snapshots",
                                   "how is an html snapshot of a bookmark made",
                                   "restore a database snapshot"])
def test_queries_not_about_tests(query: str) -> None:
    assert not asks_about_tests(query)


def _result(doc_id: str, score: float, source_type: str, name: bool = False) -> SearchResult:
    result = SearchResult(doc_id, "", {"source_type": source_type}, 0.5, 0.5, rank_score=score)
    if name:
        result.retrievers["name"] = RetrieverHit(1, 1.0)
    return result


def test_demotion_is_soft_and_spares_exact_names() -> None:
    results = [_result("t1", 0.9, "test"), _result("c1", 0.8, "code"), _result("t2", 0.5, "test"),
               _result("c2", 0.4, "code"), _result("t3", 0.95, "test", name=True)]
    order = [r.id for r in demote_tests(results, 0.7)]
    # t1: 0.63 under c1 (0.8), over c2 (0.4); t2: 0.35 under c2; t3 found by name stays
    assert order == ["t3", "c1", "t1", "c2", "t2"]
    assert [r.rank_score for r in demote_tests(results, 0.7)] == [0.95, 0.8, 0.9, 0.4, 0.5]
    assert [r.id for r in demote_tests(results, 1.0)] == ["t1", "c1", "t2", "c2", "t3"]
    negative = [_result("t", -0.1, "test"), _result("c", -0.12, "code")]
    assert [r.id for r in demote_tests(negative, 0.7)] == ["c", "t"]  # -0.143 for the test


def test_without_tests_keeps_the_callers_filters() -> None:
    assert without_tests(None) == {"source_type": {"$ne": "test"}}
    assert without_tests({"language": "php"}) == {"$and": [{"language": "php"},
                                                           {"source_type": {"$ne": "test"}}]}


def _project(project: Path) -> None:
    """A test that matches the query a little better than the code it tests."""
    body = "    def transcode(self, song):\n        return ffmpeg_command(song, bitrate=128)\n"
    write(project, "app/transcoder.py", f"class Transcoder:\n{body}")
    write(project, "tests/test_transcoder.py",
          f"class TranscoderCase:\n{body}        # transcode a song with ffmpeg\n")
    for n in range(8):  # candidates enough that fused scores spread
        write(project, f"app/other{n}.py", f"def helper{n}(x):\n    return x * {n} + song_length(x)\n")


def _first(engine, query: str) -> str:  # type: ignore[no-untyped-def]
    return str(engine.search(query, top_k=3)[0].metadata["path"])


def test_code_ranks_above_a_test_of_comparable_match(make_engine, project: Path) -> None:
    _project(project)
    without_prior = make_engine(retrieval={"test_weight": 1.0})
    without_prior.index_directory()
    assert _first(without_prior, "transcode song with ffmpeg") == "tests/test_transcoder.py"
    without_prior.close()
    engine = make_engine()  # test_weight 0.2
    engine.index_directory()
    assert _first(engine, "transcode song with ffmpeg") == "app/transcoder.py"
    assert _first(engine, "how is transcoding a song with ffmpeg tested") == "tests/test_transcoder.py"
    engine.close()
    no_tests = make_engine(retrieval={"include_tests": False})
    no_tests.index_directory()
    found = no_tests.search("transcode song with ffmpeg tests", top_k=20, filters={"path": "**/*transcoder*"})
    assert [r.metadata["path"] for r in found] == ["app/transcoder.py"]


def test_inline_rust_test_module_is_test(make_engine, project: Path) -> None:
    write(project, "src/lib.rs", "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n\n"
          "#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn it_adds() {\n"
          "        assert_eq!(add(1, 2), 3);\n    }\n}\n")
    engine = make_engine(chunk_size=60, chunk_overlap=0)
    engine.index_directory()
    kinds = {str(r.metadata.get("symbol")): r.metadata["source_type"]
             for r in engine.search("add", top_k=10, mode="sparse")}
    assert kinds.get("add") == "code" and kinds.get("tests::it_adds") == "test"


def test_rust_test_function_beside_the_code_is_test(make_engine, project: Path) -> None:
    write(project, "src/ids.rs", "/// The animal name of an id.\npub fn animal_name(id: u64) -> String {\n"
          "    ANIMALS[(id % 64) as usize].to_string()\n}\n\n#[test]\nfn animal_name_wraps() {\n"
          "    assert_eq!(animal_name(64), animal_name(0));\n}\n")
    engine = make_engine(chunk_size=60, chunk_overlap=0)
    engine.index_directory()
    kinds = {str(r.metadata.get("symbol")): r.metadata["source_type"]
             for r in engine.search("animal name", top_k=10, mode="sparse")}
    assert kinds == {"animal_name": "code", "animal_name_wraps": "test"}

