"""A name -> factory registry shared by the chunker, embedding and store factories.

Filled from built-ins (``@registry.register("name")``) and from installed plugins: every
entry point of the registry's group (``ragloom.vector_stores``, ...) is listed on first
lookup and imported only when its name is asked for. A name may also be a
``package.module:attribute`` path to a factory, for one-off backends without packaging.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import threading
from collections.abc import Callable, Iterator
from typing import Any, Generic, TypeVar, cast

from ragloom.errors import ConfigError, did_you_mean

FactoryT = TypeVar("FactoryT", bound=Callable[..., object])


class Registry(Generic[FactoryT]):
    """Maps the config string of a backend to the callable that builds it."""

    def __init__(self, kind: str, config_key: str, entry_point_group: str | None = None,
                 accepts: tuple[type, str] | None = None) -> None:
        self.kind = kind
        self.config_key = config_key
        self.entry_point_group = entry_point_group
        #: (base class, its name): a plugin must be a subclass of it (a typed descriptor,
        #: such as ``StoreBackend``) and is used as it is; without, any callable is wrapped.
        self._accepts = accepts
        self._factories: dict[str, FactoryT] = {}
        self._builtin: set[str] = set()
        self._plugins: dict[str, importlib.metadata.EntryPoint] | None = None  # listed lazily
        # Readers are looked up from several threads; listing entry points concurrently
        # can see none of them, so listing and loading happen one thread at a time.
        self._lock = threading.RLock()

    def register(self, name: str) -> Callable[[FactoryT], FactoryT]:
        """Decorator registering a factory under ``name``."""

        def decorator(factory: FactoryT) -> FactoryT:
            self._factories[name] = factory
            self._builtin.add(name)
            return factory

        return decorator

    def get(self, name: str) -> FactoryT:
        """The factory for ``name``: a built-in, an installed plugin, or a ``module:attr``
        path; anything else raises ConfigError listing the valid names."""
        with self._lock:
            return self._get(name)

    def _get(self, name: str) -> FactoryT:
        if name in self._factories:
            return self._factories[name]
        if ":" in name:
            return self._load(name, lambda: _import_path(name), f"path {name!r}")
        plugin = self._listed_plugins().get(name)
        if plugin is None:
            valid = ", ".join(repr(n) for n in self.names())
            raise ConfigError(
                f"key '{self.config_key}' = {name!r}: unknown {self.kind}"
                f"{did_you_mean(name, self.names())}; valid: {valid} "
                f"(or an installed plugin's name, or a 'package.module:factory' path)")
        factory = self._load(name, plugin.load, f"plugin {plugin.value!r} "
                             f"(entry point {name!r} in group {self.entry_point_group!r})")
        self._factories[name] = factory
        return factory

    def _load(self, name: str, load: Callable[[], object], what: str) -> FactoryT:
        try:
            factory = load()
        except Exception as exc:  # a broken plugin must not look like a typo
            raise ConfigError(f"{self.kind} {name!r} for key '{self.config_key}': cannot load "
                              f"{what}: {type(exc).__name__}: {exc}") from exc
        if self._accepts is not None:
            base, base_name = self._accepts
            if not (isinstance(factory, type) and issubclass(factory, base)):
                raise ConfigError(f"{self.kind} {name!r} for key '{self.config_key}': {what} is "
                                  f"{factory!r}, not a subclass of {base_name}")
            return cast(FactoryT, factory)
        if not callable(factory):
            raise ConfigError(f"{self.kind} {name!r} for key '{self.config_key}': {what} is "
                              f"{type(factory).__name__}, not a factory")
        return cast(FactoryT, _OutsideFactory(self, name, factory))

    def _listed_plugins(self) -> dict[str, importlib.metadata.EntryPoint]:
        with self._lock:
            if self._plugins is None:
                found = (importlib.metadata.entry_points(group=self.entry_point_group)
                         if self.entry_point_group else ())
                self._plugins = {ep.name: ep for ep in found if ep.name not in self._factories}
            return self._plugins

    def names(self) -> list[str]:
        """Built-in and installed plugin names."""
        return sorted({*self._factories, *self._listed_plugins()})

    def __contains__(self, name: str) -> bool:
        return ":" in name or name in self._factories or name in self._listed_plugins()

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())


def _import_path(path: str) -> object:
    module_name, _, attribute = path.partition(":")
    target: object = importlib.import_module(module_name)
    for part in attribute.split("."):
        target = getattr(target, part)
    return target


class _OutsideFactory:
    """A factory from a plugin or a ``module:factory`` path, called as the registry calls
    its own: a call it does not take (``"os:system"``) or one that returns a plain number
    or text is a ConfigError naming the key and the name, not a TypeError from deep inside."""

    def __init__(self, registry: Registry[Any], name: str, factory: Callable[..., object]) -> None:
        self._registry, self._name, self._factory = registry, name, factory

    def __call__(self, *args: object, **kwargs: object) -> object:
        registry = self._registry
        where = f"{registry.kind} {self._name!r} for key '{registry.config_key}'"
        try:
            built = self._factory(*args, **kwargs)
        except TypeError as exc:
            raise ConfigError(f"{where}: calling it failed ({type(exc).__name__}: {exc}); "
                              f"a factory takes the arguments ragloom passes to the built-in "
                              f"ones (docs/plugins.md) and returns what it builds") from exc
        if isinstance(built, (int, str, bytes)):  # None is a chunker factory's "not mine"
            raise ConfigError(f"{where}: it returned {built!r}, not a {registry.kind}")
        return built
