"""Opens the live page `/_rea/` of a running `rea environment-serve` in
headless Chromium (the system's `chromium`, driven by Playwright; no browser
is downloaded): the tools and a World table are shown, an HTTP write shows
up in the page's journal within a second, and a screenshot is saved.

usage: admin_page.py BASE_URL WRITE_PATH WRITE_BODY_JSON SCREENSHOT_PATH
"""
from __future__ import annotations

import json
import os
import shutil
import sys
import time

import httpx
from playwright.async_api import async_playwright

from harness import Checks

checks = Checks("admin_page")
BASE, WRITE_PATH, WRITE_BODY, SHOT = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), sys.argv[4]
FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]


def chromium() -> str:
    path = os.environ.get("REA_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not path:
        raise RuntimeError("no chromium on PATH (Debian: apt-get install chromium; .ci/run does)")
    return path


@checks.check
async def the_page_shows_tools_tables_and_a_live_journal():
    environment = httpx.get(BASE + "/_rea/environment", timeout=10).json()
    tables = httpx.get(BASE + "/_rea/tables", timeout=10).json()["tables"]
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=chromium(), args=FLAGS, headless=True)
        try:
            page = await browser.new_page(viewport={"width": 1280, "height": 1600})
            errors = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("requestfailed", lambda r: errors.append("failed: " + r.url))
            await page.goto(BASE + "/_rea/", wait_until="load", timeout=15000)

            # The tools, every one of them, by name.
            await page.wait_for_selector("#tools tbody tr", timeout=10000)
            shown = await page.eval_on_selector_all("#tools tbody tr", "rows => rows.map(r => r.dataset.tool)")
            assert shown == [t["name"] for t in environment["tools"]], shown
            assert await page.text_content("#env-name") == environment["name"]

            # A World table with its row count and rows.
            table = next(t for t in tables if t["count"] > 0)
            listed = page.locator(f'#tables tbody tr[data-table="{table["name"]}"]')
            await listed.wait_for(timeout=10000)
            assert (await listed.locator("td").nth(1).text_content()) == str(table["count"])
            await page.select_option("#table-pick", table["name"])
            rows = await page.locator("#rows tbody tr").count()
            assert rows == min(table["count"], 50), rows

            # The journal is live: a write over HTTP appears within a second.
            await page.wait_for_selector("#conn.live", timeout=10000)
            line = "POST " + WRITE_PATH
            started = time.monotonic()
            reply = httpx.post(BASE + WRITE_PATH, json=WRITE_BODY, timeout=10)
            assert reply.status_code < 300, reply.text
            row = page.locator("#journal tbody tr[data-id]", has_text=line).first
            await row.wait_for(timeout=1000)
            seen = time.monotonic() - started
            assert seen < 1.0, seen
            cells = await row.locator("td").all_text_contents()
            assert str(reply.status_code) in cells and "world" in cells and "yes" in cells, cells

            # Coverage is shown, counting the write too.
            calls = httpx.get(BASE + "/_rea/coverage", timeout=10).json()["calls"]
            await page.wait_for_function(
                "n => document.getElementById('coverage-summary').textContent.endsWith(' of ' + n + ' calls not answered')",
                arg=calls, timeout=5000)
            assert await page.locator("#coverage h3").count() == 4
            await page.screenshot(path=SHOT, full_page=True)
            assert os.path.getsize(SHOT) > 10_000
            assert not errors, errors
            print(f"journal showed the write after {seen * 1000:.0f} ms; screenshot {SHOT}")
        finally:
            await browser.close()


if __name__ == "__main__":
    sys.exit(checks.run())
