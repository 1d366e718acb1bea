"""An MCP server (stdio) that misbehaves as argv[1] says, for the bridge store's tests:
``hang`` (rag_search never answers), ``die`` (the process exits mid-call), ``no-tool``
(offers only another tool), ``garbage`` (answers text that is not results), ``error``
(answers a tool error)."""

import os
import sys
import time

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

mode = sys.argv[1]
server = MCPServer("misbehaving")

if mode == "no-tool":
    @server.tool(name="web_search")
    def web_search(query: str) -> str:
        return "nothing"
else:
    @server.tool(name="rag_search")
    def rag_search(query: str, top_k: int = 5) -> str:
        if mode == "hang":
            time.sleep(3600)
        if mode == "die":
            os._exit(3)
        if mode == "error":
            raise ToolError("index is being rebuilt")
        return "Here are some thoughts about your question, in prose."

server.run("stdio")
