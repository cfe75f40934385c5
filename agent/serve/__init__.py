"""The network doors: a REST API (FastAPI) and an MCP server, both over the same ``memory.Memory`` facade and the
agent, both behind API keys (``memlens apikey create``). Started by ``memlens serve api|mcp``."""
