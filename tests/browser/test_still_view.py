"""A still view: nothing on screen moves while a page opens (layout shift).

Each screen is opened at 360 px on a weak phone (CPU 4x slower, 150 ms round trips,
through the DevTools protocol, as in test_weak_phone.py), so the table's reads arrive
well after the first paint, when something drawn late would push the rest down. The
shifts are the browser's own 'layout-shift' entries (a PerformanceObserver, buffered),
all of them added up, none excluded but those right after an input; their sum is
asserted under 0.05, the bound of a still page (Lighthouse's "good" is 0.1).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.browser.pages import PHONE, RENDER_TIMEOUT_MS, api, create
from tests.live import LiveServer

CLS_BOUND = 0.05
LATENCY_MS = 150
THROUGHPUT = 1_600_000 / 8  # bytes per second, each way
CPU_SLOWDOWN = 4
NAMES = ["Anna", "Berta", "Csaba"]
STORE = "squarescores.matches"

# The shifts so far, each with what moved (for the failure message).
SHIFTS = """() => {
  const observer = new PerformanceObserver(() => {});
  observer.observe({ type: "layout-shift", buffered: true });
  const entries = observer.takeRecords();
  observer.disconnect();
  return entries.filter((entry) => !entry.hadRecentInput).map((entry) => ({
    value: entry.value,
    at: Math.round(entry.startTime),
    moved: entry.sources.map((source) => {
      const node = source.node;
      const name = node ? `${node.nodeName} ${node.id || node.className || ""}` : "?";
      const [was, is] = [source.previousRect, source.currentRect];
      return `${name.trim()}: (${was.x},${was.y}) -> (${is.x},${is.y})`;
    }),
  }));
}"""


@pytest.fixture
def weak_phone(browser: Browser) -> Iterator[tuple[BrowserContext, Page]]:
    """A fresh phone at 360 px, throttled; no service worker (a first visit)."""
    context = browser.new_context(service_workers="block", viewport=PHONE, is_mobile=True)
    context.set_default_timeout(RENDER_TIMEOUT_MS)
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send(
        "Network.emulateNetworkConditions",
        {
            "offline": False,
            "latency": LATENCY_MS,
            "downloadThroughput": THROUGHPUT,
            "uploadThroughput": THROUGHPUT,
        },
    )
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": CPU_SLOWDOWN})
    yield context, page
    cdp.detach()
    context.close()


def layout_shift(page: Page) -> tuple[float, list[dict[str, Any]]]:
    """The sum of every layout shift since the page opened, and the shifts themselves."""
    page.wait_for_load_state("load")
    shifts: list[dict[str, Any]] = page.evaluate(SHIFTS)
    return sum(shift["value"] for shift in shifts), shifts


def settled_table(page: Page) -> None:
    """The table as a player sees it once everything has arrived: the sheet, the entry
    form, the stream open (the chip says Live) and the wake-lock toggle shown."""
    expect(page.locator("#sheet")).to_be_visible()
    expect(page.locator("#add-round")).to_be_visible()
    expect(page.locator("#live.on")).to_be_visible()
    expect(page.locator("label.wake-lock")).to_be_visible()


def test_a_players_table_opened_from_a_join_link_does_not_move(
    weak_phone: tuple[BrowserContext, Page], server: LiveServer
) -> None:
    _, page = weak_phone
    created = create(server, {"game": "asszorti", "players": NAMES})
    entered = api(
        server,
        "POST",
        f"/v1/matches/{created['id']}/rounds",
        created["tokens"]["host"],
        json={"type": "asszorti_amounts", "amounts": [6, -3, -3]},
    )
    assert entered.status_code == 201, entered.text
    page.goto(server.url + created["tokens"]["links"]["players"][1])
    settled_table(page)
    # Before it was read, the table showed its crumbs and "Loading…" in the status line:
    # the status line now says how the match stands, in the place that said so.
    expect(page.locator("p.status")).to_contain_text("Rounds: 1")
    total, shifts = layout_shift(page)
    assert total < CLS_BOUND, json.dumps(shifts, indent=1)


def test_a_viewers_table_does_not_move(
    weak_phone: tuple[BrowserContext, Page], server: LiveServer
) -> None:
    _, page = weak_phone
    created = create(server, {"game": "alkort", "players": ["Anna", "Bela", "Cili", "Dani"]})
    page.goto(server.url + created["tokens"]["links"]["viewer"])
    expect(page.locator("#sheet")).to_be_visible()
    expect(page.locator("#viewer-note")).to_be_visible()
    expect(page.locator("#live.on")).to_be_visible()
    total, shifts = layout_shift(page)
    assert total < CLS_BOUND, json.dumps(shifts, indent=1)


def test_the_start_page_does_not_move(
    weak_phone: tuple[BrowserContext, Page], server: LiveServer
) -> None:
    _, page = weak_phone
    page.goto(server.url + "/")
    expect(page.locator("#create")).to_be_visible()
    total, shifts = layout_shift(page)
    assert total < CLS_BOUND, json.dumps(shifts, indent=1)


def test_the_start_page_with_tables_to_look_up_does_not_move(
    weak_phone: tuple[BrowserContext, Page], server: LiveServer
) -> None:
    """Keys kept with nothing else known: each table is looked up and redrawn in place."""
    _, page = weak_phone
    matches = [create(server, {"game": "asszorti", "players": NAMES}) for _ in range(3)]
    page.goto(server.url + "/")
    expect(page.locator("#create")).to_be_visible()
    kept = {m["id"]: {"token": m["tokens"]["players"][0], "saved": 1} for m in matches}
    page.evaluate("([key, value]) => localStorage.setItem(key, value)", [STORE, json.dumps(kept)])
    page.reload()
    for match in matches:
        looked_up = page.locator(f'#tables li.table-item[data-id="{match["id"]}"] .table-players')
        expect(looked_up).to_have_text(", ".join(NAMES))
    total, shifts = layout_shift(page)
    assert total < CLS_BOUND, json.dumps(shifts, indent=1)


def test_an_ended_match_does_not_move(
    weak_phone: tuple[BrowserContext, Page], server: LiveServer
) -> None:
    """The result card, the standings and the settlement arrive with the first draw."""
    _, page = weak_phone
    created = create(server, {"game": "asszorti", "players": NAMES})
    host = created["tokens"]["host"]
    path = f"/v1/matches/{created['id']}"
    entered = api(
        server,
        "POST",
        f"{path}/rounds",
        host,
        json={"type": "asszorti_amounts", "amounts": [6, -3, -3]},
    )
    assert entered.status_code == 201, entered.text
    assert api(server, "POST", f"{path}/end", host).status_code == 200
    page.goto(server.url + created["tokens"]["links"]["players"][2])
    expect(page.locator("#result")).to_be_visible()
    expect(page.locator("#sheet")).to_be_visible()
    total, shifts = layout_shift(page)
    assert total < CLS_BOUND, json.dumps(shifts, indent=1)


def test_the_join_links_of_a_new_table_do_not_move(
    weak_phone: tuple[BrowserContext, Page], server: LiveServer
) -> None:
    """Started from the start page: the QR codes are drawn into the room kept for them
    once their library arrives, after the tap's grace."""
    _, page = weak_phone
    page.goto(server.url + "/")
    for seat, name in enumerate(NAMES):
        page.locator("input.player-name").nth(seat).fill(name)
    page.click("#create")
    expect(page.locator("#links svg.qr path.qr-modules").first).to_be_attached()
    total, shifts = layout_shift(page)
    assert total < CLS_BOUND, json.dumps(shifts, indent=1)
