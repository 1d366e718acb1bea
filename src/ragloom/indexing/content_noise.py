"""The noise rules judged on a file's text (``long-lines``), for files being read and for
files indexed before the rules were what they are now.

Rules judged on a path or a listed size (lock files, ``data-fixtures``) hold at every walk,
so a file indexed before such a rule existed is dropped by the next run. ``long-lines``
needs the text, which a run reads only when a file changed: an index built before the rule
(or with it off) would keep a minified bundle for good. So the manifest records, for each
indexed folder, the content rules its files were judged by (``signature``); when the
current ones differ, the next run reads once more each unchanged file the rule could catch
(``LONG_LINE_MIN_CHARS`` bytes or more, not prose by its extension), drops a noisy one
(unless an ``include`` pattern names it) as a skipped file with its reason, and leaves the
others as they are: nothing re-chunked, nothing re-embedded. The setting is written at the end of a
run, so a run stopped midway checks again; each removal is journaled on its own.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

from ragloom.chunking.registry import language_for_path
from ragloom.indexing.discovery import Rules, named_by
from ragloom.indexing.noise import (
    LONG_LINE,
    LONG_LINE_MIN_CHARS,
    LONG_LINE_SHARE,
    PROSE_LANGUAGES,
    long_lines_judge,
    mostly_long_lines,
    reason,
)
from ragloom.indexing.pending import Records
from ragloom.indexing.reading import FileContent, SkipFile

#: The manifest setting (one per indexed folder, its name after the colon).
SETTING_PREFIX = "content_noise:"


def content_noise(content: FileContent, relative: str, rules: Rules) -> str | None:
    """Why the content rules skip the file at ``relative`` read as ``content``, or None."""
    if "long-lines" not in rules.noise or content.spans or named_by(relative, rules.include):
        return None
    noisy = mostly_long_lines(content.text, content.language or language_for_path(relative))
    return reason("long-lines") if noisy else None


def signature(rules: Rules) -> str:
    """What the content rules are: a file judged by others may be judged again."""
    return json.dumps(["long-lines" in rules.noise, LONG_LINE, LONG_LINE_SHARE, LONG_LINE_MIN_CHARS,
                       sorted(PROSE_LANGUAGES), sorted(rules.include)])


@dataclass(frozen=True)
class Recheck:
    """Whether a run under one folder judges its unchanged files by the content rules."""

    key: str
    current: str
    needed: bool

    @classmethod
    def of(cls, manifest: Records, folder: str, rules: Rules) -> Recheck:
        """For the folder indexed under the name ``folder``."""
        key, current = SETTING_PREFIX + folder, signature(rules)
        return cls(key, current, manifest.get_setting(key) != current)

    @classmethod
    def never(cls) -> Recheck:
        return cls("", "", False)

    def noise(self, relative: str, size: int, rules: Rules, read: Callable[[], FileContent]) -> str | None:
        """Why the current content rules skip the unchanged indexed file at ``relative``
        (``size`` bytes; ``read`` reads it, only when the rules could catch it), or None.
        A file that cannot be read now stays as it was indexed."""
        if not (self.needed and "long-lines" in rules.noise and long_lines_judge(relative, size)):
            return None
        try:
            return content_noise(read(), relative, rules)
        except SkipFile:
            return None

    def done(self, manifest: Records) -> None:
        """Every file of the folder is judged by the current rules now."""
        if self.needed:
            manifest.set_setting(self.key, self.current)
