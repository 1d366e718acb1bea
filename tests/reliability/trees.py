"""A tree of Python modules that tests edit between indexing rounds."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from pathlib import Path

from helpers import hash_config, write
from ragloom import RAGConfig, RAGEngine


def mutate(root: Path, rng: random.Random, versions: dict[str, set[str]], step: int) -> None:
    """Edit, add or delete a file, remembering every content hash each path ever had."""
    name = f"pkg/module_{rng.randrange(40)}.py"
    path = root / name
    if path.exists() and rng.random() < 0.15:
        path.unlink()
        return
    body = "".join(f"def handler_{step}_{i}(request):\n    return respond(request, {i} + {step})\n\n"
                   for i in range(rng.randrange(1, 30)))
    write(root, name, body)
    versions.setdefault(name, set()).add(hashlib.sha256(body.encode()).hexdigest()[:16])


def tree_config() -> RAGConfig:
    """The config the tree's tests index it with (small chunks: many per file)."""
    return hash_config(chunk_size=300, chunk_overlap=50, vector_store={"provider": "turboquant"})


def initial_tree(root: Path, seed: int) -> tuple[random.Random, dict[str, set[str]]]:
    """Sixty edits from an empty ``root``; the generator and versions to go on with."""
    rng = random.Random(seed)
    versions: dict[str, set[str]] = {}
    for step in range(60):
        mutate(root, rng, versions, step)
    return rng, versions


def reindex_rounds(engine: RAGEngine, root: Path, rng: random.Random, versions: dict[str, set[str]],
                   rounds: int, after_round: Callable[[int], None]) -> int:
    """``rounds`` times: edit five files, re-index, then ``after_round(round_number)``
    (which waits for the searchers). Returns the number of file changes."""
    step = 60
    for round_number in range(1, rounds + 1):
        for _ in range(5):
            mutate(root, rng, versions, step)
            step += 1
        engine.index_directory()
        after_round(round_number)
    return step - 60
