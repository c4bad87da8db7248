"""Keys a table can keep (issue #39): the recovery code as a step of its own when a table
starts, with Copy and Share; the host sees it again from the links card; a wrong code
is said to be wrong; a phone whose host key was replaced says so at once and offers the
recovery; a recovered host is the host everywhere: the links card (the code, a new link
for a seat) and the rematch.

The browser and the server are ``tests/browser/conftest.py``'s; phones at 360 px.
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
NAMES = ["Anna", "Berta", "Csaba"]

# Share and Copy, recorded instead of reaching the phone's share sheet and clipboard.
HAND_OVER = """
window.handedOver = [];
navigator.share = async (data) => { window.handedOver.push({ share: data.text }); };
Object.defineProperty(navigator, "clipboard", {
  value: { writeText: async (text) => { window.handedOver.push({ copy: text }); } },
});
"""


def _stored(page: Page, match_id: str) -> Any:
    return page.evaluate(f"JSON.parse(localStorage.getItem('squarescores.matches'))['{match_id}']")


def _recover(server: LiveServer, match_id: str, code: str) -> dict[str, Any]:
    body = {"recovery_code": code}
    answer = api(server, "POST", f"/v1/matches/{match_id}/recover", json=body)
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


def test_a_new_table_shows_its_recovery_code_first_and_the_links_card_shows_it_again(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    phone = new_phone(phones, browser, server)
    phone.context.add_init_script(HAND_OVER)
    page = phone.open("/")
    page.wait_for_selector("#start")
    for seat, name in enumerate(NAMES):
        page.locator("input.player-name").nth(seat).fill(name)
    page.click("#create")

    # A step of its own, before the links, in view: the code, Copy and Share.
    step = page.locator("#recovery-step")
    expect(step.locator("h2")).to_have_text(EN["recovery_step_title"])
    expect(step).to_be_in_viewport()
    assert page.evaluate(
        "document.querySelector('#recovery-step').compareDocumentPosition("
        "document.querySelector('#links')) & Node.DOCUMENT_POSITION_FOLLOWING"
    )
    code = page.locator("#recovery-code").inner_text()
    match_id = page.url.split("#/m/")[1].split("/")[0]
    host = _stored(page, match_id)["token"]
    shown = api(server, "GET", f"/v1/matches/{match_id}/recovery", host).json()
    assert shown == {"recovery_code": code}
    page.click("#recovery-code-copy")
    expect(step.locator(".copied")).to_have_text(EN["link_copied"])
    page.click("#recovery-code-share")
    assert page.evaluate("window.handedOver") == [{"copy": code}, {"share": code}]

    # Later, from the links card under the sheet, with the host key.
    page.click("#open-sheet")
    page.wait_for_selector("#live.on")
    expect(page.locator("#recovery-step")).to_have_count(0)
    page.click("#links summary")
    page.click("#show-recovery")
    expect(page.locator("#recovery-code-again")).to_have_text(code)
    expect(page.locator("#recovery-again .copy-code")).to_be_visible()
    phone.check_clean()


def test_a_wrong_code_is_said_to_be_wrong(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    created = create(server, {"game": "asszorti", "players": NAMES})
    phone = new_phone(phones, browser, server)
    page = phone.open(created["tokens"]["links"]["players"][0])
    page.wait_for_selector("#live.on")
    page.click("#recover summary")
    page.fill("#recovery-input", "not-the-code")
    page.click("#recover-submit")
    expect(page.locator("#recover-note.error")).to_have_text(EN["recover_wrong"])
    # Said as an alert, in view at the button that sent the code.
    expect(page.locator("#recover-note")).to_have_attribute("role", "alert")
    expect(page.locator("#recover-note")).to_be_in_viewport()
    phone.check_clean()


def test_a_replaced_host_key_says_so_at_once_and_offers_recovery(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    created = create(server, {"game": "asszorti", "players": NAMES})
    match_id, tokens = created["id"], created["tokens"]
    phone = new_phone(phones, browser, server)
    page = phone.open(tokens["links"]["host"])
    page.wait_for_selector("#live.on")

    taken = _recover(server, match_id, tokens["recovery"])  # on another phone
    message = page.locator("#message")
    expect(message).to_have_text(EN["host_key_replaced"], timeout=LIVE_TIMEOUT_MS)
    expect(message).to_be_in_viewport()
    expect(page.locator("#recover[open] #recovery-input")).to_be_visible()
    expect(page.locator("#live")).to_be_hidden()  # no "Reconnecting…": nothing to wait for

    # Opened again, the phone says so at once too.
    page.reload()
    expect(message).to_have_text(EN["host_key_replaced"], timeout=LIVE_TIMEOUT_MS)
    expect(page.locator("#recover[open] #recovery-input")).to_be_visible()

    # The code the other phone was given takes the key back here.
    page.fill("#recovery-input", taken["recovery"])
    page.click("#recover-submit")
    page.click("#recover-continue")
    page.wait_for_selector("#live.on")
    expect(page.locator("#host-settings")).to_be_visible()
    expect(message).to_be_hidden()
    phone.check_clean()


def test_a_recovered_host_is_the_host_for_the_links_and_the_rematch(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    created = create(server, {"game": "asszorti", "players": NAMES})
    match_id, tokens = created["id"], created["tokens"]
    # The host's phone is lost; the host recovers on a phone that holds a player's link.
    phone = new_phone(phones, browser, server)
    page = phone.open(tokens["links"]["players"][1])
    page.wait_for_selector("#live.on")
    page.click("#recover summary")
    page.fill("#recovery-input", tokens["recovery"])
    page.click("#recover-submit")
    new_code = page.locator("#new-recovery-code").inner_text()
    page.click("#recover-continue")
    page.wait_for_selector("#live.on")

    # The links card is the host's: the code again (the new one), the links' whereabouts.
    page.click("#links summary")
    expect(page.locator("#links-elsewhere")).to_have_text(EN["links_elsewhere"])
    page.click("#show-recovery")
    expect(page.locator("#recovery-code-again")).to_have_text(new_code)
    # A new link for Csaba, once the host says yes: his old one stops working.
    new_link = page.locator('#links button.new-link[data-role="player"][data-seat="2"]')
    new_link.click()
    page.click("#confirm-no")
    expect(page.locator('#links a.join-link[data-seat="2"]')).to_have_count(0)
    assert api(server, "GET", f"/v1/matches/{match_id}/me", tokens["players"][2]).status_code == 200
    new_link.click()
    page.click("#confirm-yes")
    link = page.locator('#links a.join-link[data-role="player"][data-seat="2"]')
    expect(link).to_have_count(1)
    token = str(link.get_attribute("href")).split("?t=", 1)[1]
    me = api(server, "GET", f"/v1/matches/{match_id}/me", token).json()
    assert me == {"role": "player", "seat": 2}
    assert api(server, "GET", f"/v1/matches/{match_id}/me", tokens["players"][2]).status_code == 401
    page.reload()  # the link made here is kept on this phone
    page.click("#links summary")
    expect(page.locator('#links a.join-link[data-seat="2"]')).to_have_attribute(
        "href", re.compile(re.escape(token) + "$")
    )
    expect(page.locator('#links button.new-link[data-role="viewer"]')).to_have_count(1)

    # The rematch: started from this phone, which is its host, with its links.
    page.click("#end")
    page.click("#confirm-yes")
    page.click("#rematch")
    page.wait_for_url(re.compile(rf"#/m/(?!{match_id})[0-9a-f]{{32}}/links$"))
    new_id = page.url.rsplit("#/m/", 1)[1].split("/")[0]
    expect(page.locator("#recovery-step")).to_be_visible()
    expect(page.locator("#links a.join-link")).to_have_count(4)
    stored = _stored(page, new_id)
    me = api(server, "GET", f"/v1/matches/{new_id}/me", stored["token"]).json()
    assert me == {"role": "host", "seat": None}
    phone.check_clean()


def test_a_host_recovered_on_the_ended_match_takes_the_host_seat_in_its_rematch(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    created = create(server, {"game": "asszorti", "players": NAMES})
    match_id, tokens = created["id"], created["tokens"]
    path = f"/v1/matches/{match_id}"
    assert api(server, "POST", f"{path}/end", tokens["host"]).status_code == 200
    # The lost phone started the rematch; the host kept only the ended match's code.
    started = api(server, "POST", f"{path}/rematch", tokens["host"])
    assert started.status_code == 201
    new_id = started.json()["id"]
    phone = new_phone(phones, browser, server)
    page = phone.open(tokens["links"]["players"][0])
    page.wait_for_selector("#result:not([hidden])")
    page.click("#recover summary")
    page.fill("#recovery-input", tokens["recovery"])
    page.click("#recover-submit")
    page.click("#recover-continue")
    take = page.locator("#rematch-take")
    expect(take).to_have_text(EN["rematch_take_host"])
    take.click()
    page.wait_for_url(re.compile(rf"#/m/{new_id}$"))
    page.wait_for_selector("#live.on")
    expect(page.locator("#host-settings")).to_be_visible()
    stored = _stored(page, new_id)
    me = api(server, "GET", f"/v1/matches/{new_id}/me", stored["token"]).json()
    assert me == {"role": "host", "seat": None}
    # Its links card: a new link for each seat, made with the host key it took.
    page.click("#links summary")
    expect(page.locator("#links button.new-link")).to_have_count(4)
    phone.check_clean()
