"""One truth per resource over the AgentEnv data plane, with the reference
client (agentenv-framework-protocol) and plain HTTP (httpx) against a
running `rea environment-serve` of a WordPress capture: an entity the app
model creates (POST /tags) is one row of the data plane's `tags` table;
data/add of a changed row is what the app's item and list reads answer;
data/add without it removes it from every read; data/reset restores the
start.

usage: agentenv_one_truth.py BASE_URL
"""
from __future__ import annotations

import copy
import sys

import httpx
from agentenv_protocol import client
from agentenv_protocol.types import DataPart

from harness import Checks

checks = Checks("agentenv-one-truth")
BASE = sys.argv[1]
TAGS = "/wp-json/wp/v2/tags"


async def export() -> dict:
    got = await client.get_data(BASE)
    assert len(got.parts) == 1 and got.parts[0].kind == "data", got
    return got.parts[0].data


def rows(data: dict, table: str, ident) -> list:
    return [r for r in data.get(table, []) if r.get("id") == ident]


@checks.check
async def a_tag_the_app_model_creates_is_one_row_every_read_agrees_on():
    await client.reset_data(BASE)
    initial = await export()
    async with httpx.AsyncClient(base_url=BASE, timeout=30) as http:
        created = await http.post(TAGS, json={"name": "Guatemala"})
        assert created.status_code == 201, created.text
        ident = created.json()["id"]
        assert rows(initial, "tags", ident) == []
        data = await export()
        held = rows(data, "tags", ident)
        assert len(held) == 1 and held[0]["name"] == "Guatemala", held
        # data/add (replace) with the row changed: every read shows it.
        changed = copy.deepcopy(data)
        for r in changed["tags"]:
            if r.get("id") == ident:
                r["name"] = "Guatemala Huehue"
        await client.add_data(BASE, [DataPart(data=changed)])
        item = await http.get(f"{TAGS}/{ident}")
        assert item.status_code == 200 and item.json()["name"] == "Guatemala Huehue", item.text
        listed = (await http.get(TAGS, params={"per_page": 100})).json()
        names = [t["name"] for t in listed if t["id"] == ident]
        assert names == ["Guatemala Huehue"], names
        assert rows(await export(), "tags", ident)[0]["name"] == "Guatemala Huehue"
        # data/add without the row: the item is gone on every read.
        without = copy.deepcopy(changed)
        without["tags"] = [r for r in without["tags"] if r.get("id") != ident]
        await client.add_data(BASE, [DataPart(data=without)])
        assert (await http.get(f"{TAGS}/{ident}")).status_code == 404
        listed = (await http.get(TAGS, params={"per_page": 100})).json()
        assert all(t["id"] != ident for t in listed), listed
        # data/reset: the recording's start on both sides.
        await client.reset_data(BASE)
        assert await export() == initial
        assert (await http.get(f"{TAGS}/{ident}")).status_code == 404


if __name__ == "__main__":
    sys.exit(checks.run())
