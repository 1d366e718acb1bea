"""Flipped bytes inside the data of the memory-mapped segment files (TurboQuant store and
BM25 index) are found: at open for the arrays opening reads whole, by ``verify()`` /
``ragloom status --check`` for every array; the error names the file, the array and the
rebuild, and a failing open writes nothing. Offsets come from each file's header."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from helpers import hash_config, write
from ragloom import CorruptIndexError, IndexMismatchError, RAGEngine
from ragloom.arrayfile import ArrayFile, write_arrays
from ragloom.quant.turboquant import CODE_PARTS
from ragloom.retrieval.bm25_segment import READ_AT_OPEN

TURBOQUANT = {"provider": "turboquant"}
#: Arrays a TurboQuant store reads whole when it opens (the rest are mapped).
STORE_READ_AT_OPEN = {*CODE_PARTS, "id_hash", "dead"}


def config():  # type: ignore[no-untyped-def]
    return hash_config(vector_store=TURBOQUANT)


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real project indexed twice (two segments in each folder, deletions included)."""
    root = tmp_path_factory.mktemp("pristine")
    for index in range(8):
        write(root, f"src/module_{index}.py",
              f"def function_{index}(value):\n    '''Doubles value number {index}.'''\n"
              f"    return value * {index}\n")
    write(root, "docs/guide.md", "# Guide\n\nHow to use the functions.\n\n## More\n\nDetails.\n")
    with RAGEngine(config(), root) as engine:
        engine.index_directory()
        write(root, "src/module_0.py", "def function_0(value):\n    return 'second version'\n")
        (root / "src/module_1.py").unlink()
        engine.index_directory()
    return root


def segment_files(project: Path) -> list[Path]:
    files = sorted((project / ".ragloom").glob("*/*.seg"))
    assert {file.parent.name for file in files} == {"turboquant_ragloom", "bm25_turboquant_ragloom.segments"}
    return files


def snapshot(project: Path) -> dict[str, bytes]:
    """Every file under .ragloom but the lock files (whose bytes SQLite's locking may touch)."""
    return {str(path.relative_to(project)): path.read_bytes()
            for path in sorted((project / ".ragloom").rglob("*"))
            if path.is_file() and not path.name.startswith("lock")}


def flip(path: Path, name: str) -> int:
    """Flip one byte in the middle of array ``name``'s data (found from the header)."""
    start, stop = ArrayFile(path).span(name)
    assert stop > start, f"array {name!r} of {path} holds no bytes"
    offset = (start + stop) // 2
    data = bytearray(path.read_bytes())
    data[offset] ^= 0x01
    path.write_bytes(bytes(data))
    return offset


def test_an_untouched_index_passes_every_check(pristine: Path) -> None:
    for file in segment_files(pristine):
        ArrayFile(file).verify()
    with RAGEngine(config(), pristine, read_only=True) as reader:
        report = reader.verify()
        assert report.ok, report.problems
        assert report.chunks == reader.count() > 0


def test_a_flipped_byte_in_any_array_is_named_with_its_file_and_the_rebuild(
        pristine: Path, tmp_path: Path) -> None:
    checked = 0
    covered: set[tuple[str, str]] = set()
    for original in segment_files(pristine):
        names = [name for name in ArrayFile(original).names()
                 if ArrayFile(original).span(name)[0] < ArrayFile(original).span(name)[1]]
        for name in names:
            project = tmp_path / f"case{checked}"
            shutil.copytree(pristine, project)
            target = project / original.relative_to(pristine)
            flip(target, name)
            before = snapshot(project)
            expected = (rf"{target}.*array '{name}' does not match its checksum.*"
                        r"'ragloom index --rebuild'")
            in_store = target.parent.name == "turboquant_ragloom"
            if in_store and name in STORE_READ_AT_OPEN:  # read whole at open: refused at once
                for read_only in (True, False):
                    with pytest.raises(CorruptIndexError, match=expected):
                        RAGEngine(config(), project, read_only=read_only)
            else:  # mapped only: opening does not read it, the explicit check does
                with RAGEngine(config(), project, read_only=True) as reader:
                    report = reader.verify()
                assert not report.ok, (target, name)
                assert any(str(target) in problem and repr(name) in problem and "--rebuild" in problem
                           for problem in report.problems), report.problems
            assert snapshot(project) == before, f"opening wrote to the index ({target.name}, {name})"
            shutil.rmtree(project)
            checked += 1
            covered.add((target.parent.name.split("_")[0], name))
    # every non-empty array of every segment of both folders: codes, ids, texts, postings, ...
    assert {("turboquant", name) for name in ("planes", "id_hash", "id_blob", "id_off", "text_blob",
                                               "text_off", "meta_blob", "meta_off", "dead")} \
        | {("bm25", name) for name in ("doc_len", "post_rows", "post_tfs", "post_ptr", "term_blob",
                                       "meta_blob", "id_blob", "symbols_hash", "dead_seg")} <= covered


def test_a_damaged_bm25_segment_read_at_open_is_rebuilt_from_the_store_and_reported(
        pristine: Path, tmp_path: Path) -> None:
    project = tmp_path / "project"
    shutil.copytree(pristine, project)
    target = sorted((project / ".ragloom/bm25_turboquant_ragloom.segments").glob("*.seg"))[0]
    assert "doc_len" in READ_AT_OPEN and len(ArrayFile(target)["doc_len"])
    flip(target, "doc_len")
    with RAGEngine(config(), project, read_only=True) as reader:
        assert reader.search("Doubles value number 3", top_k=1, mode="sparse")[0].metadata["path"] \
            == "src/module_3.py"  # the reader rebuilt BM25 from the store in memory
        problems = reader.verify().problems
    assert any(str(target) in p and "'doc_len'" in p for p in problems), problems
    with RAGEngine(config(), project) as writer:  # a writer writes BM25 again
        writer.index_directory()
        assert writer.verify().ok
    with RAGEngine(config(), project, read_only=True) as reader:
        assert reader.verify().ok


def test_status_check_names_the_damaged_file_and_exits_non_zero(pristine: Path, tmp_path: Path) -> None:
    project = tmp_path / "project"
    shutil.copytree(pristine, project)
    write(project, "ragloom.toml", "[rag]\nembedding.provider = 'hash'\n[rag.vector_store]\n"
                                   "provider = 'turboquant'\n")
    clean = ragloom(project, "status", "--check")
    assert clean.returncode == 0 and "check: ok" in clean.stdout, clean.stdout + clean.stderr
    target = next(file for file in sorted((project / ".ragloom/turboquant_ragloom").glob("*.seg"))
                  if ArrayFile(file).span("text_blob")[1] > ArrayFile(file).span("text_blob")[0])
    flip(target, "text_blob")
    damaged = ragloom(project, "status", "--check")
    assert damaged.returncode != 0
    assert "check: FAILED" in damaged.stdout and str(target) in damaged.stdout
    assert "'text_blob'" in damaged.stdout and "ragloom index --rebuild" in damaged.stdout, damaged.stdout
    rebuilt = ragloom(project, "index", "--rebuild")
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert ragloom(project, "status", "--check").returncode == 0


def ragloom(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = shutil.which("ragloom")
    argv = [command] if command else [sys.executable, "-m", "ragloom"]
    return subprocess.run([*argv, *args], cwd=project, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONWARNINGS": "ignore"})


def test_every_byte_of_an_array_file_is_covered(tmp_path: Path) -> None:
    """A flip anywhere (header, header checksum, any array's data) is found by open or verify;
    the alignment padding, which no reader uses, is the only place it may go unnoticed."""
    path = tmp_path / "arrays.seg"
    write_arrays(path, {"a": np.arange(5, dtype=np.int32), "b": np.frombuffer(b"texts", np.uint8),
                        "empty": np.zeros(0, np.int64)}, {"rows": 5})
    pristine = path.read_bytes()
    data_bytes = {offset for name in ("a", "b") for offset in range(*ArrayFile(path).span(name))}
    header_length = int.from_bytes(pristine[8:16], "little")
    covered = set(range(16 + header_length + 4)) | data_bytes
    for offset in range(len(pristine)):
        damaged = bytearray(pristine)
        damaged[offset] ^= 0x80
        path.write_bytes(bytes(damaged))
        try:
            ArrayFile(path).verify()
        except CorruptIndexError as exc:
            assert str(path) in str(exc) and "--rebuild" in str(exc)
            found = True
        else:
            found = False
        assert found == (offset in covered), offset


def test_files_written_before_checksums_are_refused_with_the_way_out(tmp_path: Path,
                                                                     pristine: Path) -> None:
    path = tmp_path / "old.seg"
    path.write_bytes(b"RLARRAY1" + (2).to_bytes(8, "little") + b"{}" + b"\0" * 46)
    with pytest.raises(CorruptIndexError, match=r"older ragloom .*'ragloom index --rebuild'"):
        ArrayFile(path)
    # a store listing segments of the format before checksums: a reader says what to run
    project = tmp_path / "project"
    shutil.copytree(pristine, project)
    listing = project / ".ragloom/turboquant_ragloom/segments.json"
    saved = json.loads(listing.read_text())
    saved["settings"]["segment_format"] = 3
    listing.write_text(json.dumps(saved))
    with pytest.raises(IndexMismatchError, match=r"older ragloom \(segment format 3, now 4\).*"
                                                 r"run 'ragloom index' once"):
        RAGEngine(config(), project, read_only=True)
    with RAGEngine(config(), project) as writer:  # a writer rebuilds it from the sources
        writer.index_directory()
        assert writer.count() > 0 and writer.verify().ok


@pytest.mark.parametrize("array", ["text_blob", "meta_blob"])
def test_a_search_that_reads_damaged_mapped_bytes_names_the_file(pristine: Path, tmp_path: Path,
                                                                  array: str) -> None:
    """Opening does not read the mapped arrays; the search that decodes a damaged one
    checks the files and raises CorruptIndexError naming the file, not a decode error."""
    project = tmp_path / "project"
    shutil.copytree(pristine, project)
    target = sorted((project / ".ragloom/turboquant_ragloom").glob("*.seg"))[0]
    start, stop = ArrayFile(target).span(array)
    data = bytearray(target.read_bytes())
    data[start] ^= 0x80  # the first row's first character: ASCII becomes a bad UTF-8 lead byte
    target.write_bytes(bytes(data))
    with RAGEngine(config(), project, read_only=True) as reader:
        with pytest.raises(CorruptIndexError, match=rf"{target}.*'{array}' does not match its checksum"
                                                     r".*'ragloom index --rebuild'"):
            for mode in ("dense", "sparse", "hybrid"):
                reader.search("Doubles value number function guide details", top_k=20, mode=mode)
