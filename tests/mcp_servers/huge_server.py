"""An MCP stdio server (Python MCP SDK) whose `huge` tool answers with
more than rmcp's 16 MiB line cap, for dra's line-cap test. Usage:
    python3 huge_server.py
"""

from mcp.server.mcpserver import MCPServer

server = MCPServer("huge")


@server.tool()
def huge(mb: int) -> str:
    """A text of `mb` MiB."""
    return "x" * (mb * 1024 * 1024)


@server.tool()
def small() -> str:
    """A short text."""
    return "still here"


if __name__ == "__main__":
    server.run("stdio")
