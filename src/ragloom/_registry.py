"""A tiny name -> factory registry shared by the chunker, embedding and store factories."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

from ragloom.errors import ConfigError

FactoryT = TypeVar("FactoryT", bound=Callable[..., object])


class Registry(Generic[FactoryT]):
    """Maps the config string of a backend to the callable that builds it."""

    def __init__(self, kind: str, config_key: str) -> None:
        self.kind = kind
        self.config_key = config_key
        self._factories: dict[str, FactoryT] = {}

    def register(self, name: str) -> Callable[[FactoryT], FactoryT]:
        """Decorator registering a factory under ``name``."""

        def decorator(factory: FactoryT) -> FactoryT:
            self._factories[name] = factory
            return factory

        return decorator

    def get(self, name: str) -> FactoryT:
        """The factory for ``name``; an unknown name raises ConfigError listing the valid ones."""
        try:
            return self._factories[name]
        except KeyError:
            valid = ", ".join(repr(n) for n in sorted(self._factories))
            raise ConfigError(
                f"unknown {self.kind} {name!r} for key '{self.config_key}'; valid: {valid}"
            ) from None

    def names(self) -> list[str]:
        return sorted(self._factories)

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())
