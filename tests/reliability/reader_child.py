"""Run by test_readers.py: search an index read-only, reopening it each time, until told to
stop; report the number of searches done in ``count_file``, problems on stderr (exit 1)."""

import json
import os
import sys
from pathlib import Path

sys.path.insert(0, sys.argv[2])
sys.path.insert(0, str(Path(__file__).resolve().parent))

from trees import tree_config  # noqa: E402

from ragloom import RAGEngine  # noqa: E402

root, count_file, stop_file, slot = sys.argv[1], Path(sys.argv[3]), Path(sys.argv[4]), int(sys.argv[5])
config = tree_config()
if len(sys.argv) > 6:  # another store, e.g. {"provider": "postgres", "url": ...}
    config = config.model_copy(update={"vector_store": type(config.vector_store).model_validate(
        json.loads(sys.argv[6]))})
#: Searches per opening: the engine is reopened often (opening beside a writer is tested
#: too), and most searches run on an open engine (many more searches per round).
PER_OPEN = 4
searches = 0
while not stop_file.exists():
    with RAGEngine(config, root, read_only=True) as engine:
        for _ in range(PER_OPEN):
            results = engine.search(f"handler request respond {searches % 50 + slot}", top_k=10)
            if engine.count() == 0 or not results:
                sys.exit(f"reader {slot}: empty index or no results after {searches} searches")
            seen: dict[str, object] = {}
            for result in results:
                path = result.metadata["path"]
                if seen.setdefault(path, result.metadata["file_hash"]) != result.metadata["file_hash"]:
                    sys.exit(f"reader {slot}: two versions of {path} in one search")
            searches += 1
            temporary = count_file.with_suffix(".tmp")
            temporary.write_text(str(searches))
            os.replace(temporary, count_file)
