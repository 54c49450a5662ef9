"""Drives a running `rea environment-serve` with the AgentEnv reference
client (agentenv-framework-protocol): card, data/reset, data/get, data/add,
ToolSession.list_tools/call_tool, and preflight.intake_fit_check.

usage: agentenv_clients.py BASE_URL READ_TOOL READ_ARGS_JSON [WRITE_TOOL WRITE_ARGS_JSON]
"""
from __future__ import annotations

import base64
import copy
import json
import sys

from agentenv_protocol import ToolSession, client, preflight
from agentenv_protocol.types import DataPart, FilePart, FileWithBytes

from harness import Checks, first_text

checks = Checks("agentenv")
BASE, READ_TOOL, READ_ARGS = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
WRITE_TOOL = sys.argv[4] if len(sys.argv) > 4 else None
WRITE_ARGS = json.loads(sys.argv[5]) if len(sys.argv) > 5 else None


async def export() -> dict:
    got = await client.get_data(BASE)
    assert len(got.parts) == 1 and got.parts[0].kind == "data", got
    return got.parts[0].data


@checks.check
async def card_declares_the_data_plane_and_mcp():
    card = await client.get_card(BASE)
    assert card["url"] == "/agentenv" and card["protocolVersion"] == "1.0"
    assert client.mcp_path(card) == "/mcp"
    assert card["capabilities"]["operations"] == ["data/reset", "data/add", "data/get"]
    assert client.find_tool(card, READ_TOOL) is not None
    declaration = client.intake_declaration(card)
    assert declaration and declaration["add"][0]["load"] == "replace", declaration


@checks.check
async def export_fits_the_declared_intake():
    await client.reset_data(BASE)
    card = await client.get_card(BASE)
    data = await export()
    issues = preflight.intake_fit_check(client.intake_declaration(card), data)
    assert issues == [], issues
    tables = client.intake_declaration(card)["add"][0]["tables"]
    assert set(data) <= set(tables), (sorted(data), sorted(tables))
    assert any(isinstance(rows, list) and rows for rows in data.values())
    # A seed the declaration refuses is caught by the same check.
    bad = {"no_such_collection": [{}]}
    assert preflight.intake_fit_check(client.intake_declaration(card), bad)


@checks.check
async def tool_session_lists_and_calls_tools():
    await client.reset_data(BASE)
    async with ToolSession(mcp_url=f"{BASE}/mcp", role="agent") as session:
        assert session.protocol_version == "2025-11-25", session.protocol_version
        assert session.session_id
        names = [t.name for t in await session.list_tools()]
        assert READ_TOOL in names, names
        result = await session.call_tool(READ_TOOL, READ_ARGS)
        assert not result.isError, result
        json.loads(result.text.split("\n")[0]) if result.content else None
        if WRITE_TOOL:
            assert WRITE_TOOL in names, names
            written = await session.call_tool(WRITE_TOOL, WRITE_ARGS)
            assert not written.isError, written
        missing = await session.call_tool(READ_TOOL, {**READ_ARGS, **{k: "no-such-id-zz" for k in READ_ARGS}})
        if READ_ARGS:
            assert missing.isError and ": " in first_text(missing.model_dump()), missing


@checks.check
async def reset_add_get_round_trip():
    await client.reset_data(BASE)
    initial = await export()
    # Replace the World with a smaller one: drop the last row of the largest collection.
    smaller = copy.deepcopy(initial)
    name = max((k for k, v in smaller.items() if isinstance(v, list)), key=lambda k: len(smaller[k]))
    dropped = smaller[name].pop()
    await client.add_data(BASE, [DataPart(data=smaller)])
    assert await export() == smaller
    # The same World as an inline file part.
    raw = base64.b64encode(json.dumps(initial).encode()).decode()
    await client.add_data(BASE, [FilePart(file=FileWithBytes(bytes=raw, mimeType="application/json"))])
    assert await export() == initial
    # A bad payload is refused and changes nothing.
    await client.add_data(BASE, [DataPart(data=smaller)])
    try:
        await client.add_data(BASE, [DataPart(data={"no_such_collection": []})])
        raise AssertionError("a payload with an undeclared collection was accepted")
    except RuntimeError as e:
        assert "invalid_request" in str(e) and "no_such_collection" in str(e), e
    assert await export() == smaller
    await client.reset_data(BASE)
    assert await export() == initial
    assert dropped in initial[name]


if __name__ == "__main__":
    sys.exit(checks.run())
