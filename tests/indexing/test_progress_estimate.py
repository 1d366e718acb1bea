"""The progress line's figures hold from the first file: the total from the sizes of the
files that will give chunks, the rate (and ETA) from the end of the first embedding batch,
on a fake clock."""

from __future__ import annotations

from pathlib import Path

from helpers import write
from ragloom.indexing.progress import IndexProgress, ProgressTracker, expected_bytes


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_eta_is_the_model_rate_without_its_loading_nor_its_waits() -> None:
    """Files read from t=0; the model starts at t=2, loads until its first batch of 32 at
    t=10, does a second at t=11, waits for the next window until t=30 and does one at t=31:
    its rate is 64 chunks in 2 s, not 96 in 31 s, and the ETA the 224 chunks left at 32/s."""
    clock, calls = FakeClock(), []
    tracker = ProgressTracker(calls.append, 10, 10, 0, bytes_to_read=10_000, clock=clock)
    for _ in range(10):
        tracker.file_read(32, 1000)
    assert calls[-1].chunks_to_embed == 320 and calls[-1].eta_seconds is None
    for start, done in ((2.0, (10.0, 11.0)), (30.0, (31.0,))):
        clock.now = start
        tracker.model.start()
        for clock.now in done:
            tracker.model.batch(32)
            tracker.batch_embedded(32)
        if start == 2.0:
            assert calls[-2].eta_seconds is None  # the first batch alone: no rate yet
    assert (calls[-1].chunks_per_second, calls[-1].eta_seconds) == (32.0, 7.0)
    clock.now = 40.0
    tracker.model.start()
    for _ in range(7):
        tracker.model.batch(32)
        tracker.batch_embedded(32)
    last = calls[-1]
    assert (last.chunks_embedded, last.eta_seconds, last.finished) == (320, 0.0, True)


def test_the_first_figures_leave_out_files_that_give_no_chunks(tmp_path: Path) -> None:
    binary = tmp_path / "logo.png"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\0\0" + bytes(range(256)) * 400)
    bundle = write(tmp_path, "public/app.js", "var a=" + "[1,2,3]," * 5000 + "0;\n")
    prose = write(tmp_path, "notes.md", "A long unwrapped paragraph. " * 400 + "\n")
    code = write(tmp_path, "app.py", "def f(x):\n    return x\n" * 300)
    assert expected_bytes(binary, "logo.png", binary.stat().st_size) == 0
    assert expected_bytes(bundle, "public/app.js", bundle.stat().st_size) == 0
    assert expected_bytes(prose, "notes.md", prose.stat().st_size) == prose.stat().st_size
    assert expected_bytes(code, "app.py", code.stat().st_size) == code.stat().st_size
    assert expected_bytes(tmp_path / "gone.py", "gone.py", 10) == 0
    pdf = tmp_path / "report.pdf"  # binary streams, but its reader finds text in them
    pdf.write_bytes(b"%PDF-1.4\n\0\0" + bytes(range(256)) * 10)
    assert expected_bytes(pdf, "report.pdf", pdf.stat().st_size) == pdf.stat().st_size


def test_a_run_estimates_its_chunks_from_the_first_file(make_engine, project: Path) -> None:
    """12 modules of 3 chunks and, read last, 1.3 MB of images and a minified bundle: the
    estimate after the first module is the 36 chunks the run writes."""
    for index in range(12):
        body = "".join(f"    x{n} = {n} * {index}\n" for n in range(20))
        write(project, f"m{index:02d}.py", "".join(f"def f{index}_{i}():\n{body}\n\n" for i in range(3)))
    for index in range(4):
        (project / f"z_{index}.png").write_bytes(b"\x89PNG\0" + bytes(range(256)) * 1000)
    write(project, "z_bundle.js", "var a=" + "[1,2,3]," * 40_000 + "0;\n")
    calls: list[IndexProgress] = []
    report = make_engine().index_directory(progress=calls.append)
    assert report.chunks_added == 36 and len(report.skipped) == 5
    assert calls[0].estimated and calls[0].chunks_to_embed == 36
