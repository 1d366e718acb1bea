"""Lazy package exports (PEP 562): a package names what it offers without importing it.

``import ragloom`` and ``ragloom status`` should not pay for numpy, the engine, the stores
and the chunkers they never use; ``from ragloom import RAGEngine`` still works, importing
the defining module on first access (and caching the name in the package).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def lazy_exports(package: str, exports: dict[str, str],
                 eager: dict[str, Any]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package``: ``exports`` maps a public name to
    the module defining it; ``eager`` is the package's globals (where a loaded name is
    cached, so the next access is a plain attribute)."""

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        eager[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*eager, *exports})

    return __getattr__, __dir__
