"""Run by test_postgres_engine.py as "process B": open the Postgres index from another
base_dir and print JSON. ``search``: results of each query; ``reindex``: index the folder
and report what was embedded."""

import json
import sys

from ragloom import RAGConfig, RAGEngine

mode, base_dir, config_json = sys.argv[1], sys.argv[2], sys.argv[3]
config = RAGConfig.model_validate(json.loads(config_json))
if mode == "search":
    with RAGEngine(config, base_dir, read_only=True) as engine:
        print(json.dumps({query: [[r.id, r.score, r.rank_score] for r in engine.search(query, top_k=5)]
                          for query in sys.argv[4:]}))
else:
    with RAGEngine(config, base_dir) as engine:
        report = engine.index_directory()
        print(json.dumps({"embedded": report.chunks_embedded, "indexed": report.files_indexed,
                          "unchanged": report.files_unchanged, "count": engine.count()}))
