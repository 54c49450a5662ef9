"""MCP conformance with the official `mcp` SDK (mcp 2.x) over streamable
HTTP: every write tool called with only the required properties of its
`inputSchema` succeeds (the SDK's own convention in tests); tools with an
`outputSchema` answer structured content the SDK validates against it; and
closing the session logs nothing (DELETE /mcp answers as the SDK expects).

usage: mcp_conformance.py BASE_URL MIN_WRITE_TOOLS
"""
from __future__ import annotations

import json
import logging
import sys
import uuid

import httpx
from mcp import Client

from harness import Checks

checks = Checks("mcp-conformance")
BASE = sys.argv[1]
MIN_WRITES = int(sys.argv[2])


class Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(f"{record.name}: {record.getMessage()}")


def fill(schema: dict):
    """A value for `schema` with only its required members filled in."""
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    if schema.get("examples"):
        return schema["examples"][0]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object" or (kind is None and "properties" in schema):
        props = schema.get("properties", {})
        return {k: fill(props.get(k, {})) for k in schema.get("required", [])}
    if kind == "array":
        return []
    if kind == "integer":
        return 1
    if kind == "number":
        return 1.5
    if kind == "boolean":
        return True
    if kind == "null":
        return None
    fmt = schema.get("format")
    if fmt == "uuid":
        return str(uuid.uuid4())
    if fmt == "date-time":
        return "2024-01-01T00:00:00Z"
    if fmt == "date":
        return "2024-01-01"
    if fmt == "uri":
        return "http://127.0.0.1/x"
    return "filled-" + uuid.uuid4().hex[:8]


def candidates(schema: dict, held: list[str]):
    """Argument sets filling only the required properties: path parameters
    take each observed value, then each id the World holds (bounded)."""
    base = fill(schema)
    yield base
    props = schema.get("properties", {})
    params = [n for n in schema.get("required", []) if n != "body"]
    for name in params:
        values = props.get(name, {}).get("examples", [])[1:] + held
        for value in values[:60]:
            yield {**base, name: value}


async def held_ids() -> list[str]:
    """Every row identity the initial World holds (each table's id field is
    its first required member, as the card declares)."""
    async with httpx.AsyncClient() as http:
        card = (await http.get(f"{BASE}/.well-known/agent-env.json")).json()
        got = await http.post(f"{BASE}/agentenv", json={"jsonrpc": "2.0", "id": 1, "method": "data/get"})
    tables = card["capabilities"]["extensions"][0]["params"]["add"][0]["tables"]
    data = got.json()["result"]["parts"][0]["data"]
    out = []
    for name, rows in data.items():
        required = tables.get(name, {}).get("required", [])
        for row in rows:
            if required and isinstance(row.get(required[0]), (str, int)):
                value = str(row[required[0]])
                if value not in out:
                    out.append(value)
    return out


async def reset() -> None:
    async with httpx.AsyncClient() as http:
        reply = await http.post(f"{BASE}/agentenv", json={"jsonrpc": "2.0", "id": 1, "method": "data/reset"})
        assert reply.json().get("result") == {}, reply.text


@checks.check
async def write_tools_succeed_with_only_required_properties():
    called = 0
    async with Client(f"{BASE}/mcp", mode="legacy", read_timeout_seconds=30) as client:
        tools = (await client.list_tools()).tools
        writes = [t for t in tools if t.annotations and t.annotations.read_only_hint is False]
        assert len(writes) >= MIN_WRITES, [t.name for t in tools]
        failures = []
        held = await held_ids()
        for tool in writes:
            # Path parameters take each observed value in turn (some name
            # items the recording created later, which the initial World
            # does not hold); the body only its required members.
            outcomes = []
            for args in candidates(tool.input_schema, held):
                await reset()
                result = await client.call_tool(tool.name, args)
                outcomes.append((args, result.content[0].text if result.content else ""))
                if not result.is_error:
                    break
            else:
                failures.append((tool.name, outcomes))
            called += 1
        assert not failures, json.dumps(failures, indent=1, default=str)
    await reset()
    print(f"  {called} write tools called with only their required properties")


@checks.check
async def output_schemas_hold_for_structured_results():
    checked = 0
    async with Client(f"{BASE}/mcp", mode="legacy", read_timeout_seconds=30) as client:
        tools = (await client.list_tools()).tools
        for tool in tools:
            if tool.output_schema is None or not (tool.annotations and tool.annotations.read_only_hint):
                continue
            assert tool.output_schema.get("type") == "object", tool.output_schema
            args = fill(tool.input_schema)
            # The SDK validates structured content against the output schema
            # and raises when it does not conform.
            result = await client.call_tool(tool.name, args)
            if not result.is_error:
                assert isinstance(result.structured_content, dict), result
                checked += 1
    assert checked, "no read tool with an output schema answered"
    print(f"  {checked} structured results checked against their output schema")


@checks.check
async def session_close_logs_nothing():
    collect = Collect()
    root = logging.getLogger()
    root.addHandler(collect)
    try:
        async with Client(f"{BASE}/mcp", mode="legacy", read_timeout_seconds=30) as client:
            await client.list_tools()
        async with Client(f"{BASE}/mcp", mode="auto", read_timeout_seconds=30) as client:
            await client.list_tools()
    finally:
        root.removeHandler(collect)
    assert collect.lines == [], collect.lines
    async with httpx.AsyncClient() as http:
        # The termination itself, seen from the wire.
        init = {
            "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                       "clientInfo": {"name": "t", "version": "1"}},
        }
        headers = {"Accept": "application/json, text/event-stream"}
        opened = await http.post(f"{BASE}/mcp", json=init, headers=headers)
        sid = opened.headers["mcp-session-id"]
        closed = await http.delete(f"{BASE}/mcp", headers={**headers, "Mcp-Session-Id": sid})
        assert closed.status_code in (200, 204), closed.status_code


if __name__ == "__main__":
    sys.exit(checks.run())
