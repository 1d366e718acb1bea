"""Lazy import of optional heavy dependencies with an error naming the extra to install."""

from __future__ import annotations

import importlib
from types import ModuleType

from ragloom.errors import MissingDependencyError


def import_optional(module: str, extra: str, purpose: str) -> ModuleType:
    """Import ``module`` or raise MissingDependencyError telling which ragloom extra provides it."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingDependencyError(
            f"{purpose} needs the '{module}' package, which is not installed: "
            f"pip install 'ragloom[{extra}]'  ({exc})"
        ) from exc
