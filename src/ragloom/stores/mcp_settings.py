"""The settings table of the MCP bridge store (``stores.mcp_bridge``), in a module of its own
so the store registry can name it without importing the bridge (asyncio, numpy)."""

from __future__ import annotations

from typing import Any

from pydantic import Field, model_validator

from ragloom.config.rules import StrictModel


class McpBridgeSettings(StrictModel):
    """``[rag.vector_store.mcp]``: the server to ask and the tool to call."""

    #: A command line that starts an MCP server over stdio, or its streamable-HTTP URL.
    server: str | None = None
    #: The tool the bridge calls (it takes ``query`` and ``top_k``).
    tool: str = Field("rag_search", min_length=1)
    #: Longest wait for the server to start or to answer one call.
    timeout_seconds: float = Field(30.0, gt=0, le=3600)

    @model_validator(mode="before")
    @classmethod
    def _empty_means_unset(cls, data: Any) -> Any:
        """``server = ""`` and ``tool = ""`` (as the desktop client writes them) mean "not set"."""
        if isinstance(data, dict):
            return {key: value for key, value in data.items()
                    if not (key in ("server", "tool") and value == "")}
        return data
