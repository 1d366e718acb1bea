"""Cold-start timing shared by bench/startup.py and bench/startup_scale.py: a command's wall
time, and rounds of named measures printed as medians beside ``python -c "import numpy"``."""

from __future__ import annotations

import statistics
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

BASELINE = 'python -c "import numpy"'


def timed(command: list[str], cwd: Path) -> float:
    """Seconds ``command`` takes to run in ``cwd`` (output discarded; a failure raises)."""
    started = time.perf_counter()
    subprocess.run(command, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def print_rounds(measures: dict[str, Callable[[], float]], runs: int, heading: str) -> None:
    """Run every measure once per round (interleaved, so load drifts hit all alike) and print
    each one's median seconds and median ratio to the BASELINE measure of the same round."""
    seconds: dict[str, list[float]] = {name: [] for name in measures}
    for _ in range(runs):
        for name, measure in measures.items():
            seconds[name].append(measure())
    baseline = seconds[BASELINE]
    print(f"\n{heading:<36} {'median s':>9} {'x numpy':>8}   runs (s)")
    for name, values in seconds.items():
        ratios = [value / base for value, base in zip(values, baseline)]
        print(f"{name:<36} {statistics.median(values):>9.2f} {statistics.median(ratios):>8.1f}   "
              + " ".join(f"{value:.2f}" for value in values), flush=True)
