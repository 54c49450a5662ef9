"""Drives `rea environment-serve` with the official MCP Python SDK (mcp 2.x)
over stdio and streamable HTTP, in both protocol generations: `auto` (opens
with server/discover, protocol 2026-07-28) and `legacy` (initialize).

usage: mcp_clients.py REA_BINARY CAPTURE HTTP_MCP_URL READ_TOOL READ_ARGS_JSON [WRITE_TOOL WRITE_ARGS_JSON]
"""
from __future__ import annotations

import json
import sys

from mcp import Client, StdioServerParameters

from harness import Checks, first_text

checks = Checks("mcp")
REA, CAPTURE, URL, READ_TOOL = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
READ_ARGS = json.loads(sys.argv[5])
WRITE_TOOL = sys.argv[6] if len(sys.argv) > 6 else None
WRITE_ARGS = json.loads(sys.argv[7]) if len(sys.argv) > 7 else None


def stdio() -> StdioServerParameters:
    # mcp 2 starts the server with a minimal environment; pass nothing we rely on.
    return StdioServerParameters(command=REA, args=["environment-serve", CAPTURE, "--stdio"])


async def exercise(server, mode: str) -> str:
    async with Client(server, mode=mode, read_timeout_seconds=30) as client:
        tools = await client.list_tools()
        by_name = {t.name: t for t in tools.tools}
        assert READ_TOOL in by_name, sorted(by_name)
        tool = by_name[READ_TOOL]
        assert tool.annotations is not None and tool.annotations.read_only_hint is True
        assert tool.annotations.open_world_hint is False
        read = await client.call_tool(READ_TOOL, READ_ARGS)
        assert not read.is_error, read
        body = json.loads(first_text(read))
        if isinstance(body, dict):
            assert read.structured_content == body
        if WRITE_TOOL:
            assert by_name[WRITE_TOOL].annotations.read_only_hint is False
            written = await client.call_tool(WRITE_TOOL, WRITE_ARGS)
            assert not written.is_error, written
        return str(client.session.protocol_version)


@checks.check
async def stdio_auto_discovers():
    version = await exercise(stdio(), "auto")
    assert version == "2026-07-28", version


@checks.check
async def stdio_legacy_initializes():
    version = await exercise(stdio(), "legacy")
    assert version.startswith("2025-"), version


@checks.check
async def streamable_http_auto_discovers():
    version = await exercise(URL, "auto")
    assert version == "2026-07-28", version


@checks.check
async def streamable_http_legacy_initializes():
    version = await exercise(URL, "legacy")
    assert version.startswith("2025-"), version


if __name__ == "__main__":
    sys.exit(checks.run())
