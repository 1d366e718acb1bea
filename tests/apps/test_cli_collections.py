"""``ragloom collections`` lists and drops collections; ``ragloom index`` past a
[rag.limits] limit fails naming it and writes nothing; ``status`` shows usage."""

from __future__ import annotations

import json
from pathlib import Path

from test_cli import ragloom

from helpers import write

CONFIG = """
[rag]
embedding.provider = "hash"

[rag.vector_store]
provider = "turboquant"
collection_name = "{name}"

[rag.limits]
max_files = 2
"""


def test_collections_list_and_drop_with_confirmation(tmp_path: Path) -> None:
    write(tmp_path, "a.md", "# A\nrockets and orbits\n")
    for name in ("alpha", "beta"):
        write(tmp_path, "ragloom.toml", CONFIG.format(name=name))
        assert ragloom(tmp_path, "index").returncode == 0
    listed = ragloom(tmp_path, "collections", "--json")
    assert listed.returncode == 0, listed.stderr
    rows = json.loads(listed.stdout)
    assert [(r["name"], r["embedding_model"], r["chunks"], r["files"]) for r in rows] == [
        ("alpha", "hash/feature-hash-v1", 1, 1), ("beta", "hash/feature-hash-v1", 1, 1)]
    refused = ragloom(tmp_path, "collections", "drop", "alpha")
    assert refused.returncode == 2
    assert "drop collection 'alpha' (1 chunks" in refused.stderr and "add --yes" in refused.stderr
    dropped = ragloom(tmp_path, "collections", "drop", "alpha", "--yes")
    assert dropped.returncode == 0, dropped.stderr
    assert dropped.stdout.startswith("dropped turboquant collection 'alpha'\n  removed ")
    table = ragloom(tmp_path, "collections").stdout.splitlines()
    assert table[0].split() == ["name", "model", "chunks", "files", "size", "where"]
    assert [line.split()[:5] for line in table[1:]] == [["beta", "hash/feature-hash-v1", "(384-d)", "1", "1"]]
    missing = ragloom(tmp_path, "collections", "drop", "alpha", "--yes")
    assert missing.returncode == 1
    assert "no turboquant collection 'alpha'" in missing.stderr and "beta" in missing.stderr


def test_index_past_a_limit_fails_and_status_shows_usage(tmp_path: Path) -> None:
    write(tmp_path, "ragloom.toml", CONFIG.format(name="docs"))
    write(tmp_path, "a.md", "# A\nrockets\n")
    write(tmp_path, "b.md", "# B\ngliders\n")
    assert ragloom(tmp_path, "index").returncode == 0
    write(tmp_path, "c.md", "# C\nballoons\n")
    failed = ragloom(tmp_path, "index")
    assert failed.returncode == 1
    assert ("max_files of collection 'docs' would be exceeded: 2 now + 1 from this call = 3 > "
            "limit 2; nothing of this call was written") in failed.stderr
    status = ragloom(tmp_path, "status")
    assert "limits:\n  max_files: 2 of 2 (100%)" in status.stdout
    assert json.loads(ragloom(tmp_path, "status", "--json").stdout)["limits"] == {
        "max_files": {"used": 2, "limit": 2}}
