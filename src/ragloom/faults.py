"""Named crash points for deterministic fault-injection tests.

The write path calls ``crash_point("name")`` at each place where dying leaves a different
state on disk. With ``RAGLOOM_CRASH_AT=name:N`` in the environment the process ends at
once the N-th time it reaches that point, with exit status CRASH_EXIT_STATUS (``os._exit``:
no cleanup, no flush, no ``finally``, other threads stopped mid-step, as after a
``kill -9``, on every OS), so a test visits every point on every machine, however fast or
slow.
Unset (the normal case) a crash point costs one comparison.
"""

from __future__ import annotations

import os

ENVIRONMENT_VARIABLE = "RAGLOOM_CRASH_AT"
#: The exit status of a process that died at a crash point.
CRASH_EXIT_STATUS = 77

#: Every crash point, in the order one indexing window reaches them.
CRASH_POINTS = (
    "batch-cached",        # one provider batch embedded and in the cache, the window not done
    "embedded",            # vectors computed (and cached), nothing journaled yet
    "journaled",           # the manifest journal lists the files about to change
    "store-written",       # store and BM25 changed in memory, not yet durable
    "bm25-segment-written",  # a new BM25 segment file exists, its segment list is old
    "segment-written",     # TurboQuant: a new segment file exists, the segment list is old
    "store-persisted",     # the store is durable, the manifest still lists the old versions
    "manifest-written",    # the manifest records the new versions (window complete)
    "removal-journaled",   # a deleted file's removal is journaled, its chunks still stored
    "removal-persisted",   # its chunks are gone from the store, the manifest still lists it
)


def _armed() -> tuple[str, int] | None:
    value = os.environ.get(ENVIRONMENT_VARIABLE)
    if not value:
        return None
    name, _, count = value.partition(":")
    if name not in CRASH_POINTS:
        raise ValueError(f"{ENVIRONMENT_VARIABLE}={value!r}: unknown crash point {name!r}; "
                         f"known: {', '.join(CRASH_POINTS)}")
    return name, int(count or 1)


_ARMED = _armed()
_hits: dict[str, int] = {}


def crash_point(name: str) -> None:
    """Kill this process here if ``RAGLOOM_CRASH_AT`` names this point and hit count."""
    if _ARMED is None or _ARMED[0] != name:
        return
    _hits[name] = _hits.get(name, 0) + 1
    if _hits[name] == _ARMED[1]:
        os._exit(CRASH_EXIT_STATUS)
