"""The app model's own World over the AgentEnv data plane, with the
reference client (agentenv-framework-protocol) and plain HTTP (httpx)
against a running `rea environment-serve` of an RPC-style capture (MLflow):
the entities only the app model holds (RPC resources) and its id counters
are rows of tables the card declares; data/get -> data/add (replace) gives
back a World that answers the same reads and continues the same ids; a
changed row is what the RPC read answers; a replace that leaves the app
model's tables out empties them; an additive load keeps them.

usage: agentenv_app_model.py BASE_URL
"""
from __future__ import annotations

import copy
import sys

import httpx
from agentenv_protocol import client, preflight
from agentenv_protocol.types import DataPart

from harness import Checks

checks = Checks("agentenv-app-model")
BASE = sys.argv[1]
CREATE = "/api/2.0/mlflow/experiments/create"
GET = "/api/2.0/mlflow/experiments/get"
ENTITIES = "app_model_entities"
COUNTERS = "app_model_counters"


async def export() -> dict:
    got = await client.get_data(BASE)
    assert len(got.parts) == 1 and got.parts[0].kind == "data", got
    return got.parts[0].data


@checks.check
async def the_app_models_entities_are_rows_of_declared_tables():
    await client.reset_data(BASE)
    card = await client.get_card(BASE)
    declaration = client.intake_declaration(card)
    tables = declaration["get"][0]["tables"]
    assert ENTITIES in tables and COUNTERS in tables, sorted(tables)
    data = await export()
    assert set(data) <= set(tables) | {"documents"}, sorted(data)
    # Every recorded experiment is a row, and the data fits the card.
    ids = {r["id"] for r in data[ENTITIES] if r["collection"].endswith("/experiments")}
    assert "0" in ids, ids
    assert preflight.intake_fit_check(declaration, data) == []


@checks.check
async def a_round_trip_answers_the_same_reads_and_continues_the_ids():
    await client.reset_data(BASE)
    async with httpx.AsyncClient(base_url=BASE, timeout=30) as http:
        made = await http.post(CREATE, json={"name": "plane-round-trip"})
        assert made.status_code == 200, made.text
        ident = made.json()["experiment_id"]
        before = (await http.get(GET, params={"experiment_id": ident})).json()
        assert before["experiment"]["name"] == "plane-round-trip", before
        data = await export()
        assert any(r["entity"].get("experiment_id") == ident for r in data[ENTITIES]), data[ENTITIES]
        # reset, then load the export back: the same World.
        await client.reset_data(BASE)
        assert (await http.get(GET, params={"experiment_id": ident})).status_code == 404
        await client.add_data(BASE, [DataPart(data=data)])
        assert await export() == data
        after = (await http.get(GET, params={"experiment_id": ident})).json()
        assert after == before, (before, after)
        nxt = (await http.post(CREATE, json={"name": "plane-next"})).json()
        assert int(nxt["experiment_id"]) == int(ident) + 1, nxt


@checks.check
async def a_changed_row_is_what_the_rpc_read_answers():
    await client.reset_data(BASE)
    data = await export()
    changed = copy.deepcopy(data)
    for r in changed[ENTITIES]:
        if r["collection"].endswith("/experiments") and r["id"] == "0":
            r["entity"]["name"] = "Renamed by data/add"
    await client.add_data(BASE, [DataPart(data=changed)])
    async with httpx.AsyncClient(base_url=BASE, timeout=30) as http:
        read = (await http.get(GET, params={"experiment_id": "0"})).json()
    assert read["experiment"]["name"] == "Renamed by data/add", read


@checks.check
async def a_replace_without_the_tables_empties_them_and_an_additive_load_keeps_them():
    await client.reset_data(BASE)
    data = await export()
    async with httpx.AsyncClient(base_url=BASE, timeout=30) as http:
        # additive with no app-model rows: every entity stays.
        await client.add_data(
            BASE, [DataPart(data={"documents": []}, metadata={"load": "additive"})]
        )
        assert (await http.get(GET, params={"experiment_id": "0"})).status_code == 200
        # replace with only the documents: the app model's entities are gone.
        await client.add_data(BASE, [DataPart(data={"documents": data["documents"]})])
        gone = await http.get(GET, params={"experiment_id": "0"})
        assert gone.status_code == 404, gone.text
        assert (await export())[ENTITIES] == []
        # additive with one row: it alone comes back.
        row = next(r for r in data[ENTITIES] if r["collection"].endswith("/experiments") and r["id"] == "0")
        await client.add_data(
            BASE, [DataPart(data={ENTITIES: [row]}, metadata={"load": "additive"})]
        )
        assert (await http.get(GET, params={"experiment_id": "0"})).status_code == 200
        assert len((await export())[ENTITIES]) == 1


@checks.check
async def a_bad_row_is_refused_and_leaves_the_world_alone():
    await client.reset_data(BASE)
    data = await export()
    bad = copy.deepcopy(data)
    bad[ENTITIES][0]["collection"] = "/no/such/resource"
    try:
        await client.add_data(BASE, [DataPart(data=bad)])
    except Exception as e:  # noqa: BLE001 - the reference client raises on any error
        assert "app_model_entities" in str(e), e
    else:
        raise AssertionError("a row of an unknown resource was accepted")
    assert await export() == data


if __name__ == "__main__":
    sys.exit(checks.run())
