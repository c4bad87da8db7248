"""The host renames a player from the settings card, and every phone shows the new name
live; the host of an ended match starts its rematch, which opens with the same players
and the deal moved on, and the ended match links to it (issue #31).

Same set-up as ``test_table_page.py``: a real server, headless Chromium (Debian's),
phones at 360 px that may not leave the server's origin.
"""

from __future__ import annotations

import json
import re

from playwright.sync_api import Browser, expect

from tests.browser.pages import LIVE_TIMEOUT_MS, Phone, api, create, new_phone
from tests.conftest import ROOT
from tests.live import LiveServer

EN = json.loads((ROOT / "app" / "web" / "i18n" / "en.json").read_text())
PLAYERS = ["Anna", "Berta", "Csaba"]


def test_the_host_renames_a_player_and_another_phone_sees_it_live(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    created = create(server, {"game": "asszorti", "players": PLAYERS})
    match_id, tokens = created["id"], created["tokens"]
    host = new_phone(phones, browser, server)
    page = host.open(tokens["links"]["host"])
    berta = new_phone(phones, browser, server)
    theirs = berta.open(tokens["links"]["players"][1])
    for each in (page, theirs):
        each.wait_for_selector("#live.on")
    assert theirs.locator("#host-settings").is_hidden()  # a player's phone: no host card

    page.click("#host-settings summary")
    expect(page.locator("#rename-name-1")).to_have_value("Berta")
    page.fill("#rename-name-1", "Anna")  # taken: refused, the detail names the seat
    page.click("#rename-1")
    expect(page.locator("#rename-note.error")).to_contain_text("already the name of seat 0")
    expect(page.locator("#rename-note.error[role=alert]")).to_be_in_viewport()
    page.fill("#rename-name-1", "Bertalan")
    page.click("#rename-1")
    expect(page.locator("#rename-note")).to_have_text(
        EN["renamed"].format(old="Berta", name="Bertalan")
    )
    renamed = ["#", "Anna", "Bertalan", "Csaba"]
    expect(page.locator("#sheet thead th")).to_have_text(renamed)
    expect(theirs.locator("#sheet thead th")).to_have_text(renamed, timeout=LIVE_TIMEOUT_MS)

    history = api(server, "GET", f"/v1/matches/{match_id}/history", tokens["viewer"]).json()
    assert [(e["seat"], e["old_name"], e["new_name"]) for e in history["items"]] == [
        (1, "Berta", "Bertalan")
    ]
    for phone in (host, berta):
        phone.check_clean()


def test_the_host_starts_the_rematch_of_an_ended_match(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    created = create(server, {"game": "asszorti", "players": PLAYERS})
    match_id, tokens = created["id"], created["tokens"]
    path = f"/v1/matches/{match_id}"
    for amounts in ([-9, 18, -9], [18, -9, -9]):  # dealt by seats 0 and 1
        body = {"type": "asszorti_amounts", "amounts": amounts}
        assert api(server, "POST", f"{path}/rounds", tokens["host"], json=body).status_code == 201
    assert api(server, "POST", f"{path}/end", tokens["host"]).status_code == 200

    anna = new_phone(phones, browser, server)
    theirs = anna.open(tokens["links"]["players"][0])
    theirs.wait_for_selector("#result:not([hidden])")
    assert theirs.locator("#rematch").count() == 0  # the host starts it

    host = new_phone(phones, browser, server)
    page = host.open(tokens["links"]["host"])
    page.wait_for_selector("#result:not([hidden])")
    expect(page.locator("#rematch")).to_have_text(EN["rematch"])
    page.click("#rematch")
    # As after a create: the new links to hand out, with the new recovery code once.
    page.wait_for_url(re.compile(rf"#/m/(?!{match_id})[0-9a-f]{{32}}/links$"))
    new_id = page.url.rsplit("#/m/", 1)[1].split("/")[0]
    page.click("#show-host-link")
    expect(page.locator(".secret-code")).to_have_count(1)

    old = api(server, "GET", path, tokens["host"]).json()
    assert old["rematch_id"] == new_id
    stored = page.evaluate(f"JSON.parse(localStorage.getItem('squarescores.matches'))['{new_id}']")
    assert stored["role"] == "host" and stored["links"]["players"]
    me = api(server, "GET", f"/v1/matches/{new_id}/me", stored["token"]).json()
    assert me == {"role": "host", "seat": None}
    new = api(server, "GET", f"/v1/matches/{new_id}", stored["token"]).json()
    assert new["rematch_of"] == match_id and new["settings"]["first_dealer"] == 2

    # The new match is open: same players, Csaba (seat 2) deals first.
    page.goto(f"{server.url}/#/m/{new_id}")
    page.wait_for_selector("#live.on")
    expect(page.locator("#sheet thead th")).to_have_text(["#", *PLAYERS])
    expect(page.locator(".status")).to_contain_text(EN["next_dealer"].format(name="Csaba"))

    # The ended match links to its rematch; a player's phone, without its token, is told
    # live that it has started (test_after_the_end.py takes the seat).
    page.goto(f"{server.url}/#/m/{match_id}")
    expect(page.locator("#rematch-link")).to_have_attribute("href", f"#/m/{new_id}")
    assert page.locator("#rematch").count() == 0
    page.click("#rematch-link")
    page.wait_for_url(re.compile(rf"#/m/{new_id}$"))
    expect(theirs.locator("#rematch-note")).to_have_text(
        EN["rematch_started"], timeout=LIVE_TIMEOUT_MS
    )
    for phone in (host, anna):
        phone.check_clean()
