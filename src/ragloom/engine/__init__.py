"""The engine: ``opening`` (locks, recovery, settings reconcile) and ``facade`` (RAGEngine,
the one object an application holds)."""

from ragloom.engine.facade import RAGEngine

__all__ = ["RAGEngine"]
