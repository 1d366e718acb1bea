"""The progress line's figures hold from the first file: the total from the sizes of the
files that will give chunks, the rate (and ETA) from the end of the first embedding batch,
on a fake clock."""

from __future__ import annotations

from pathlib import Path

from helpers import write
from ragloom.indexing.progress import (
    PRIOR_BYTES,
    IndexProgress,
    ProgressTracker,
    expected_bytes,
    prior_density,
)


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


def test_a_first_file_unlike_the_rest_does_not_set_the_total() -> None:
    """A 1 MB run whose first file is 100 bytes giving 5 chunks (a file of tiny tests):
    extrapolated alone, that is 50,000 chunks; pulled towards the window's guess (1,000
    characters: 1 chunk per 550 bytes), 1,841. Once far more than PRIOR_BYTES are read,
    the files read decide: 800 kB more at 1 chunk per 400 bytes leave 467 chunks for the
    last 200 kB (501 at their own rate alone)."""
    alone, calls = [], []
    ProgressTracker(alone.append, 1000, 1000, 0, bytes_to_read=1_000_000).file_read(5, 100)
    tracker = ProgressTracker(calls.append, 1000, 1000, 0, bytes_to_read=1_000_000,
                              window_characters=1000)
    assert calls == [] and tracker.snapshot().chunks_to_embed == 1818  # before any file
    tracker.file_read(5, 100)
    assert alone[-1].chunks_to_embed == 50_000
    assert calls[-1].chunks_to_embed == 1841
    assert prior_density(1000) == 1 / 550 and PRIOR_BYTES == 256 * 1024
    for _ in range(400):
        tracker.file_read(5, 2000)
    assert calls[-1].chunks_to_embed - (5 + 400 * 5) == 467


def test_a_run_estimates_its_chunks_from_the_window_and_the_first_file(make_engine, project: Path) -> None:
    """12 modules of 3 chunks and, read last, 1.3 MB of images and a minified bundle: the
    estimate after the first module is within a factor of two of the 36 chunks the run
    writes (the images and the bundle weigh nothing; 15 kB of modules are far fewer bytes
    than PRIOR_BYTES, so the window's guess leads) and exact once the last module is read."""
    for index in range(12):
        body = "".join(f"    x{n} = {n} * {index}\n" for n in range(20))
        write(project, f"m{index:02d}.py", "".join(f"def f{index}_{i}():\n{body}\n\n" for i in range(3)))
    for index in range(4):
        (project / f"z_{index}.png").write_bytes(b"\x89PNG\0" + bytes(range(256)) * 1000)
    write(project, "z_bundle.js", "var a=" + "[1,2,3]," * 40_000 + "0;\n")
    calls: list[IndexProgress] = []
    report = make_engine().index_directory(progress=calls.append)
    assert report.chunks_added == 36 and len(report.skipped) == 5
    assert calls[0].estimated and 18 <= calls[0].chunks_to_embed <= 72
    after_modules = [call for call in calls if call.files_done == 12][0]
    assert after_modules.chunks_to_embed == 36
