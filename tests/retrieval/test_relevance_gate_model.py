"""The relevance gate with the real local model: small talk and other domains get nothing,
real questions about the corpus keep their results."""

from __future__ import annotations

import os
import sysconfig
from pathlib import Path

import pytest

from helpers import write
from ragloom import RAGConfig, RAGEngine

pytest.importorskip("sentence_transformers", reason="the local extra is not installed")
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory):
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    project = tmp_path_factory.mktemp("gate")
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    for name in ("textwrap.py", "json/decoder.py", "shlex.py"):
        write(project, name, (stdlib / name).read_text(encoding="utf-8"))
    config = RAGConfig(embedding={"provider": "local"}, vector_store={"provider": "memory"})
    with RAGEngine(config, project) as built:
        built.index_directory()
        yield built


@pytest.mark.parametrize("query", ["hello", "thanks, that's all",
                                   "what is the capital of australia",
                                   "best recipe for chocolate chip cookies"])
def test_off_topic_queries_get_nothing(engine: RAGEngine, query: str) -> None:
    assert engine.provider.default_relevance_gate == 0.35
    response = engine.search_detailed(query)
    assert response.results == [] and response.candidates["below_relevance_gate"] > 0


@pytest.mark.parametrize("query,path", [("wrap a paragraph of text to a given line width", "textwrap.py"),
                                        ("split a shell command line into tokens", "shlex.py"),
                                        ("decode a JSON document into Python objects", "json/decoder.py")])
def test_real_questions_keep_their_results(engine: RAGEngine, query: str, path: str) -> None:
    results = engine.search(query)
    assert len(results) == engine.config.top_k
    assert results[0].path == path
