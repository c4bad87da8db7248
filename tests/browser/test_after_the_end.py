"""Phones stay in step after the end (issue #39): a rename of an ended match reaches
every phone, the settlement too; the start of its rematch reaches every phone, and each
takes its own seat in it with one tap; a key re-issued meanwhile gets nothing.

Same set-up as ``test_table_page.py``: a real server, headless Chromium, phones at
360 px. Each phone's change must show on the others within ``LIVE_TIMEOUT_MS``, with
no reload.
"""

from __future__ import annotations

import json
import re
from typing import Any

from playwright.sync_api import Browser, Page, expect

from tests.browser.pages import LIVE_TIMEOUT_MS, Phone, api, create, new_phone
from tests.conftest import ROOT
from tests.live import LiveServer

EN = json.loads((ROOT / "app" / "web" / "i18n" / "en.json").read_text())
PLAYERS = ["Anna", "Berta", "Csaba"]


def _ended(server: LiveServer) -> dict[str, Any]:
    """An Asszorti match of two hands, ended: a settlement to show."""
    created = create(server, {"game": "asszorti", "players": PLAYERS})
    path, host = f"/v1/matches/{created['id']}", created["tokens"]["host"]
    for amounts in ([-9, 18, -9], [18, -9, -9]):
        body = {"type": "asszorti_amounts", "amounts": amounts}
        assert api(server, "POST", f"{path}/rounds", host, json=body).status_code == 201
    assert api(server, "POST", f"{path}/end", host).status_code == 200
    return created


def _open(phones: list[Phone], browser: Browser, server: LiveServer, link: str) -> Page:
    page = new_phone(phones, browser, server).open(link)
    page.wait_for_selector("#result:not([hidden])")
    expect(page.locator("#live")).to_have_class(re.compile(r"\bon\b"))  # still followed
    return page


def _stored(page: Page, match_id: str) -> Any:
    return page.evaluate(f"JSON.parse(localStorage.getItem('squarescores.matches'))['{match_id}']")


def test_a_rename_after_the_end_reaches_every_phone_settlement_included(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    links = dict(_ended(server)["tokens"]["links"])
    links["player_0"] = links["players"][0]
    host = _open(phones, browser, server, links["host"])
    others = [_open(phones, browser, server, links[role]) for role in ("player_0", "viewer")]
    for page in others:
        expect(page.locator("#settlement")).to_contain_text("Berta")

    host.click("#host-settings summary")
    host.fill("#rename-name-1", "Bertalan")
    host.click("#rename-1")
    expect(host.locator("#rename-note")).to_have_text(
        EN["renamed"].format(old="Berta", name="Bertalan")
    )
    for page in others:
        expect(page.locator("#sheet thead th")).to_have_text(
            ["#", "Anna", "Bertalan", "Csaba"], timeout=LIVE_TIMEOUT_MS
        )
        expect(page.locator("#settlement")).to_contain_text("Bertalan", timeout=LIVE_TIMEOUT_MS)
        expect(page.locator("#standings")).to_contain_text("Bertalan", timeout=LIVE_TIMEOUT_MS)
    for phone in phones:
        phone.check_clean()


def test_a_rematch_reaches_every_phone_and_each_takes_its_own_seat_with_one_tap(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    created = _ended(server)
    match_id, tokens = created["id"], created["tokens"]
    links = tokens["links"]
    host = _open(phones, browser, server, links["host"])
    berta = _open(phones, browser, server, links["players"][1])
    viewer = _open(phones, browser, server, links["viewer"])
    csaba = _open(phones, browser, server, links["players"][2])
    for page in (berta, viewer, csaba):
        expect(page.locator("#rematch-box")).to_be_hidden()

    host.click("#rematch")
    host.wait_for_url(re.compile(rf"#/m/(?!{match_id})[0-9a-f]{{32}}/links$"))
    new_id = host.url.rsplit("#/m/", 1)[1].split("/")[0]

    # Told at once, at the top of the page, with a button for its own seat.
    for page, role in ((berta, "player"), (viewer, "viewer"), (csaba, "player")):
        expect(page.locator("#rematch-note")).to_have_text(
            EN["rematch_started"], timeout=LIVE_TIMEOUT_MS
        )
        expect(page.locator("#rematch-take")).to_have_text(EN[f"rematch_take_{role}"])
        expect(page.locator("#rematch-take")).to_be_in_viewport()

    # Csaba's key is re-issued meanwhile: his tap gets nothing.
    reissued = api(
        server,
        "POST",
        f"/v1/matches/{match_id}/tokens",
        tokens["host"],
        json={"role": "player", "seat": 2},
    )
    assert reissued.status_code == 200
    expect(csaba.locator("#message")).to_have_text(EN["revoked"], timeout=LIVE_TIMEOUT_MS)
    csaba.click("#rematch-take")
    expect(csaba.locator("#rematch-take-note")).to_contain_text(EN["problem_unauthenticated"])
    assert _stored(csaba, new_id) is None
    assert re.search(rf"#/m/{match_id}$", csaba.url)

    # One tap: the player's phone is that player's seat in the rematch, the viewer's a viewer.
    player, watcher = {"role": "player", "seat": 1}, {"role": "viewer", "seat": None}
    for page, me in ((berta, player), (viewer, watcher)):
        page.click("#rematch-take")
        page.wait_for_url(re.compile(rf"#/m/{new_id}$"))
        page.wait_for_selector("#live.on")
        expect(page.locator("#sheet thead th")).to_have_text(["#", *PLAYERS])
        stored = _stored(page, new_id)
        assert (stored["role"], stored["seat"]) == (me["role"], me["seat"])
        assert api(server, "GET", f"/v1/matches/{new_id}/me", stored["token"]).json() == me
    expect(berta.locator("#end")).to_be_visible()  # a player writes
    expect(viewer.locator("#viewer-note")).to_be_visible()  # a viewer only reads

    # Back on the ended match, each phone now opens the rematch it holds a key for.
    berta.goto(f"{server.url}/#/m/{match_id}")
    expect(berta.locator("#rematch-link")).to_have_attribute("href", f"#/m/{new_id}")
    for phone in phones:
        phone.check_clean()
