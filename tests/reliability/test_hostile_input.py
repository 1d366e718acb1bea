"""Whatever a real repository holds: indexed sensibly or skipped with a reason, never a
crash, never losing the other files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import hash_config, write
from ragloom import ConfigError, RAGConfig, RAGEngine
from ragloom.chunking.sizing import resolve_chunk_sizing
from ragloom.config import parse_config
from ragloom.indexing import reading


def build_hostile_tree(root: Path) -> None:
    write(root, "good/app.py", "def main():\n    return 'hello'\n")
    write(root, "good/readme.md", "# Readme\nAll good here.\n")
    (root / "bin").mkdir()
    (root / "bin/tool.so").write_bytes(b"\x7fELF\x00\x00\x00binary" * 100)
    (root / "bad/latin1.txt").parent.mkdir(parents=True)
    (root / "bad/latin1.txt").write_bytes("déjà vu ".encode("latin-1") * 200)
    (root / "bad/mostly_utf8.txt").write_bytes(b"fine text " * 300 + b"\xff\xfe")
    (root / "bad/huge_line.txt").write_bytes(b"x" * (50 * 1024 * 1024))
    write(root, "bad/empty.txt", "")
    (root / "bad/nul_late.txt").write_bytes(b"text " * 3000 + b"\x00 tail")
    write(root, "bad/syntax.py", "def broken(:\n    pass\n\nclass Fine:\n    pass\n")
    write(root, "bad/fences.md", "# Title\n```python\nnever closed\n# not a heading\n")
    os.symlink(root / "loop_a", root / "loop_b")
    os.symlink(root / "loop_b", root / "loop_a")
    os.symlink("/etc/hostname", root / "outside_link")
    os.symlink(root / "good", root / "folder_link")
    deep = root / "deep"
    for level in range(300):
        deep = deep / f"d{level}"
    deep.mkdir(parents=True)
    (deep / "bottom.txt").write_text("at the bottom of a deep tree\n")
    bad_name = os.fsencode(root / "names") + b"/caf\xe9.txt"
    os.makedirs(os.fsencode(root / "names"))
    with open(bad_name, "wb") as handle:
        handle.write(b"latin-1 named file\n")
    write(root, "secrets/.env", "API_KEY=abc\n")
    write(root, "secrets/server.pem", "-----BEGIN PRIVATE KEY-----\n")
    write(root, "vanishing.txt", "here now\n")


@pytest.mark.slow
def test_hostile_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "project"
    build_hostile_tree(root)
    real_read = reading.read_file

    def flaky_read(path: Path, *args: object):
        if path.name == "vanishing.txt":
            path.unlink()  # gone between listing and reading
        return real_read(path, *args)

    monkeypatch.setattr("ragloom.indexing.indexer.read_file", flaky_read)
    with RAGEngine(hash_config(), root) as engine:
        report = engine.index_directory()
        indexed = set(engine.get_all_indexed_paths())
        skipped = {s.path: s.reason for s in report.skipped}
        warnings = "\n".join(report.warnings)
        print(f"\n{len(indexed)} files indexed")
        print("skipped:", skipped)
        print("warnings:", warnings)
        assert {"good/app.py", "good/readme.md", "bad/mostly_utf8.txt", "bad/syntax.py",
                "bad/fences.md", "bad/nul_late.txt"} <= indexed
        assert any(p.endswith("bottom.txt") for p in indexed), "deep trees are walked"
        assert skipped["bin/tool.so"] == "binary file (NUL bytes)"
        assert skipped["bad/latin1.txt"] == "not UTF-8 text"
        assert "larger than max_file_bytes" in skipped["bad/huge_line.txt"]
        assert skipped["loop_a"] == skipped["loop_b"] == "broken or looping symlink"
        assert skipped["outside_link"] == "symlink points outside base_dir"
        assert skipped["folder_link"] == "symlink to a folder (not followed)"
        assert skipped["names/caf\\xe9.txt"] == "file name is not valid UTF-8"
        assert "secret" in skipped["secrets/.env"] and "secret" in skipped["secrets/server.pem"]
        assert skipped["vanishing.txt"].startswith("cannot read")
        assert "bad/mostly_utf8.txt: invalid UTF-8 replaced" in warnings
        assert "bad/nul_late.txt: NUL characters removed" in warnings
        syntax = [r for r in engine.search("broken", top_k=20) if r.metadata["path"] == "bad/syntax.py"]
        assert syntax and "parse_error" in syntax[0].metadata
        assert "bad/empty.txt" not in indexed
        assert engine.verify().ok


def test_unreadable_file_is_skipped_not_fatal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, "a.txt", "fine\n")
    write(tmp_path, "locked.txt", "secret\n")
    real_open = Path.open

    def deny(self: Path, *args, **kwargs):
        if self.name == "locked.txt":
            raise PermissionError(13, "Permission denied")
        return real_open(self, *args, **kwargs)

    monkeypatch.setattr(Path, "open", deny)
    with RAGEngine(hash_config(), tmp_path) as engine:
        report = engine.index_directory()
        assert engine.get_all_indexed_paths() == ["a.txt"]
        assert report.skipped[0].path == "locked.txt"
        assert report.skipped[0].reason == "cannot read: Permission denied"


def test_gitignore_is_respected(tmp_path: Path) -> None:
    write(tmp_path, ".gitignore", "build/\n*.log\n/top_only.txt\n!keep.log\n")
    write(tmp_path, "src/.gitignore", "generated_*.py\n")
    for name in ["build/out.txt", "a.log", "keep.log", "top_only.txt", "sub/top_only.txt",
                 "src/generated_x.py", "src/real.py", "notes.txt"]:
        write(tmp_path, name, f"content of {name}\n")
    with RAGEngine(hash_config(), tmp_path) as engine:
        engine.index_directory()
        assert engine.get_all_indexed_paths() == [  # the .gitignore files themselves: noise
            "keep.log", "notes.txt", "src/real.py", "sub/top_only.txt"]
    with RAGEngine(hash_config(respect_gitignore=False, skip_noise=[]), tmp_path) as engine:
        engine.index_directory()
        assert "build/out.txt" in engine.get_all_indexed_paths()


config_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.floats(allow_nan=True)
    | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=12), inner, max_size=3),
    max_leaves=6)
config_keys = st.sampled_from(sorted(RAGConfig.model_fields) + ["vector_store", "chunking",
                                                                 "retrieval", "unknown_key"])


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(config_keys, config_values, max_size=6))
def test_config_fuzzing_gives_a_config_or_a_config_error(data: dict) -> None:
    try:
        config = parse_config(data)
    except ConfigError as exc:
        assert str(exc)
    else:
        assert isinstance(config, RAGConfig)
        try:
            sizing = resolve_chunk_sizing(config, None)
        except ConfigError as exc:
            assert "chunk_" in str(exc)
        else:
            assert 0 <= sizing.overlap < sizing.size
