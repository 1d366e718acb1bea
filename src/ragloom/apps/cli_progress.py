"""How the CLI shows an indexing run: a tqdm bar on a terminal, else a line every few
seconds (a log stays readable), and the closing report."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from ragloom.indexing.progress import IndexProgress
from ragloom.indexing.skip_reasons import count_by_reason, load_skipped
from ragloom.prompt import one_line
from ragloom.types import IndexReport, IndexStatus, SkippedFile

PROGRESS_LINE_SECONDS = 5.0


def progress_printer(stream: TextIO = sys.stderr) -> Callable[[IndexProgress], None]:
    """A tqdm bar of chunks embedded on a terminal; a line every few seconds otherwise."""
    if stream.isatty():
        try:
            from tqdm import tqdm
        except ImportError:
            pass
        else:
            bar = tqdm(total=0, unit="chunk", desc="embedding", file=stream, leave=False)

            def update_bar(progress: IndexProgress) -> None:
                bar.total = progress.chunks_to_embed
                bar.n = progress.chunks_embedded
                bar.set_postfix_str(f"files {progress.files_done}/{progress.files_total}"
                                    f"{' (total estimated)' if progress.estimated else ''}",
                                    refresh=False)
                bar.refresh()
                if progress.finished:
                    bar.close()
            return update_bar
    return _ProgressLines(stream)


class _ProgressLines:
    """Prints the progress as a line every PROGRESS_LINE_SECONDS, and once when done."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._printed_at = float("-inf")
        self._last = ""

    def __call__(self, progress: IndexProgress) -> None:
        now, line = time.monotonic(), describe_progress(progress)
        due = now - self._printed_at >= PROGRESS_LINE_SECONDS or progress.finished
        if due and line != self._last:
            self._printed_at, self._last = now, line
            print(line, file=self._stream, flush=True)


def describe_progress(progress: IndexProgress) -> str:
    """``embedded 1200/~5400 chunks (35.2/s, ETA 1m 59s); files 120/800``."""
    eta = progress.eta_seconds
    when = "ETA --" if eta is None else f"ETA {int(eta) // 60}m {int(eta) % 60:02d}s"
    return (f"embedded {progress.chunks_embedded}/{'~' if progress.estimated else ''}"
            f"{progress.chunks_to_embed} chunks ({progress.chunks_per_second:.1f}/s, {when}); "
            f"files {progress.files_done}/{progress.files_total}")


def describe_report(report: IndexReport, verbose: bool = False) -> str:
    """The closing report: counts, skipped files summed by reason (each one listed with
    ``verbose``), warnings."""
    lines = [f"{report.files_indexed} indexed, {report.files_unchanged} unchanged, "
             f"{report.files_skipped} skipped, {report.files_removed} removed; "
             f"{report.chunks_added} chunks written ({report.chunks_embedded} embedded), "
             f"{report.chunks_removed} removed in {report.seconds:.1f}s"]
    if verbose:
        lines += [f"  skipped {one_line(s.path)}: {one_line(s.reason)}" for s in report.skipped]
    else:
        lines += skipped_by_reason(report.skipped)
    lines += [f"  warning {w}" for w in report.warnings]
    return "\n".join(lines)


def skipped_by_reason(skipped: list[SkippedFile]) -> list[str]:
    """``  skipped 145: binary file (NUL bytes)``: one line per reason, most frequent first
    (``-v`` lists every file)."""
    return [f"  skipped {count}: {one_line(reason)}"
            for reason, count in count_by_reason(skipped).items()]


def print_skipped(status: IndexStatus, as_json: bool, verbose: bool, out: TextIO) -> None:
    """``ragloom status``'s lines on what the last run skipped: counts by reason, and with
    ``-v`` every file with its reason (JSON carries the counts in ``skipped``)."""
    if as_json or not status.skipped:
        return
    print(f"skipped: {sum(status.skipped.values())} files", file=out)
    if verbose:
        for skipped in load_skipped(Path(status.index_dir)):
            print(f"  {one_line(skipped.path)}: {one_line(skipped.reason)}", file=out)
    else:
        for reason, count in status.skipped.items():
            print(f"  {count}: {one_line(reason)}", file=out)
