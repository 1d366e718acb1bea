"""A small indexed project for the inspector tests: hash embedder, a chosen store, a Python
file in several chunks (so a chunk has neighbours), a Markdown guide holding a secret, and
a file outside the project."""

from __future__ import annotations

from pathlib import Path

from helpers import write
from ragloom import RAGEngine, load_config

CONFIG = """
[rag]
embedding.provider = "hash"
relevance_gate = 0.0
chunk_size = 160
chunk_unit = "characters"

[rag.vector_store]
"""

PARSER = '''def parse_config(text):
    """Split each line of a config file at its first equals sign."""
    return dict(line.split("=", 1) for line in text.splitlines())


def load_rockets(path):
    """Rockets launch satellites into orbit; read their manifest."""
    with open(path) as handle:
        return handle.read()


def count_orbits(rockets):
    """How many orbits the rockets flew, summed over the fleet."""
    return sum(rocket.orbits for rocket in rockets)
'''

GUIDE = ("# Guide\n\nThe fleet flies to orbit.\n\n## Keys\n\n"
         "api_key = \"sk-abcdefghijklmnopqrstuvwxyz0123456789ABCD\"\n")


def make_project(tmp_path: Path, store: str = 'provider = "turboquant"') -> Path:
    """The project folder, indexed; ``store`` is the body of the [rag.vector_store] table."""
    root = tmp_path / "project"
    write(root, "ragloom.toml", CONFIG + store + "\n")
    write(root, "src/parser.py", PARSER)
    write(root, "docs/guide.md", GUIDE)
    write(tmp_path, "outside.txt", "not in the project\n")
    with RAGEngine(load_config(root / "ragloom.toml"), root) as engine:
        engine.index_directory()
    return root
