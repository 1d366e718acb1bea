"""Registries put back after a test (importable as ``registries`` thanks to pytest's
pythonpath): a registry offers no way to take a registration back; only tests need one."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ragloom._registry import Registry


@contextmanager
def restored(*registries: Registry[Any], relist: bool = False) -> Iterator[None]:
    """The registries as they were once the block ends: what a test registers in them (or a
    plugin it installs) is gone again. With ``relist``, installed plugins are listed afresh
    in the block (a plugin installed for it is found)."""
    saved = [(registry, dict(registry._factories), set(registry._builtin), registry._plugins)
             for registry in registries]
    if relist:
        for registry, factories, builtin, _ in saved:
            registry._plugins = None
            registry._factories = {name: f for name, f in factories.items() if name in builtin}
    try:
        yield
    finally:
        for registry, factories, builtin, plugins in saved:
            registry._factories, registry._builtin, registry._plugins = factories, builtin, plugins
