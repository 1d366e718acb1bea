"""The settings table of the MCP bridge store (``stores.mcp_bridge``), in a module of its own
so the store registry can name it without importing the bridge (asyncio, numpy)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class McpBridgeSettings(BaseModel):
    """``[rag.vector_store.mcp]``."""

    model_config = ConfigDict(extra="forbid")

    #: Longest wait for the server to start or to answer one call.
    timeout_seconds: float = Field(30.0, gt=0, le=3600)
