"""ragloom eval on a BEIR folder: documents go in through add_documents under their ids
(a long one is chunked), and a document ranks where its best chunk does, once."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import hash_config
from ragloom import RAGEngine
from ragloom.apps.eval import Dataset, evaluate, index_dataset, load_beir, ranked_documents, run_eval

LONG = " ".join(f"Section {n} describes gliders, thermals and sailplane wings." for n in range(40))


def beir_folder(root: Path) -> Path:
    corpus = [{"_id": "glide", "title": "Gliding", "text": LONG},
              {"_id": "fruit", "title": "Orchards", "text": "Apples and pears ripen in autumn."},
              {"_id": "rocket", "title": "Rockets", "text": "Rockets carry satellites to orbit."}]
    (root / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in corpus), encoding="utf-8")
    queries = [{"_id": "q1", "text": "sailplane wings thermals"}, {"_id": "q2", "text": "apples pears"}]
    (root / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in queries),
                                        encoding="utf-8")
    (root / "qrels.tsv").write_text("query-id\tcorpus-id\tscore\nq1\tglide\t1\nq2\tfruit\t2\n",
                                    encoding="utf-8")
    return root


def test_documents_rank_once_each_under_their_ids(tmp_path: Path) -> None:
    dataset = load_beir(beir_folder(tmp_path))
    config = hash_config(relevance_gate=0.0, chunk_unit="characters", chunk_size=300, chunk_overlap=0)
    with RAGEngine(config, tmp_path / "work") as engine:
        index_dataset(engine, dataset)
        assert engine.count() > 3  # the long document is several chunks
        assert engine.add_documents(list(dataset.corpus), list(dataset.corpus.values())) \
            .chunks_embedded == 0
        scores = {s.mode: s for s in evaluate(engine, dataset, modes=["sparse", "hybrid"], k=3)}
    assert scores["sparse"].ndcg == scores["sparse"].mrr == scores["sparse"].recall == 1.0
    assert scores["hybrid"].recall == 1.0


def test_run_eval_indexes_in_a_work_dir_it_can_reuse(tmp_path: Path) -> None:
    folder = beir_folder(tmp_path)
    config = hash_config(relevance_gate=0.0)
    first = run_eval(config, folder, modes=["sparse"], k=3, work_dir=tmp_path / "work")
    again = run_eval(config, folder, modes=["sparse"], k=3, work_dir=tmp_path / "work")
    assert first[0].ndcg == again[0].ndcg == 1.0 and first[0].queries == 2


def test_file_chunks_rank_under_their_chunk_ids(tmp_path: Path) -> None:
    """A dev set built over indexed files judges chunk ids (file chunks have no source id)."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "wings.md").write_text("# Wings\n\nSailplane wings ride thermals.\n", encoding="utf-8")
    (project / "fruit.md").write_text("# Fruit\n\nApples and pears ripen in autumn.\n",
                                      encoding="utf-8")
    with RAGEngine(hash_config(relevance_gate=0.0), project) as engine:
        engine.index_directory()
        ids = {r.metadata["path"]: r.id for r in engine.search("apples pears", 5, mode="sparse")}
        fruit = ids["fruit.md"]
        dataset = Dataset("files", {fruit: "Apples and pears"}, {"q": "apples pears ripen"},
                          {"q": {fruit: 1}})
        scores = evaluate(engine, dataset, modes=["sparse"], k=3)
    assert scores[0].ndcg == scores[0].mrr == 1.0


def test_a_merged_result_ranks_every_chunk_it_holds(tmp_path: Path) -> None:
    """Parts merged into one result rank right after it: its text holds theirs."""
    project = tmp_path / "project"
    project.mkdir()
    body = "".join(f"    glider_{i} = wings[{i}] * {i}  # sailplane thermals\n" for i in range(30))
    (project / "wings.py").write_text(f"def lift(wings):\n{body}    return wings\n", encoding="utf-8")
    (project / "fruit.md").write_text("# Fruit\n\nApples and pears ripen in autumn.\n",
                                      encoding="utf-8")
    config = hash_config(relevance_gate=0.0, chunk_unit="characters", chunk_size=500, chunk_overlap=0)
    with RAGEngine(config, project) as engine:
        engine.index_directory()
        merged = engine.search("sailplane thermals glider", 3, mode="sparse")[0]
        held = merged.metadata["merged_ids"].split(",")
        assert len(held) >= 2 and held[0] == merged.id
        assert ranked_documents(engine, [merged]) == held
        dataset = Dataset("files", {}, {"q": "sailplane thermals glider"}, {"q": {held[-1]: 1}})
        scores = evaluate(engine, dataset, modes=["sparse"], k=10)
    assert scores[0].recall == 1.0 and scores[0].mrr == 1.0 / len(held)
