"""Programs and services on top of the engine: the ``ragloom`` CLI, the MCP server, the
inspector page, conversations with memory and the retrieval evaluation. The outer ring:
nothing in the core imports this package."""
