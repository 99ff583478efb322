"""Drives `dra mcp-serve` with the official Python MCP SDK (PyPI `mcp`), a
client nobody on the dra project wrote, and prints what it saw as one JSON
object on stdout for the Rust test to check.

  drive_dra.py stdio DRA_BINARY [SERVE_ARGS...]   spawn dra mcp-serve itself
  drive_dra.py http URL TOKEN_OR_DASH             connect to a running one

Each tool is called once: research (with a progressToken: progress
notifications are collected), search, fetch (the first search hit) and runs;
plus calls that must come back as tool errors, not crashes (bad arguments,
an unknown URL, a corpus that does not exist, an unknown tool).
"""

import asyncio
import json
import os
import sys

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

QUESTION = (
    "Is PadmaPay (Kochi, India) a reliable payment-gateway partner for our D2C "
    "startup today? Check leadership, licence status, funding and pricing."
)


def texts(result):
    return [c.text for c in result.content if getattr(c, "type", "") == "text"]


async def exercise(session):
    out = {}
    await session.initialize()
    listed = await session.list_tools()
    out["tools"] = {t.name: {"description": t.description, "schema": t.input_schema} for t in listed.tools}

    progress = []

    async def on_progress(value, total, message):
        progress.append({"progress": value, "total": total, "message": message})

    research = await session.call_tool(
        "research",
        {"question": QUESTION, "entity": "PadmaPay"},
        read_timeout_seconds=300,
        progress_callback=on_progress,
    )
    out["research"] = {
        "is_error": research.is_error,
        "texts": texts(research),
        "structured": research.structured_content,
    }
    out["progress"] = progress

    search = await session.call_tool("search", {"query": "PadmaPay pricing fees"})
    out["search"] = {"is_error": search.is_error, "structured": search.structured_content}
    hits = (search.structured_content or {}).get("results") or []
    url = hits[0]["url"] if hits else "https://padmapay.example/"
    fetch = await session.call_tool("fetch", {"url": url})
    out["fetch"] = {
        "url": url,
        "is_error": fetch.is_error,
        "texts": texts(fetch),
        "structured": fetch.structured_content,
    }
    runs = await session.call_tool("runs", {"limit": 5})
    out["runs"] = {"is_error": runs.is_error, "structured": runs.structured_content}

    bad = await session.call_tool("research", {"question": "", "budget": 3})
    out["bad_args"] = {"is_error": bad.is_error, "texts": texts(bad)}
    bad_fetch = await session.call_tool("fetch", {"url": "https://nowhere.invalid/none"})
    out["bad_fetch"] = {"is_error": bad_fetch.is_error, "texts": texts(bad_fetch)}
    bad_corpus = await session.call_tool(
        "research", {"question": "Who runs PadmaPay?", "corpus": "/nonexistent/dra-corpus"}
    )
    out["bad_corpus"] = {"is_error": bad_corpus.is_error, "texts": texts(bad_corpus)}
    vague = await session.call_tool("research", {"question": "Is it reliable?"})
    out["vague"] = {"is_error": vague.is_error, "texts": texts(vague), "structured": vague.structured_content}
    rushed = await session.call_tool("research", {"question": QUESTION, "deadline": 0.001})
    out["rushed"] = {"is_error": rushed.is_error, "texts": texts(rushed), "structured": rushed.structured_content}
    unknown = await session.call_tool("summarise", {})
    out["unknown_tool"] = {"is_error": unknown.is_error, "texts": texts(unknown)}
    return out


async def main():
    mode = sys.argv[1]
    if mode == "stdio":
        params = StdioServerParameters(
            command=sys.argv[2],
            args=["mcp-serve", *sys.argv[3:]],
            env=dict(os.environ),
        )
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                out = await exercise(session)
    elif mode == "http":
        url, token = sys.argv[2], sys.argv[3]
        headers = {} if token == "-" else {"Authorization": f"Bearer {token}"}
        async with create_mcp_http_client(headers=headers) as http:
            async with streamable_http_client(url, http_client=http) as (read, write):
                async with ClientSession(read, write) as session:
                    out = await exercise(session)
    else:
        raise SystemExit(f"unknown mode {mode}")
    json.dump(out, sys.stdout, default=str)
    sys.stdout.write("\n")


if __name__ == "__main__":
    asyncio.run(main())
