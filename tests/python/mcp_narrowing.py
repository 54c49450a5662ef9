"""The same narrowing over MCP as over HTTP, with the official MCP Python SDK
(mcp 2.x, streamable HTTP): each case calls a tool and sends its HTTP form to
the same server (httpx); the tool result's first text block must be the HTTP
answer's body, byte for byte, and the tool must offer every argument used.

usage: mcp_narrowing.py BASE_URL CASES_JSON
  CASES_JSON: [[tool, arguments, method, target, body-or-null], ...]
"""
from __future__ import annotations

import json
import sys

import httpx
from mcp import Client

from harness import Checks, first_text

checks = Checks("mcp-narrowing")
BASE = sys.argv[1].rstrip("/")
CASES = json.loads(sys.argv[2])


@checks.check
async def every_case_answers_the_http_bytes():
    async with Client(BASE + "/mcp", mode="legacy", read_timeout_seconds=30) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        async with httpx.AsyncClient(base_url=BASE, timeout=30) as http:
            for name, arguments, method, target, body in CASES:
                assert name in tools, (name, sorted(tools))
                schema = tools[name].input_schema
                for arg in arguments:
                    assert arg in schema.get("properties", {}), (name, arg, schema)
                result = await client.call_tool(name, arguments)
                assert not result.is_error, (name, arguments, first_text(result))
                answer = await http.request(
                    method,
                    target,
                    content=None if body is None else json.dumps(body),
                    headers={"Content-Type": "application/json"} if body is not None else {},
                )
                assert answer.status_code == 200, (target, answer.status_code, answer.text)
                assert first_text(result).encode() == answer.content, (
                    name,
                    arguments,
                    first_text(result)[:300],
                    answer.text[:300],
                )


if __name__ == "__main__":
    sys.exit(checks.run())
