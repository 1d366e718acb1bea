""".gitignore rules: each file applies to the paths below its folder, the last matching
rule wins, ``!`` re-includes, a trailing ``/`` matches folders only, and a ``/`` at the
start or inside a pattern anchors it to the .gitignore's folder."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from ragloom.globs import Glob, GlobError, compile_glob

logger = logging.getLogger("ragloom")


@dataclass(frozen=True)
class IgnoreRule:
    folder: str  # POSIX path of the .gitignore's folder relative to the walk's base ("" = base)
    pattern: Glob
    negate: bool
    folders_only: bool


def parse_gitignore(text: str, folder: str) -> list[IgnoreRule]:
    """The rules of one .gitignore; a line that is not a valid glob is left out (as git
    does), with a warning naming it."""
    rules = []
    for raw in text.splitlines():
        line = raw.rstrip()
        if not line or line.startswith("#"):
            continue
        negate = line.startswith("!")
        if negate:
            line = line[1:]
        if line.startswith("\\"):
            line = line[1:]
        folders_only = line.endswith("/")
        line = line.rstrip("/")
        if not line:
            continue
        anchored = "/" in line
        line = line.lstrip("/")
        try:
            pattern = compile_glob(line if anchored else f"**/{line}")
        except GlobError as exc:
            logger.warning("%s/.gitignore: rule %r left out: %s", folder or ".", raw, exc)
            continue
        rules.append(IgnoreRule(folder, pattern, negate, folders_only))
    return rules


class GitIgnore:
    """The rules of every .gitignore seen so far during a walk."""

    def __init__(self) -> None:
        self.rules: list[IgnoreRule] = []

    def load(self, folder: Path, relative_folder: str) -> None:
        """Add the rules of ``folder/.gitignore`` if there is one."""
        file = folder / ".gitignore"
        try:
            text = file.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return
        self.rules.extend(parse_gitignore(text, relative_folder))

    def ignored(self, relative_path: str, is_folder: bool) -> bool:
        verdict = False
        for rule in self.rules:
            if rule.folders_only and not is_folder:
                continue
            if rule.folder:
                if not relative_path.startswith(rule.folder + "/"):
                    continue
                inside = relative_path[len(rule.folder) + 1:]
            else:
                inside = relative_path
            if rule.pattern.matches(inside):
                verdict = not rule.negate
        return verdict
