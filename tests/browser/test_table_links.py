"""The host's join links, the keys a phone holds, and the connection, on the web page:

- the host's links are handed out (Share, Copy, QR), never opened by a tap; the host's
  own link only behind a step with a warning;
- a phone keeps every key for a match and acts with the strongest: a weaker link
  opened on it leaves the host the host;
- a round queued offline that meets a 412 is added once, against the sheet as it is;
- an error banner from the time the connection was down goes when the stream is back;
- a host who lost the key gets a new one (and a new recovery code) from the page.

The browser and the server are ``tests/browser/conftest.py``'s.
"""

from __future__ import annotations

import json
from typing import Any

from playwright.sync_api import Browser, Page, Response, Route, expect

from tests.browser.pages import Phone, api, create, new_phone, rows
from tests.conftest import ROOT
from tests.live import LiveServer

EN = json.loads((ROOT / "app" / "web" / "i18n" / "en.json").read_text())
NAMES = ["Anna", "Berta", "Csaba"]
STORE = "squarescores.matches"
SEND_TIMEOUT_MS = 10_000

# Share and Copy, recorded instead of reaching the phone's share sheet and clipboard.
HAND_OVER = """
window.handedOver = [];
navigator.share = async (data) => { window.handedOver.push({ share: data.url }); };
Object.defineProperty(navigator, "clipboard", {
  value: { writeText: async (text) => { window.handedOver.push({ copy: text }); } },
});
"""


def stored(page: Page) -> dict[str, Any]:
    return dict(json.loads(page.evaluate(f"localStorage.getItem('{STORE}') || '{{}}'")))


def expect_host(page: Page) -> None:
    """The host's table: the entry form and the settings, no viewer note."""
    expect(page.locator("#hand")).to_be_visible()
    expect(page.locator("#host-settings")).to_be_visible()
    expect(page.locator("#viewer-note")).to_have_count(0)


def start_on_page(page: Page) -> str:
    page.wait_for_selector("#start")
    page.select_option("#game", "asszorti")
    for seat, name in enumerate(NAMES):
        page.locator("input.player-name").nth(seat).fill(name)
    page.click("#create")
    page.wait_for_selector("#links")
    return page.url.split("#/m/")[1].split("/")[0]


def test_a_host_hands_out_links_and_stays_host(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    host = new_phone(phones, browser, server)
    host.context.add_init_script(HAND_OVER)
    page = host.open("/")
    match_id = start_on_page(page)
    links_url = page.url

    # The players' and the viewer's links first; the host's own not on the screen yet.
    items = page.locator("#links li")
    assert [items.nth(n).get_attribute("data-role") for n in range(4)] == [
        "player",
        "player",
        "player",
        "viewer",
    ]
    expect(page.locator('a.join-link[data-role="host"]')).to_have_count(0)
    expect(page.locator("#host-link-warning")).to_have_count(0)
    expect(page.locator("#links svg.qr")).to_have_count(4)

    # Tapping a link does not open it; Share and Copy hand it over.
    viewer = page.locator('a.join-link[data-role="viewer"]')
    viewer_href = viewer.get_attribute("href")
    assert viewer_href is not None and "?t=" in viewer_href
    for link in page.locator("a.join-link").all():
        link.click()
    assert page.url == links_url
    page.click('button.share-link[data-role="viewer"]')
    page.click('button.copy-link[data-role="player"][data-seat="1"]')
    expect(page.locator('li[data-role="player"][data-seat="1"] .copied')).to_have_text(
        EN["link_copied"]
    )
    berta = page.locator('a.join-link[data-role="player"][data-seat="1"]').get_attribute("href")
    assert page.evaluate("window.handedOver") == [{"share": viewer_href}, {"copy": berta}]

    # The host's own link, after the step: with its warning and the recovery code.
    page.click("#show-host-link")
    expect(page.locator("#host-link-warning")).to_have_text(EN["host_link_warning"])
    host_link = page.locator('a.join-link[data-role="host"]')
    expect(host_link).to_have_count(1)
    expect(page.locator("#recovery-code")).not_to_be_empty()
    host_link.click()
    assert page.url == links_url

    page.click("#open-sheet")
    page.wait_for_selector("#live.on")
    expect_host(page)
    entry = stored(page)[match_id]
    assert entry["role"] == "host" and [key["role"] for key in entry["keys"]] == ["host"]
    # The links under the sheet keep the host's own behind the step too.
    page.click("#links summary")
    expect(page.locator('#links a.join-link[data-role="host"]')).to_have_count(0)
    expect(page.locator("#links a.join-link")).to_have_count(4)
    host.check_clean()


def test_share_shows_only_where_the_browser_has_it(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    host = new_phone(phones, browser, server)
    page = host.open("/")
    start_on_page(page)
    assert page.evaluate("typeof navigator.share") == "undefined"
    expect(page.locator("button.share-link")).to_have_count(0)
    expect(page.locator("button.copy-link")).to_have_count(4)
    host.check_clean()


def test_a_weaker_link_opened_on_the_host_phone_keeps_the_host_key(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    created = create(server, {"game": "asszorti", "players": NAMES})
    match_id, tokens = created["id"], created["tokens"]
    host = new_phone(phones, browser, server)
    page = host.open(tokens["links"]["host"])
    page.wait_for_selector("#live.on")
    expect_host(page)

    for link in (tokens["links"]["viewer"], tokens["links"]["players"][2]):
        page.goto("about:blank")  # a link scanned or tapped elsewhere: a fresh load
        host.open(link)
        page.wait_for_selector("#live.on")
        assert "?t=" not in page.url
        expect_host(page)
    entry = stored(page)[match_id]
    assert entry["role"] == "host" and entry["token"] == tokens["host"]
    assert {key["token"] for key in entry["keys"]} == {
        tokens["host"],
        tokens["viewer"],
        tokens["players"][2],
    }

    # A player's phone handed the viewer link stays the player's; /me told the roles.
    player = new_phone(phones, browser, server)
    theirs = player.open(tokens["links"]["players"][0])
    theirs.wait_for_selector("#hand")
    theirs.goto("about:blank")
    player.open(tokens["links"]["viewer"])
    theirs.wait_for_selector("#live.on")
    expect(theirs.locator("#hand")).to_be_visible()
    expect(theirs.locator("#viewer-note")).to_have_count(0)
    entry = stored(theirs)[match_id]
    assert (entry["role"], entry["seat"]) == ("player", 0)
    assert sorted(key["role"] for key in entry["keys"]) == ["player", "viewer"]
    host.check_clean()
    player.check_clean()


def test_a_round_queued_offline_that_meets_a_412_is_added_once(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    created = create(server, {"game": "asszorti", "players": NAMES})
    match_id, host_token = created["id"], created["tokens"]["host"]
    player = new_phone(phones, browser, server)
    page = player.open(created["tokens"]["links"]["players"][0])
    page.wait_for_selector("#live.on")

    player.context.set_offline(True)
    page.wait_for_function("!navigator.onLine")
    for seat, amount in enumerate([-12, -12, 24]):
        page.fill(f'input[name="amount{seat}"]', str(amount))
    page.click("#add-round")
    held = page.locator("#outbox li.outbox-item")
    expect(held).to_have_attribute("data-state", "pending")
    other = api(
        server,
        "POST",
        f"/v1/matches/{match_id}/rounds",
        host_token,
        json={"type": "asszorti_amounts", "amounts": [4, -2, -2]},
    )
    assert other.status_code == 201

    # Back online, but the page's reads of the match fail for a while, and its stream
    # stays down: the sheet it shows is still the one the queued round was entered on.
    def fail_reads(route: Route) -> None:
        if route.request.method == "GET":
            route.abort()
        else:
            route.fallback()

    page.route(f"**/v1/matches/{match_id}/events**", lambda route: route.abort())
    reads = [f"**/v1/matches/{match_id}", f"**/v1/matches/{match_id}/sheet"]
    for pattern in reads:
        page.route(pattern, fail_reads)
    player.context.set_offline(False)
    expect(held).to_have_attribute("data-state", "conflict", timeout=SEND_TIMEOUT_MS)
    assert rows(page) == []
    for pattern in reads:
        page.unroute(pattern, fail_reads)
    answers: list[int] = []

    def record(response: Response) -> None:
        if response.request.method == "POST" and response.url.endswith("/rounds"):
            answers.append(response.status)

    page.on("response", record)
    held.locator("button.outbox-retry").click()  # once, on the stale sheet
    page.wait_for_selector('#sheet tbody tr[data-round="2"]', timeout=SEND_TIMEOUT_MS)
    expect(page.locator("#outbox")).to_be_hidden()
    assert answers == [201]
    rounds = api(server, "GET", f"/v1/matches/{match_id}/sheet", host_token).json()["rows"]
    assert len(rounds) == 2
    assert rows(page) == [[str(row["number"]), *map(str, row["cells"])] for row in rounds]
    player.check_clean()


def test_an_error_from_the_time_offline_goes_when_the_stream_is_back(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    created = create(server, {"game": "asszorti", "players": NAMES})
    match_id, host_token = created["id"], created["tokens"]["host"]
    entered = api(
        server,
        "POST",
        f"/v1/matches/{match_id}/rounds",
        host_token,
        json={"type": "asszorti_amounts", "amounts": [4, -2, -2]},
    )
    assert entered.status_code == 201
    host = new_phone(phones, browser, server)
    page = host.open(created["tokens"]["links"]["host"])
    page.wait_for_selector("#live.on")
    live = page.locator("#live")
    expect(live).to_have_text(EN["live_on"])

    host.context.set_offline(True)
    expect(live).to_have_text(EN["live_off"])  # "Reconnecting…"
    page.click("#undo")
    page.click("#confirm-yes")  # Undo asks first
    message = page.locator("#message")
    expect(message).to_have_text(EN["error_network"])

    host.context.set_offline(False)
    expect(live).to_have_text(EN["live_on"], timeout=SEND_TIMEOUT_MS)
    expect(message).to_be_hidden()
    assert len(rows(page)) == 1  # the undo that failed was not sent later
    host.check_clean()


def test_reconnecting_is_said_in_the_page_language(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    hu = json.loads((ROOT / "app" / "web" / "i18n" / "hu.json").read_text())
    created = create(server, {"game": "asszorti", "players": NAMES})
    phone = new_phone(phones, browser, server, locale="hu-HU")
    page = phone.open(created["tokens"]["links"]["viewer"])
    page.wait_for_selector("#live.on")
    phone.context.set_offline(True)
    expect(page.locator("#live")).to_have_text(hu["live_off"])
    phone.context.set_offline(False)
    expect(page.locator("#live")).to_have_text(hu["live_on"], timeout=SEND_TIMEOUT_MS)
    phone.check_clean()


def test_a_host_who_lost_the_key_recovers_it_on_the_page(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    created = create(server, {"game": "asszorti", "players": NAMES})
    match_id, tokens = created["id"], created["tokens"]
    # The host's phone was lost; the host still has a player's link on this one.
    phone = new_phone(phones, browser, server)
    page = phone.open(tokens["links"]["players"][0])
    page.wait_for_selector("#live.on")
    expect(page.locator("#host-settings")).to_be_hidden()

    page.click("#recover summary")
    expect(page.locator("#recover summary")).to_have_text(EN["recover_title"])
    page.fill("#recovery-input", "not-the-code")
    page.click("#recover-submit")
    expect(page.locator("#recover-note.error")).to_be_visible()
    page.fill("#recovery-input", tokens["recovery"])
    page.click("#recover-submit")
    new_code = page.locator("#new-recovery-code")
    expect(new_code).not_to_be_empty()
    code = new_code.inner_text()
    assert code != tokens["recovery"]
    page.click("#recover-continue")
    page.wait_for_selector("#live.on")
    expect_host(page)
    expect(page.locator("#recover")).to_have_count(0)

    entry = stored(page)[match_id]
    assert entry["role"] == "host"
    assert sorted(key["role"] for key in entry["keys"]) == ["host", "player"]
    me = api(server, "GET", f"/v1/matches/{match_id}/me", entry["token"])
    assert me.json()["role"] == "host"
    # Recovery rotated both: the old host key and the old code stop working.
    assert api(server, "GET", f"/v1/matches/{match_id}/me", tokens["host"]).status_code == 401
    again = api(
        server,
        "POST",
        f"/v1/matches/{match_id}/recover",
        json={"recovery_code": tokens["recovery"]},
    )
    assert again.status_code == 401
    again = api(server, "POST", f"/v1/matches/{match_id}/recover", json={"recovery_code": code})
    assert again.status_code == 200
    phone.check_clean()
