"""A small MCP server built with the Python MCP SDK from PyPI (MCPServer,
formerly FastMCP), for dra's client interop tests. Usage:
    python3 kb_server.py stdio
    python3 kb_server.py http PORT      (streamable HTTP at /mcp on 127.0.0.1)
"""

import sys

from mcp.server.mcpserver import MCPServer

server = MCPServer("kb")


@server.tool()
def lookup(query: str) -> str:
    """Look up a record of the internal knowledge base."""
    return f"Internal KB record for {query!r}: PadmaPay charges a standard fee of 1.9% per domestic card or UPI transaction."


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "http":
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run("stdio")
