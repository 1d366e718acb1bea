"""The name a file is indexed under: what its chunks' ``path`` metadata, citations and
prompts show, and what its chunk ids and manifest record are keyed by. Never an absolute
machine path (a user name, a home folder sent to an LLM provider):

* a file inside base_dir: its path relative to base_dir (``src/app.py``);
* a file under a folder outside base_dir that was indexed (``index_directory("/home/me/
  koel/app")``): ``../<folder name>/<path inside it>`` (``../app/Services/Upload.php``).
  The leading ``../`` keeps it apart from any path inside base_dir, and the name does not
  change when the folder moves, so ids stay the same. The folder's absolute path is kept in
  the manifest (setting ``outside_roots``, never in a chunk) to find the file again; a
  second outside folder of the same name is named ``<name>-2``. A folder inside a known
  root is named under it; a single outside file named to ``index_file`` (``ragloom
  ingest``) counts its folder as a root.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Protocol

from ragloom.indexing.discovery import relative_posix

#: The manifest setting mapping each outside folder's name to its absolute path.
OUTSIDE_ROOTS = "outside_roots"
OUTSIDE_PREFIX = "../"


class Settings(Protocol):
    def get_setting(self, key: str) -> str | None: ...
    def set_setting(self, key: str, value: str) -> None: ...


class PathNames:
    """File <-> name under which it is indexed, for one base_dir and manifest."""

    def __init__(self, base_dir: Path, manifest: Settings) -> None:
        self.base_dir = base_dir
        self.manifest = manifest

    def _roots(self) -> dict[str, str]:
        try:
            saved = json.loads(self.manifest.get_setting(OUTSIDE_ROOTS) or "{}")
        except ValueError:
            return {}
        return saved if isinstance(saved, dict) else {}

    def register(self, root: Path) -> None:
        """Make ``root`` (a folder outside base_dir) a root files can be named under; a
        folder inside base_dir, or inside a known root, needs none. Another folder of the
        same name is named ``<name>-2`` (then ``-3``...)."""
        root = Path(os.path.abspath(root))
        if not os.path.isabs(relative_posix(root, self.base_dir)):
            return
        roots = self._roots()
        if any(root == Path(known) or Path(known) in root.parents for known in roots.values()):
            return
        name, number = root.name or "root", 1
        while name in roots:
            number += 1
            name = f"{root.name or 'root'}-{number}"
        self.manifest.set_setting(OUTSIDE_ROOTS, json.dumps(roots | {name: str(root)}, sort_keys=True))

    def name(self, path: Path) -> str:
        """The name ``path`` is indexed under (absolute only for a file under no known
        root, which indexing never produces)."""
        relative = relative_posix(path, self.base_dir)
        if not os.path.isabs(relative):
            return relative
        absolute = Path(os.path.abspath(path))
        holding = [(len(root), name, root) for name, root in self._roots().items()
                   if absolute == Path(root) or Path(root) in absolute.parents]
        if not holding:
            return relative
        _, name, root = min(holding)  # the outermost: a name does not depend on the order
        inside = absolute.relative_to(root).as_posix()
        return f"{OUTSIDE_PREFIX}{name}" + ("" if inside == "." else f"/{inside}")

    def path(self, name: str) -> Path:
        """The file indexed under ``name``."""
        if name.startswith(OUTSIDE_PREFIX):
            folder, _, inside = name[len(OUTSIDE_PREFIX):].partition("/")
            root = self._roots().get(folder)
            if root is not None:
                return Path(root) / inside if inside else Path(root)
        return Path(name) if os.path.isabs(name) else self.base_dir / name
