"""Conversation memory: the turns of each session, persisted in the index folder.

``MemoryStore`` keeps turns in SQLite (WAL, immediate transactions: safe across threads and
processes like the manifest) with each turn's vector from the engine's embedder, so a
session's earlier turns can be searched by meaning. A session keeps at most
``max_turns_per_session`` turns (the oldest go first); with ``turn_limit`` (``[rag.limits]
max_memory_turns``) a turn past the limit is refused instead, with QuotaExceededError.
A ``Conversation`` given a store and a session id starts from the session's recent turns
and records every new one, so a restarted app continues where it stopped.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import numpy as np

from ragloom.embeddings.base import EmbeddingProvider
from ragloom.errors import QuotaExceededError
from ragloom.sqlite_db import connect, transaction
from ragloom.tenancy import tenant_file

if TYPE_CHECKING:
    from ragloom.engine import RAGEngine

MEMORY_FILE = "memory.sqlite"
ROLES = ("user", "assistant")


@dataclass(frozen=True)
class MemoryTurn:
    """One remembered turn; ``score`` is its cosine to the query in ``search`` results."""

    id: int
    session_id: str
    role: Literal["user", "assistant"]  # add() refuses any other (ROLES)
    text: str
    created_at: float
    score: float | None = None


class MemoryStore:
    """See the module docstring."""

    def __init__(self, path: Path | None, embedder: EmbeddingProvider,
                 max_turns_per_session: int = 1000, turn_limit: int | None = None,
                 tenant: str | None = None) -> None:
        """``tenant``: whose memory this is, named when ``turn_limit`` refuses a turn."""
        if max_turns_per_session < 1:
            raise ValueError(f"max_turns_per_session must be at least 1, got {max_turns_per_session}")
        self.path = path
        self.embedder = embedder
        self.max_turns_per_session = max_turns_per_session
        self.turn_limit = turn_limit  # turns a session may hold; one more is refused
        self.tenant = tenant
        self._db = connect(path)
        self._lock = threading.Lock()
        with transaction(self._db, self._lock) as db:
            db.execute("CREATE TABLE IF NOT EXISTS turns (id INTEGER PRIMARY KEY AUTOINCREMENT, "
                       "session TEXT NOT NULL, role TEXT NOT NULL, text TEXT NOT NULL, "
                       "created REAL NOT NULL, model TEXT NOT NULL, vector BLOB NOT NULL)")
            db.execute("CREATE INDEX IF NOT EXISTS turns_by_session ON turns (session, id)")

    @classmethod
    def for_engine(cls, engine: RAGEngine, max_turns_per_session: int = 1000) -> MemoryStore:
        """The memory beside an engine's index (in memory for the in-memory store), with
        the engine's ``[rag.limits] max_memory_turns``; a tenant's engine has the tenant's
        own (``memory@<tenant>.sqlite``)."""
        file = engine.index_dir / tenant_file(MEMORY_FILE, engine.tenant)
        return cls(file if engine.persistent else None, engine.provider, max_turns_per_session,
                   engine.config.limits.max_memory_turns, engine.tenant)

    def add(self, session_id: str, role: str, text: str) -> int:
        """Remember a turn; returns its id. The session's oldest turns beyond the cap go; a
        turn past ``turn_limit`` is refused (QuotaExceededError), nothing written."""
        _check(session_id, role, text)
        self.check_room(session_id, 1)
        vector = self.embedder.embed([text], "document").astype(np.float32)[0]
        with transaction(self._db, self._lock) as db:
            self._refuse_past_limit(db, session_id, 1)
            cursor = db.execute(
                "INSERT INTO turns (session, role, text, created, model, vector) VALUES (?, ?, ?, ?, ?, ?)",
                (session_id, role, text, time.time(), self._model, vector.tobytes()))
            db.execute("DELETE FROM turns WHERE session = ? AND id NOT IN (SELECT id FROM turns "
                       "WHERE session = ? ORDER BY id DESC LIMIT ?)",
                       (session_id, session_id, self.max_turns_per_session))
            return int(cursor.lastrowid or 0)

    def check_room(self, session_id: str, adding: int) -> None:
        """QuotaExceededError when ``adding`` more turns would take the session past
        ``turn_limit`` (a conversation asks before it calls the model for an answer)."""
        with self._lock:
            self._refuse_past_limit(self._db, session_id, adding)

    def _refuse_past_limit(self, db: sqlite3.Connection, session_id: str, adding: int) -> None:
        if self.turn_limit is None:
            return
        held = int(db.execute("SELECT COUNT(*) FROM turns WHERE session = ?", (session_id,)).fetchone()[0])
        if held + adding > self.turn_limit:
            raise QuotaExceededError("max_memory_turns", f"session {session_id!r}", held, adding,
                                     self.turn_limit, self.tenant)

    def recent(self, session_id: str, limit: int = 20) -> list[MemoryTurn]:
        """The session's last ``limit`` turns, oldest first."""
        with self._lock:
            rows = self._db.execute("SELECT id, session, role, text, created FROM turns WHERE "
                                    "session = ? ORDER BY id DESC LIMIT ?", (session_id, limit)).fetchall()
        return [MemoryTurn(*row) for row in reversed(rows)]

    def search(self, session_id: str, query: str, top_k: int = 5) -> list[MemoryTurn]:
        """The session's turns closest in meaning to ``query``, best first."""
        with self._lock:
            rows = self._db.execute("SELECT id, session, role, text, created, vector FROM turns "
                                    "WHERE session = ? AND model = ?", (session_id, self._model)).fetchall()
        if not rows:
            return []
        vectors = np.stack([np.frombuffer(row[5], dtype=np.float32) for row in rows])
        vectors = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        probe = self.embedder.embed_query(query).astype(np.float32)
        probe = probe / max(float(np.linalg.norm(probe)), 1e-12)
        scores = vectors @ probe
        order = np.argsort(-scores, kind="stable")[:top_k]
        return [MemoryTurn(*rows[i][:5], score=float(scores[i])) for i in order]

    def forget(self, session_id: str) -> int:
        """Remove every turn of a session; returns how many."""
        with transaction(self._db, self._lock) as db:
            return int(db.execute("DELETE FROM turns WHERE session = ?", (session_id,)).rowcount)

    def sessions(self) -> list[str]:
        with self._lock:
            return [row[0] for row in self._db.execute("SELECT DISTINCT session FROM turns ORDER BY session")]

    def close(self) -> None:
        with self._lock:
            self._db.close()

    @property
    def _model(self) -> str:
        return f"{self.embedder.provider_name}/{self.embedder.model_name}"


def _check(session_id: str, role: str, text: str) -> None:
    if not isinstance(session_id, str) or not session_id:
        raise ValueError(f"session_id must be a non-empty string, got {session_id!r}")
    if role not in ROLES:
        raise ValueError(f"role must be 'user' or 'assistant', got {role!r}")
    if not isinstance(text, str):
        raise ValueError(f"text must be a string, got {type(text).__name__}")
