"""Data rows (CSV, TSV, JSON lines) rank below comparable code and documents unless the
question is about data."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import first_path_per_weight
from ragloom.retrieval import data_prior
from ragloom.retrieval.data_prior import asks_about_data, prior_for_data
from ragloom.retrieval.priors import reweigh
from ragloom.types import SearchResult


def _result(doc_id: str, source_type: str, score: float, by_name: bool = False) -> SearchResult:
    retrievers = {"name": {"rank": 1}} if by_name else {}
    return SearchResult(doc_id, "", {"path": f"{doc_id}.x", "source_type": source_type}, 0.5, 0.5,
                        retrievers, rank_score=score)


@pytest.mark.parametrize(("query", "about"), [
    ("which columns does the import CSV have", True),
    ("how are the rows of the percentile table read", True),
    ("where does the sample data come from", True),
    ("how is the hourly rate of a time entry chosen", False),
    ("how is the database migrated", False),  # whole words only
    ("which rowing club", False),
])
def test_asks_about_data(query: str, about: bool) -> None:
    assert asks_about_data(query) is about


def test_data_rows_go_below_comparable_code() -> None:
    results = [_result("row", "data", 0.9), _result("service", "code", 0.6),
               _result("named", "data", 0.8, by_name=True), _result("readme", "docs", 0.3)]
    factors = prior_for_data("how is the hourly rate chosen")
    # 0.8 (found by name, never demoted); 0.6; 0.9 * 0.5 = 0.45; 0.3
    assert [r.id for r in reweigh(results, factors)] == ["named", "service", "row", "readme"]
    assert prior_for_data("which csv rows hold the hourly rates") == []


def test_engine_answers_a_behaviour_question_with_code_before_rows(
        make_engine, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = {"imports/rates.csv": "project,member,rate\nhourly rate chosen,hourly,rate\n",
             "app/billing.py": "def rate_for(entry):\n"
             "    # how the hourly rate is chosen: the member's, else the project's\n"
             "    return entry.member.rate or entry.project.rate\n"}
    assert first_path_per_weight(make_engine, project, files, monkeypatch, data_prior, "DATA_WEIGHT",
                                 "how is the hourly rate chosen", (1.0, 0.5)) == [
        "imports/rates.csv", "app/billing.py"]
