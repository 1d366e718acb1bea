"""Every store takes the same hostile texts: each file is indexed or skipped with a reason,
the run goes on, and BM25 still finds a token longer than any index row (was: Postgres
aborted the whole run on an SVG's 5,623-character base64 run)."""

from __future__ import annotations

import random
import string
from pathlib import Path
from typing import Any

import pytest

from helpers import hash_config, write
from ragloom import RAGEngine
from ragloom.retrieval.tokenize import MAX_TOKEN, tokenize

STORES = ["memory", "turboquant", "chroma", "postgres"]

_RNG = random.Random(7)
#: One \w+ run as long as the SVG's (base64 without '+' and '/').
BASE64_RUN = "".join(_RNG.choice(string.ascii_letters + string.digits) for _ in range(5623))
LONG_WORD = "漢" * 950  # 2,850 bytes: more than a btree row, less than a chunk
#: A path longer than a Postgres btree row (its source and path indexes): Postgres cannot
#: hold it, the other stores can.
#: Random letters: Postgres compresses a repetitive index row below the limit.
DEEP = "/".join("".join(_RNG.choice(string.ascii_lowercase) for _ in range(240))
                for _ in range(12)) + "/deep.md"


def hostile_tree(root: Path) -> dict[str, str]:
    """Files of hostile texts; returns the paths expected to be searchable by BM25 (word)."""
    write(root, "good/app.py", "def greet(name):\n    return 'hello ' + name\n")
    write(root, "art/logo.svg", f'<svg xmlns="http://www.w3.org/2000/svg"><image href="data:'
                                f'image/png;base64,{BASE64_RUN}"/><title>company logo</title></svg>\n')
    write(root, "notes/long.txt", f"start {LONG_WORD} end\n")
    (root / "notes/nul.txt").write_bytes(b"before \x00 after nulmarker\n")
    (root / "notes/surrogate.txt").write_bytes(b"lone \xed\xa0\x80 surrogate marker\n")
    write(root, "notes/control.txt", "ctrl \x01\x02\x1b[31m\x7f bell\x07 controlmarker\n")
    # one 89 KB line: 111 chunks, more than the indexer's first window (64) holds
    write(root, "notes/huge_line.txt", " ".join(f"word{i}" for i in range(10_000)) + "\n")
    write(root, "code/long_name.py", f"def {'f' * 3000}():\n    return 1\n\n\ndef short():\n"
                                     "    return 2\n")
    write(root, DEEP, "# Deep\nA very deep folder holds deepmarker.\n")
    return {"good/app.py": "greet hello", "art/logo.svg": BASE64_RUN,
            "notes/long.txt": LONG_WORD, "notes/control.txt": "controlmarker"}


def store_config(store: str, request: pytest.FixtureRequest) -> Any:
    """The store's config with the noise rules off: the texts are hostile on purpose (an
    SVG holding a base64 run is what the ``svg-image`` rule would skip)."""
    if store == "chroma":
        pytest.importorskip("chromadb")
    if store == "postgres":
        server = request.getfixturevalue("postgres_server")
        return hash_config(skip_noise=[], vector_store={
            "provider": "postgres", "url": server.url,
            "postgres": {"schema": request.getfixturevalue("postgres_schema")}})
    return hash_config(skip_noise=[], vector_store={"provider": store})


def test_long_tokens_are_bounded_the_same_on_both_sides() -> None:
    tokens = tokenize(f"x {BASE64_RUN} y")
    assert max(len(token) for token in tokens) <= MAX_TOKEN
    assert tokens[0] == "x" and tokens[-1] == "y" and tokens[1:-1] == tokenize(BASE64_RUN)
    assert tokenize(BASE64_RUN + "a") != tokenize(BASE64_RUN)  # the hash keeps them apart
    assert tokenize("a" * MAX_TOKEN) == ["a" * MAX_TOKEN]  # up to the bound: kept whole


@pytest.mark.parametrize("store", STORES)
def test_every_store_indexes_or_skips_hostile_texts_and_goes_on(
        store: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    root = tmp_path / "project"
    searchable = hostile_tree(root)
    with RAGEngine(store_config(store, request), root) as engine:
        report = engine.index_directory()
        skipped = {item.path: item.reason for item in report.skipped}
        assert all(reason for reason in skipped.values()), skipped
        assert report.files_indexed + len(skipped) == 9, (report.files_indexed, skipped)
        assert not set(searchable) & set(skipped), skipped
        for path, query in searchable.items():
            hits = engine.search(query, top_k=3, mode="sparse")
            assert hits and hits[0].metadata["path"] == path, (path, [h.metadata for h in hits])
        if store == "postgres":  # a path longer than a btree row: skipped with the reason
            assert "index row size" in skipped[DEEP] and "postgres store" in skipped[DEEP]
        else:
            assert engine.search("deepmarker", top_k=1, mode="sparse")[0].metadata["path"] == DEEP
    if store == "memory":
        return  # nothing persists
    with RAGEngine(store_config(store, request), root) as engine:  # a second run: no surprise
        again = engine.index_directory()
        assert again.files_indexed == 0 and {item.path for item in again.skipped} == set(skipped)
