"""One definition found in a file's tree: what the outline finds and a language's
``path_definitions`` hook (``languages.LanguageRow``) adds."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Definition:
    """One definition: the node, its own name (as written), kind, whether it is split per
    member when too big, and the body holding those members."""

    node: Any
    name: str
    kind: str
    container: bool
    body: Any | None


def node_text(node: Any | None) -> str:
    """A node's source text (empty for no node), undecodable bytes replaced."""
    return bytes(node.text or b"").decode("utf-8", "replace") if node is not None else ""
