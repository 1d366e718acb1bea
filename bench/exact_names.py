"""Exact names win: 200 random standard-library function names as queries.

On the two code-search dev sets (bench/code_search.py), it samples function and method
names defined exactly once in the set, searches each name alone, and counts how often the
first result is the chunk defining it; with ``retrieval.exact_names`` on (the default) and
off, hybrid and dense. Target: >= 95% first with the defaults.

    python bench/exact_names.py [--work-dir DIR] [--names 200]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from collections import Counter
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _data import CRANFIELD  # noqa: E402
from retrieval_quality import dev_sets  # noqa: E402

from ragloom.config.tables import RetrievalConfig  # noqa: E402
from ragloom.retrieval.symbols import defined_names  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work-dir", default="/tmp/ragloom-devsets")
    parser.add_argument("--names", type=int, default=200)
    args = parser.parse_args()
    sets = dev_sets(Path(args.work_dir), CRANFIELD)[1:]  # the code sets
    print(f"{'dev set':<18}{'names':>6}{'hybrid+names':>14}{'hybrid':>8}{'dense':>8}")
    for dataset, engine in sets:
        chunks = engine.store.get(engine.store.ids())
        tails = Counter(name for c in chunks for name in defined_names(c.metadata) if "." not in name)
        unique = sorted(name for name, count in tails.items() if count == 1 and not name.startswith("__"))
        sample = random.Random(7).sample(unique, min(args.names, len(unique)))
        row = f"{dataset.name:<18}{len(sample):>6}"
        for exact, hybrid in ((True, True), (False, True), (False, False)):
            engine.config.retrieval = RetrievalConfig(exact_names=exact)
            first = 0
            for name in sample:
                # none (gated) counts as a miss
                hits = engine.search(name, 1, mode="hybrid" if hybrid else "dense")
                first += bool(hits) and name in defined_names(hits[0].metadata)
            row += f"{100 * first / len(sample):>{13 if exact else 7}.1f}%"
        print(row, flush=True)
    for _, engine in sets:
        engine.close()


if __name__ == "__main__":
    main()
