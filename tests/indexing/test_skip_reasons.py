"""Skipped files summed up by reason, kept for ``ragloom status``; the progress estimate
from the discovered files' sizes."""

from __future__ import annotations

from pathlib import Path

from ragloom.apps.cli_progress import describe_report
from ragloom.indexing.progress import ProgressTracker
from ragloom.indexing.skip_reasons import count_by_reason, load_skipped, reason_kind, save_skipped
from ragloom.types import IndexReport, SkippedFile


def test_reason_kind_drops_what_varies_per_file() -> None:
    assert reason_kind("binary file (NUL bytes)") == "binary file"
    assert reason_kind("larger than max_file_bytes (12 > 10 bytes)") == "larger than max_file_bytes"
    assert reason_kind("chunking failed: ValueError: bad (x)") == "chunking failed"
    assert reason_kind("symlink to a/b.py: ignored by .gitignore") == "symlink to an excluded file"
    assert reason_kind("not UTF-8 text") == "not UTF-8 text"


def test_counts_most_frequent_first_then_by_name() -> None:
    binary, secret = "binary file (NUL bytes)", "secret file (excluded by default)"
    skipped = [SkippedFile("a.png", binary), SkippedFile("b.png", binary),
               SkippedFile("c.txt", "not UTF-8 text"), SkippedFile(".env", secret)]
    assert count_by_reason(skipped) == {"binary file": 2, "not UTF-8 text": 1, "secret file": 1}
    assert list(count_by_reason(skipped)) == ["binary file", "not UTF-8 text", "secret file"]


def test_report_sums_skips_by_reason_and_lists_them_when_verbose() -> None:
    skipped = [SkippedFile(f"img/{n}.png", "binary file (NUL bytes)") for n in range(145)]
    secret = SkippedFile(".env", "secret file (excluded by default)")
    report = IndexReport(files_skipped=146, skipped=[*skipped, secret])
    lines = describe_report(report).splitlines()
    assert lines[1:] == ["  skipped 145: binary file", "  skipped 1: secret file"]
    verbose = describe_report(report, verbose=True).splitlines()
    assert len(verbose) == 147 and verbose[1] == "  skipped img/0.png: binary file (NUL bytes)"


def test_saved_per_root_replacing_that_roots_list(tmp_path: Path) -> None:
    save_skipped(tmp_path, ".", [SkippedFile("a.png", "binary file (NUL bytes)")])
    save_skipped(tmp_path, "docs", [SkippedFile("docs/b.png", "binary file (NUL bytes)")])
    save_skipped(tmp_path, ".", [SkippedFile("c.png", "binary file (NUL bytes)")])
    assert load_skipped(tmp_path) == [SkippedFile("c.png", "binary file (NUL bytes)"),
                                      SkippedFile("docs/b.png", "binary file (NUL bytes)")]
    (tmp_path / "skipped.json").write_text("{not json", encoding="utf-8")
    assert load_skipped(tmp_path) == []


def test_indexing_keeps_the_skips_for_status(make_engine, project: Path) -> None:
    (project / "logo.png").write_bytes(b"\x89PNG\x00\x00")
    (project / "main.py").write_text("def main():\n    return 1\n", encoding="utf-8")
    engine = make_engine()
    engine.index_directory()
    assert engine.status(count_pending=False).skipped == {"binary file": 1}


def test_estimate_counts_bytes_not_files() -> None:
    """22 small test files read first must not make 2,750 big ones look tiny, nor the
    other way round: the estimate scales the chunks per byte read."""
    calls = []
    tracker = ProgressTracker(calls.append, 4, 4, 0, bytes_to_read=1000)
    tracker.file_read(1, 100)  # 1 chunk per 100 bytes: 900 bytes left, 9 chunks more
    assert (calls[-1].chunks_to_embed, calls[-1].estimated) == (10, True)
    tracker.file_read(1, 100)
    assert calls[-1].chunks_to_embed == 10
    tracker.file_read(4, 400)  # 6 chunks per 600 bytes; 400 left
    assert calls[-1].chunks_to_embed == 10
    tracker.file_read(4, 400)
    assert (calls[-1].chunks_to_embed, calls[-1].estimated) == (10, False)
    unknown = ProgressTracker(calls.append, 2, 2, 0)  # sizes unknown: per file
    unknown.file_read(3)
    assert calls[-1].chunks_to_embed == 6
