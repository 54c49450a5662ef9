"""One training episode against `rea environment-serve examples/kinto-dev-a.har`,
with the AgentEnv reference client (`pip install agentenv-framework-protocol`):
reset -> load a seed -> tool calls over MCP -> data/get -> compare with the
expected state.

    rea environment-serve examples/kinto-dev-a.har            # one shared World
    python examples/episode.py http://127.0.0.1:18765

    rea environment-serve examples/kinto-dev-a.har --isolate  # many episodes
    python examples/episode.py http://127.0.0.1:18765 --episode run-1

With `--isolate`, an episode is named by the data plane's base URL
(`BASE/episodes/NAME`, so the reference client's `reset_data`/`add_data`/
`get_data` need no change) and by the `AgentEnv-Episode: NAME` header on MCP
(and on the app's own paths); episodes never see each other's writes.
Under `--isolate` an MCP session that names no episode has a World of its
own (keyed by its `Mcp-Session-Id`), so name one to seed it from the data
plane. Exits 0 when the final World is the expected one.
"""
from __future__ import annotations

import argparse
import asyncio
import copy
import json
import sys

from agentenv_protocol import ToolSession, client
from agentenv_protocol.types import DataPart

PRODUCTS = "products_records"
PATCH = "patch_buckets_shop_collections_products_records_by_record_id"
DELETE = "delete_buckets_shop_collections_products_records_by_record_i"
READ = "get_buckets_shop_collections_products_records_by_record_id"


def rows_by_id(data: dict, table: str) -> dict:
    return {row["id"]: row for row in data.get(table, [])}


async def episode(base: str, name: str | None) -> int:
    plane = f"{base}/episodes/{name}" if name else base
    headers = {"AgentEnv-Episode": name} if name else {}

    # 1. reset: back to the recorded World.
    await client.reset_data(plane)
    recorded = (await client.get_data(plane)).parts[0].data

    # 2. load a seed: the recorded products, only two of them, one restocked
    #    ("replace" makes the seed the whole World); then one more product
    #    upserted into it ("additive" leaves the rest as it is).
    products = copy.deepcopy(recorded[PRODUCTS][:2])
    products[0]["stock"] = 40
    seed = {PRODUCTS: products}
    await client.add_data(plane, [DataPart(data=seed, metadata={"load": "replace"})])
    extra = copy.deepcopy(recorded[PRODUCTS][2])
    await client.add_data(plane, [DataPart(data={PRODUCTS: [extra]}, metadata={"load": "additive"})])

    # 3. the agent's tool calls, over MCP.
    first, second = products[0]["id"], products[1]["id"]
    async with ToolSession(mcp_url=f"{base}/mcp", role="agent", headers=headers) as tools:
        names = {t.name for t in await tools.list_tools()}
        missing = {PATCH, DELETE, READ} - names
        if missing:
            print(f"the environment offers no {sorted(missing)}", file=sys.stderr)
            return 2
        sold = await tools.call_tool(PATCH, {"record_id": first, "body": {"data": {"stock": 39}}})
        assert not sold.isError, sold.text
        gone = await tools.call_tool(DELETE, {"record_id": second})
        assert not gone.isError, gone.text
        read = await tools.call_tool(READ, {"record_id": second})
        assert read.isError, "a deleted product still reads"

    # 4. data/get, compared with the expected state.
    final = (await client.get_data(plane)).parts[0].data
    got = rows_by_id(final, PRODUCTS)
    expected = {first: {"stock": 39}, extra["id"]: {"name": extra["name"]}}
    problems = []
    if set(got) != set(expected):
        problems.append(f"products held: {sorted(got)}, expected {sorted(expected)}")
    for pid, fields in expected.items():
        for field, value in fields.items():
            if pid in got and got[pid].get(field) != value:
                problems.append(f"{pid}.{field}: {got[pid].get(field)!r}, expected {value!r}")
    print(json.dumps({"episode": name, "products": sorted(got), "problems": problems}))
    return 1 if problems else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base", nargs="?", default="http://127.0.0.1:18765")
    parser.add_argument("--episode", help="the episode to run in (server started with --isolate)")
    args = parser.parse_args()
    return asyncio.run(episode(args.base.rstrip("/"), args.episode))


if __name__ == "__main__":
    sys.exit(main())
