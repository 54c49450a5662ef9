"""Runs the stdio client configuration of docs/serving.md as written: the
first JSON block with `mcpServers` and a `command`, its placeholder
`/absolute/path/to/...` made a real path under the repository, started by
the official `mcp` SDK with `rea` found on PATH.

usage: docs_stdio.py SERVING_MD REPO_ROOT
"""
from __future__ import annotations

import json
import os
import re
import shutil
import sys

from mcp import Client, StdioServerParameters

from harness import Checks

checks = Checks("docs_stdio")
DOC, ROOT = sys.argv[1], sys.argv[2]
PLACEHOLDER = "/absolute/path/to/"


def documented() -> tuple[str, dict]:
    text = open(DOC, encoding="utf-8").read()
    for block in re.findall(r"```json\n(.*?)```", text, flags=re.S):
        config = json.loads(block)
        for name, server in config.get("mcpServers", {}).items():
            if "command" in server:
                return name, server
    raise AssertionError("no stdio configuration in " + DOC)


@checks.check
async def the_documented_stdio_configuration_serves_tools():
    name, server = documented()
    assert server["command"] == "rea", server
    assert shutil.which("rea"), "rea is not on PATH"
    args = [a.replace(PLACEHOLDER, ROOT.rstrip("/") + "/") for a in server["args"]]
    for a in args:
        if a.endswith(".har"):
            assert os.path.isfile(a), a
    params = StdioServerParameters(command=server["command"], args=args, env=server.get("env"))
    async with Client(params, read_timeout_seconds=60) as client:
        tools = (await client.list_tools()).tools
        assert tools, "no tools"
        reads = [t for t in tools if t.annotations and t.annotations.read_only_hint]
        listing = next(t for t in reads if not t.input_schema.get("required"))
        result = await client.call_tool(listing.name, {})
        assert not result.is_error, result
    print(f"{name}: {len(tools)} tools; called {listing.name}")


if __name__ == "__main__":
    sys.exit(checks.run())
