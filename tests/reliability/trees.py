"""A tree of Python modules that tests edit between indexing rounds."""

from __future__ import annotations

import hashlib
import random
from pathlib import Path

from helpers import write


def mutate(root: Path, rng: random.Random, versions: dict[str, set[str]], step: int) -> None:
    """Edit, add or delete a file, remembering every content hash each path ever had."""
    name = f"pkg/module_{rng.randrange(40)}.py"
    path = root / name
    if path.exists() and rng.random() < 0.15:
        path.unlink()
        return
    body = "".join(f"def handler_{step}_{i}(request):\n    return respond(request, {i} + {step})\n\n"
                   for i in range(rng.randrange(1, 30)))
    write(root, name, body)
    versions.setdefault(name, set()).add(hashlib.sha256(body.encode()).hexdigest()[:16])
