"""Search through the engine: order, top_k, filters, min_score."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from helpers import hash_config, write
from ragloom import RAGEngine
from ragloom.errors import StoreError
from ragloom.stores.memory import MemoryVectorStore


@pytest.fixture
def engine(make_engine, project: Path):
    write(project, "fruit.txt", "apples pears bananas and other fruit\n")
    write(project, "space.md", "# Rockets\nrockets launch satellites into orbit\n")
    write(project, "code/parser.py", "def parse_tokens(tokens):\n    return tree(tokens)\n")
    write(project, "code/lexer.py", "def lex(text):\n    return tokens(text)\n")
    engine = make_engine()
    engine.index_directory()
    return engine


@pytest.mark.parametrize("mode", ["dense", "hybrid"])
def test_best_match_first_and_scores_descend(engine, mode: str) -> None:
    results = engine.search("rockets orbit satellites", top_k=4, mode=mode)
    assert results[0].metadata["path"] == "space.md"
    rank_scores = [r.rank_score for r in results]
    assert rank_scores == sorted(rank_scores, reverse=True)
    assert results[0].retrievers["dense"].rank == 1
    assert all(r.distance == pytest.approx(1 - r.score) for r in results)
    if mode == "dense":
        assert all(r.rank_score == r.score for r in results)
        assert all(set(r.retrievers) == {"dense"} for r in results)
    else:
        assert results[0].retrievers["sparse"].rank == 1
        # score fusion (the default): best of both retrievers -> 1.0 after min-max scaling
        assert results[0].rank_score == pytest.approx(1.0)
    # score is the cosine the dense retriever measured, whatever the mode
    assert results[0].score == pytest.approx(results[0].retrievers["dense"].score)
    query = engine.provider.embed_query("rockets orbit satellites")
    for result in results:
        vector = engine.store.get_vectors([result.id])[0]
        assert result.score == pytest.approx(float(vector @ query), abs=1e-5)


def test_search_order_is_deterministic(engine) -> None:
    first = [(r.id, r.score) for r in engine.search("tokens", top_k=4)]
    second = [(r.id, r.score) for r in engine.search("tokens", top_k=4)]
    assert first == second
    assert {r.metadata["path"] for r in engine.search("tokens", top_k=2)} == {
        "code/parser.py", "code/lexer.py"}


def test_top_k_defaults_to_config(engine) -> None:
    assert len(engine.search("fruit")) == 4  # config top_k 5, only 4 chunks
    assert len(engine.search("fruit", top_k=1)) == 1
    with pytest.raises(ValueError, match="top_k must be at least 1"):
        engine.search("fruit", top_k=0)


def test_filters(engine) -> None:
    results = engine.search("tokens", filters={"path": "code/*.py"})
    assert {r.metadata["path"] for r in results} == {"code/parser.py", "code/lexer.py"}
    markdown = engine.search("rockets", filters={"language": "markdown"})
    assert [r.metadata["path"] for r in markdown] == ["space.md"]
    with pytest.raises(ValueError, match="unknown operator"):
        engine.search("x", filters={"path": {"$like": "a"}})


@pytest.mark.parametrize("mode", ["dense", "hybrid"])
def test_min_score_compares_cosine_similarity(engine, mode: str) -> None:
    everything = engine.search("rockets orbit", top_k=4, mode="dense")
    threshold = (everything[0].score + everything[1].score) / 2
    kept = engine.search("rockets orbit", top_k=4, min_score=threshold, mode=mode)
    assert [r.id for r in kept] == [everything[0].id]
    assert engine.search("rockets orbit", min_score=1.01, mode=mode) == []


def test_blank_query_returns_nothing(engine) -> None:
    assert engine.search("   ") == []


def test_hybrid_carries_both_retrievers_and_finds_rare_identifiers(make_engine, project: Path) -> None:
    for i in range(30):
        write(project, f"mod{i}.py", f"def handler_{i}(request):\n    return respond(request, {i})\n")
    write(project, "special.py", "def frobnicate_widget(request):\n    return respond(request, 0)\n")
    engine = make_engine()
    engine.index_directory()
    results = engine.search("frobnicateWidget", top_k=3)
    assert results[0].metadata["path"] == "special.py"
    assert "sparse" in results[0].retrievers and "dense" in results[0].retrievers
    assert results[0].retrievers["sparse"].rank == 1


def test_search_detailed_reports_stages(engine) -> None:
    response = engine.search_detailed("tokens parse", top_k=2)
    assert response.mode == "hybrid"
    assert {"embed_query", "dense", "sparse", "fuse"} <= set(response.timings_ms)
    assert response.candidates["dense"] == 4 and response.candidates["sparse"] >= 1
    assert len(response.results) == 2
    dense_only = engine.search_detailed("tokens parse", top_k=2, mode="dense")
    assert dense_only.mode == "dense" and "sparse" not in dense_only.timings_ms


def test_mmr_prefers_diverse_results(make_engine, project: Path) -> None:
    write(project, "a1.txt", "rocket engines burn fuel")
    write(project, "a2.txt", "rocket engines burn fuel")
    write(project, "b.txt", "rocket engines launch schedule")
    write(project, "c.txt", "cooking pasta at home")
    write(project, "d.txt", "gardening tips for spring")
    engine = make_engine(retrieval={"collapse_duplicates": False})
    engine.index_directory()
    plain = [r.metadata["path"] for r in engine.search("rocket engines", top_k=2, mode="dense")]
    diverse = [r.metadata["path"] for r in engine.search("rocket engines", top_k=2, mode="dense",
                                                         mmr=True)]
    assert sorted(plain) == ["a1.txt", "a2.txt"]
    assert len(diverse) == 2 and diverse[0] in plain
    assert not {"a1.txt", "a2.txt"} <= set(diverse), "the exact duplicate is passed over"


def test_filters_apply_to_both_retrievers(engine) -> None:
    results = engine.search("rockets satellites tokens", top_k=5, filters={"path": "code/*.py"})
    assert results and all(r.metadata["path"].startswith("code/") for r in results)
    assert all(r.retrievers for r in results)


def test_relevance_gate_returns_nothing_for_an_unrelated_query(make_engine, project: Path) -> None:
    write(project, "space.md", "# Space\nRockets carry satellites into orbit.\n")
    write(project, "garden.md", "# Garden\nTomatoes need sun and water.\n")
    gated = make_engine(relevance_gate=0.5)  # hash embedder: best cosines 0.33 and 0.86 below
    gated.index_directory()
    response = gated.search_detailed("rockets orbit satellites weather", top_k=2)
    assert response.results == [] and response.candidates["below_relevance_gate"] == 2
    assert gated.search("rockets orbit satellites weather", top_k=2, min_score=-1.0) == []
    kept = gated.search("space rockets carry satellites into orbit", top_k=2)
    assert [r.path for r in kept] == ["space.md", "garden.md"]  # a gate, not a per-result cut
    gated.close()
    open_gate = make_engine(relevance_gate=False)
    open_gate.index_directory()
    assert len(open_gate.search("rockets orbit satellites weather", top_k=2)) == 2


def test_a_defined_name_passes_the_relevance_gate(make_engine, project: Path) -> None:
    write(project, "auth.py", "def should_strip_auth(old, new):\n    return old.host != new.host\n")
    engine = make_engine(relevance_gate=0.99)
    engine.index_directory()
    assert [r.metadata["symbol"] for r in engine.search("should_strip_auth", top_k=1)] == [
        "should_strip_auth"]


def test_sparse_mode_is_bm25_alone_with_cosine_scores(engine) -> None:
    response = engine.search_detailed("rockets orbit satellites", top_k=3, mode="sparse")
    assert response.mode == "sparse" and "dense" not in response.candidates
    hits = engine.sparse.search("rockets orbit satellites", 3)
    assert [r.id for r in response.results] == [doc for doc, _ in hits][:len(response.results)]
    assert all(set(r.retrievers) == {"sparse"} for r in response.results)
    bm25 = [score for _, score in hits][:len(response.results)]
    assert [r.rank_score for r in response.results] == pytest.approx(bm25)
    query = engine.provider.embed_query("rockets orbit satellites")
    for result in response.results:
        cosine = float(engine.store.get_vectors([result.id])[0] @ query)
        assert result.score == pytest.approx(cosine, abs=1e-5)


def test_unknown_modes_and_positional_options_are_errors(engine) -> None:
    with pytest.raises(ValueError, match=r"unknown search mode 'bm25'; valid: dense, sparse, hybrid"):
        engine.search("rockets", mode="bm25")
    with pytest.raises(TypeError):
        engine.search("rockets", 3, {"language": "markdown"})  # beyond top_k, options are keywords
    with pytest.raises(TypeError):
        engine.search("rockets", hybrid=False)  # the old spelling of mode="dense" is gone
    assert engine.search_detailed("rockets", mode="dense").mode == "dense"


def test_a_store_without_vectors_serves_dense_search_only(make_engine, project: Path) -> None:
    from ragloom.stores.memory import MemoryVectorStore

    class NoVectors(MemoryVectorStore):
        hands_out_vectors = False

    write(project, "a.txt", "rockets reach orbit\n")
    engine = RAGEngine(hash_config(relevance_gate=0.0), project, vector_store=NoVectors())
    try:
        engine.index_directory()
        assert [r.path for r in engine.search("rockets", mode="dense")] == ["a.txt"]
        for mode, mmr, what in (("hybrid", False, "hybrid search"), ("sparse", False, "sparse search"),
                                ("dense", True, "MMR")):
            with pytest.raises(ValueError, match=f"^{what} needs stored vectors, which the 'memory' "
                                                 f"store does not hand out"):
                engine.search("rockets", mode=mode, mmr=mmr)
    finally:
        engine.close()


@pytest.mark.parametrize("mode", ["dense", "sparse", "hybrid"])
def test_copies_of_one_text_take_one_slot_and_list_every_path(make_engine, project: Path,
                                                              mode: str) -> None:
    licence = "Permission is hereby granted, free of charge, to any person obtaining a copy\n"
    for folder in ("packages/a", "packages/b", "packages/c"):
        write(project, f"{folder}/TERMS.txt", licence)  # not LICENSE: the nested-license rule
    write(project, "notes.txt", "a copy of the permission notes\n")
    write(project, "other.txt", "granted permission to obtain a charge\n")
    for index, topic in enumerate(["rockets reach orbit", "pasta needs salt", "tides follow the moon",
                                   "bees make honey", "trains run late", "owls hunt at night"]):
        write(project, f"filler{index}.txt", topic + "\n")  # so BM25 has rare and common words
    engine = make_engine(relevance_gate=0.0)
    engine.index_directory()
    results = engine.search(licence, top_k=3, mode=mode)
    assert [r.path for r in results][0] in {"packages/a/TERMS.txt", "packages/b/TERMS.txt",
                                           "packages/c/TERMS.txt"}
    assert sorted(r.path for r in results[1:]) == ["notes.txt", "other.txt"]  # slots refilled
    top = results[0]
    assert top.metadata["paths"][0] == top.path
    assert sorted(top.metadata["paths"]) == ["packages/a/TERMS.txt", "packages/b/TERMS.txt",
                                             "packages/c/TERMS.txt"]
    assert len(top.metadata["duplicate_ids"].split(",")) == 2
    assert "paths" not in results[1].metadata
    off = make_engine(relevance_gate=0.0, retrieval={"collapse_duplicates": False})
    off.index_directory()
    copies = [r.path for r in off.search(licence, top_k=3, mode=mode)]
    assert sorted(copies) == ["packages/a/TERMS.txt", "packages/b/TERMS.txt", "packages/c/TERMS.txt"]


class _ServerLikeStore(MemoryVectorStore):
    """Answers a query the way a database server would be waited on: it blocks until BM25
    has started, so a search that does not overlap the two never gets its dense half."""

    queries_elsewhere = True

    def __init__(self) -> None:
        super().__init__()
        self.bm25_started = threading.Event()
        self.hold = False
        self.failure: Exception | None = None
        self.threads: list[threading.Thread] = []

    def query(self, vector, top_k, filters=None):
        self.threads.append(threading.current_thread())
        if self.hold and not self.bm25_started.wait(timeout=30):
            raise AssertionError("BM25 did not run while the dense query waited")
        if self.failure is not None:
            raise self.failure
        return super().query(vector, top_k, filters)


@pytest.fixture
def server_like(project: Path):
    for name, text in (("fruit.txt", "apples pears bananas and other fruit\n"),
                       ("space.md", "# Rockets\nrockets launch satellites into orbit\n"),
                       ("code/lexer.py", "def lex(text):\n    return tokens(text)\n")):
        write(project, name, text)
    store = _ServerLikeStore()
    engine = RAGEngine(hash_config(relevance_gate=0.0), project, vector_store=store)
    engine.index_directory()
    search = engine.sparse.search

    def bm25_then_signal(*args, **kwargs):
        store.bm25_started.set()
        return search(*args, **kwargs)

    engine.sparse.search = bm25_then_signal  # type: ignore[method-assign]
    yield engine, store
    engine.close()


def test_hybrid_runs_bm25_while_a_server_store_answers(server_like) -> None:
    engine, store = server_like
    store.queries_elsewhere = False
    sequential = engine.search_detailed("rockets orbit", top_k=3, mode="hybrid")
    assert store.threads == [threading.current_thread()]
    store.queries_elsewhere, store.hold = True, True
    overlapped = engine.search_detailed("rockets orbit", top_k=3, mode="hybrid")
    assert store.threads[1] is not threading.current_thread()
    assert [(r.id, r.score, r.rank_score) for r in overlapped.results] == [
        (r.id, r.score, r.rank_score) for r in sequential.results]
    assert overlapped.results[0].path == "space.md"
    assert set(overlapped.timings_ms) >= {"dense", "sparse", "fuse"}
    assert overlapped.candidates == sequential.candidates
    # dense mode has nothing to overlap: the caller's thread asks the store
    store.hold = False
    engine.search("rockets", mode="dense")
    assert store.threads[-1] is threading.current_thread()


def test_an_overlapped_dense_query_raises_its_own_error(server_like) -> None:
    engine, store = server_like
    store.failure = StoreError("Postgres went away")
    with pytest.raises(StoreError, match="^Postgres went away$"):
        engine.search("rockets orbit", mode="hybrid")
    store.failure = None
    assert engine.search("rockets orbit", mode="hybrid", top_k=1)[0].path == "space.md"
