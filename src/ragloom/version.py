"""ragloom's version, in a module of its own so any floor may read it (the ONNX cache key,
the MCP server's name) without importing the package's surface; pyproject.toml has the same."""

__version__ = "0.1.0"
