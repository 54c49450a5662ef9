"""A tiny check runner for the client scripts: each check is an async
function; the run prints one line per check and `N passed, M failed`."""
from __future__ import annotations

import asyncio
import sys
import traceback


class Checks:
    def __init__(self, name: str) -> None:
        self.name = name
        self.items = []

    def check(self, fn):
        self.items.append(fn)
        return fn

    def run(self, *args) -> int:
        passed = failed = 0
        for fn in self.items:
            try:
                asyncio.run(asyncio.wait_for(fn(*args), 60))
                passed += 1
                print(f"ok     {self.name}::{fn.__name__}", flush=True)
            except BaseException as e:  # noqa: BLE001 - report every failure kind
                failed += 1
                print(f"FAILED {self.name}::{fn.__name__}: {e!r}", flush=True)
                traceback.print_exc(file=sys.stdout)
        print(f"{passed} passed, {failed} failed", flush=True)
        return 0 if failed == 0 and passed > 0 else 1


def first_text(result) -> str:
    """The first text block of an MCP tool result (SDK object or dict)."""
    content = result.content if hasattr(result, "content") else result["content"]
    block = content[0]
    return block.text if hasattr(block, "text") else block["text"]
