"""Import blocks rank below every other candidate unless the query is about imports."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import write
from ragloom.retrieval.import_prior import asks_about_imports, demote_imports
from ragloom.types import RetrieverHit, SearchResult


@pytest.mark.parametrize("query", ["which files imported the mailer", "where is numpy imported",
                                   "sort the import statements", "what dependencies does the api need",
                                   "modules that require lodash", "Imports of the player"])
def test_queries_about_imports(query: str) -> None:
    assert asks_about_imports(query)


@pytest.mark.parametrize("query", ["from which other time trackers can I import data",
                                   "important settings", "how is the CSV import validated",
                                   "where is the audio equalizer implemented"])
def test_queries_not_about_imports(query: str) -> None:
    assert not asks_about_imports(query)


def _result(doc_id: str, score: float, kind: str, name: bool = False) -> SearchResult:
    result = SearchResult(doc_id, "", {"kind": kind}, 0.5, 0.5, rank_score=score)
    if name:
        result.retrievers["name"] = RetrieverHit(1, 1.0)
    return result


def test_weight_zero_puts_imports_last_and_spares_exact_names() -> None:
    results = [_result("i1", 0.9, "imports"), _result("f1", 0.8, "function"),
               _result("i2", 0.5, "imports", name=True), _result("f2", -0.2, "class")]
    assert [r.id for r in demote_imports(results, 0.0)] == ["f1", "i2", "f2", "i1"]
    assert [r.rank_score for r in demote_imports(results, 0.0)] == [0.8, 0.5, -0.2, 0.9]
    # a soft weight: 0.9 * 0.5 = 0.45 goes under f1 (0.8) and i2 (0.5), over f2
    assert [r.id for r in demote_imports(results, 0.5)] == ["f1", "i2", "i1", "f2"]
    assert [r.id for r in demote_imports(results, 1.0)] == ["i1", "f1", "i2", "f2"]


def test_engine_answers_a_question_in_words_with_code_not_imports(make_engine, project: Path) -> None:
    imports = "".join(f"import {{ Equalizer{n} }} from '@/audio/equalizer{n}'\n" for n in range(6))
    write(project, "src/audioService.ts", imports + "\n" + "".join(
        f"export function step{n} (value: number): number {{\n  return value * {n}\n}}\n\n"
        for n in range(12)))
    write(project, "src/equalizer.ts", "export function applyGain (bands: number[]): number[] {\n"
          "  // the audio equalizer: one gain per band\n  return bands.map(band => band * 2)\n}\n")
    for weight, first in ((1.0, "src/audioService.ts"), (0.0, "src/equalizer.ts")):
        engine = make_engine(chunk_size=80, chunk_overlap=0, retrieval={"import_weight": weight})
        engine.index_directory()
        found = engine.search("audio equalizer", top_k=3, mode="sparse")
        assert found[0].metadata["path"] == first
        if weight == 1.0:
            assert found[0].metadata["kind"] == "imports" and found[0].metadata["end_line"] == 6
        engine.close()
