"""The same hand from two phones is stored once unless a person says otherwise (360 px).

- two players' phones tap "Add the round" for the same hand at the same moment, 20
  times over: exactly 20 rounds are stored, and each time the phone that lost the race
  shows what was stored meanwhile, and by whom, at its form and in its viewport, with
  its title still on that hand; dropping its entry (the default) moves the form on;
- a form whose sheet moves on while it holds an entry stops at that number with the
  notice; adding the entry as the next round is its explicit choice; an entry not
  finished yet can be kept for the next round or dropped;
- a round queued offline that meets a stored round like it: the outbox card names that
  round, and its main button drops the queued one;
- a refusal is said at the card whose button caused it, in view, as an alert.
"""

from __future__ import annotations

import json
import time
from typing import Any

from playwright.sync_api import Browser, Page, Route, expect

from tests.browser.pages import Phone, api, create, go_offline, new_phone, rows
from tests.conftest import ROOT
from tests.live import LiveServer

NAMES = ["Anna", "Berta", "Csaba"]
EN = json.loads((ROOT / "app" / "web" / "i18n" / "en.json").read_text())
RACES = 20
SAME = [2, -1, -1]
# Both clicks are set for one instant this far ahead; each page must have been told
# before it comes (asserted), so neither click waits on the other's scheduling.
CLICK_AHEAD_MS = 1500
SEND_TIMEOUT_MS = 15_000

# Schedules a click of the button at the wall-clock instant `at` (both phones run in one
# browser, on one clock) and answers whether it was scheduled before that instant.
CLICK_AT = """([selector, at]) => {
  const button = document.querySelector(selector);
  setTimeout(() => button.click(), at - Date.now());
  return Date.now() < at;
}"""

# Taps the button `ms` after the row is drawn (a person tapping as the deal appears).
TAP_WHEN_DRAWN = """([row, selector, ms]) => {
  const watch = new MutationObserver(() => {
    if (!document.querySelector(row)) return;
    watch.disconnect();
    setTimeout(() => document.querySelector(selector).click(), ms);
  });
  watch.observe(document.body, { childList: true, subtree: true });
}"""
TAP_AFTER_MS = 300


def match_of(server: LiveServer, match_id: str, token: str) -> dict[str, Any]:
    response = api(server, "GET", f"/v1/matches/{match_id}", token)
    assert response.status_code == 200, response.text
    return dict(response.json())


def rounds_of(server: LiveServer, match_id: str, token: str) -> list[dict[str, Any]]:
    response = api(server, "GET", f"/v1/matches/{match_id}/rounds", token)
    assert response.status_code == 200, response.text
    return list(response.json()["items"])


def stored_rounds(
    server: LiveServer, match_id: str, token: str, count: int, page: Page
) -> list[dict[str, Any]]:
    """The rounds once at least `count` are stored (polled: the API is the judge)."""
    deadline = time.monotonic() + SEND_TIMEOUT_MS / 1000
    stored = rounds_of(server, match_id, token)
    while len(stored) < count and time.monotonic() < deadline:
        page.wait_for_timeout(50)
        stored = rounds_of(server, match_id, token)
    assert len(stored) >= count, stored
    return stored


def enter_amounts(page: Page, amounts: list[int]) -> None:
    for seat, amount in enumerate(amounts):
        page.fill(f'input[name="amount{seat}"]', str(amount))


def amounts_in(page: Page) -> list[str]:
    return [page.locator(f'input[name="amount{seat}"]').input_value() for seat in range(3)]


def open_player(phones: list[Phone], browser: Browser, server: LiveServer, link: str) -> Page:
    page = new_phone(phones, browser, server).open(link)
    page.wait_for_selector("#live.on")
    page.wait_for_selector("#amounts")
    return page


def test_two_phones_adding_one_hand_at_once_store_it_once_twenty_times(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    created = create(server, {"game": "asszorti", "players": NAMES})
    match_id, host_token = created["id"], created["tokens"]["host"]
    links = created["tokens"]["links"]["players"]
    pages = [open_player(phones, browser, server, links[seat]) for seat in (0, 1)]
    title = "#hand h2"
    posts: list[int] = []  # the statuses of both phones' POST …/rounds, this race
    for page in pages:
        page.on(
            "response",
            lambda response: (
                posts.append(response.status)
                if response.request.method == "POST" and response.url.endswith("/rounds")
                else None
            ),
        )

    for race in range(1, RACES + 1):
        for page in pages:
            expect(page.locator(title)).to_have_text(EN["enter_hand"].format(n=race))
            enter_amounts(page, SAME)
            page.locator("#add-round").scroll_into_view_if_needed()
        posts.clear()
        at = pages[0].evaluate("() => Date.now()") + CLICK_AHEAD_MS
        assert all(page.evaluate(CLICK_AT, ["#add-round", at]) for page in pages), race

        # The round stored names its phone; the other phone is the one that lost.
        stored = stored_rounds(server, match_id, host_token, race, pages[0])
        winner = int(stored[race - 1]["entered_by"].removeprefix("seat:"))
        loser = pages[1 - winner]
        notice = loser.locator("#same-hand")
        expect(notice).to_be_visible(timeout=SEND_TIMEOUT_MS)
        # Its send, if it made one, is answered by now: the hand is stored once.
        assert match_of(server, match_id, host_token)["round_count"] == race
        # One 201; the loser's send, unless its sheet had moved on first, refused (412).
        assert sorted(posts) in ([201], [201, 412]), posts
        assert [r["input"]["amounts"] for r in rounds_of(server, match_id, host_token)] == [
            SAME
        ] * race

        # At the form it was entered in, said as an alert, and in view once the live
        # redraw of the stored round is in.
        loser.wait_for_selector(f'#sheet tbody tr[data-round="{race}"]')
        expect(loser.locator("#amounts #same-hand[role=alert]")).to_have_count(1)
        expect(notice).to_be_in_viewport()
        # (and not under the bar of totals kept at the bottom of the screen)
        box, bar = notice.bounding_box(), loser.locator("#reach").bounding_box()
        assert box is not None and bar is not None and box["y"] < bar["y"], (box, bar)
        stored_line = EN["clash_stored"].format(
            round=EN["enter_hand"].format(n=race),
            name=NAMES[winner],
            what=EN["amounts_line"].format(amounts="Anna +2, Berta \u22121, Csaba \u22121"),
        )
        expect(notice.locator(".clash-stored")).to_have_text(stored_line)
        expect(notice.locator(".clash-same")).to_have_text(EN["clash_same"])
        # The form did not move on holding the entry it did not send.
        expect(loser.locator(title)).to_have_text(EN["enter_hand"].format(n=race))
        assert amounts_in(loser) == [str(amount) for amount in SAME]

        # Dropping it is the main button; the form then moves on, empty.
        drop = notice.locator("button.clash-drop")
        expect(drop).to_have_text(EN["clash_drop"])
        assert "primary" in (drop.get_attribute("class") or "")
        drop.click()
        expect(notice).to_be_hidden()
        for page in pages:
            expect(page.locator(title)).to_have_text(EN["enter_hand"].format(n=race + 1))
            assert amounts_in(page) == ["", "", ""]

    assert match_of(server, match_id, host_token)["round_count"] == RACES
    sheet = api(server, "GET", f"/v1/matches/{match_id}/sheet", host_token).json()
    for page in pages:
        expect(page.locator("#sheet tbody tr[data-round]")).to_have_count(RACES)
        assert rows(page) == [
            [str(row["number"]), *map(str, row["cells"])] for row in sheet["rows"]
        ]
    for phone in phones:
        phone.check_clean()


def test_an_alkort_points_tap_from_two_phones_is_one_deal(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    """A points button enters a deal in one tap: taps at one instant store one deal,
    and so does a tap that comes just after the other phone's deal showed up (it was
    meant for the sheet before it)."""
    players = ["Anna", "Berta", "Csaba", "Dora"]
    created = create(server, {"game": "alkort", "players": players})
    match_id, host_token = created["id"], created["tokens"]["host"]
    links = created["tokens"]["links"]["players"]
    pages = []
    for seat in (0, 1):
        page = new_phone(phones, browser, server).open(links[seat])
        page.wait_for_selector("#live.on")
        pages.append(page)

    def plus_one(page: Page, team: int) -> Any:
        return page.locator(f'#points button.point[data-team="{team}"][data-points="1"]')

    races = 4
    for race in range(1, races + 1):
        team = race % 2
        for page in pages:
            expect(plus_one(page, team)).to_be_enabled()
            plus_one(page, team).scroll_into_view_if_needed()
        selector = f'#points button.point[data-team="{team}"][data-points="1"]'
        at = pages[0].evaluate("() => Date.now()") + CLICK_AHEAD_MS
        assert all(page.evaluate(CLICK_AT, [selector, at]) for page in pages), race
        stored = stored_rounds(server, match_id, host_token, race, pages[0])
        loser = pages[1 - int(stored[race - 1]["entered_by"].removeprefix("seat:"))]
        notice = loser.locator("#points #same-hand")
        expect(notice).to_be_visible(timeout=SEND_TIMEOUT_MS)
        assert match_of(server, match_id, host_token)["round_count"] == race
        loser.wait_for_selector(f'#sheet tbody tr[data-round="{race}"]')
        expect(notice).to_be_in_viewport()
        expect(notice.locator(".clash-same")).to_have_text(EN["clash_same"])
        notice.locator("button.clash-drop").click()
        expect(notice).to_be_hidden()

    # Anna's deal shows on Berta's phone, and Berta taps the same button as it does
    # (the page taps it itself, a moment after the row is drawn: no test latency).
    for page in pages:
        expect(plus_one(page, 0)).to_be_enabled()
    row = f'#sheet tbody tr[data-round="{races + 1}"]'
    selector = '#points button.point[data-team="0"][data-points="1"]'
    pages[1].evaluate(TAP_WHEN_DRAWN, [row, selector, TAP_AFTER_MS])
    plus_one(pages[0], 0).click()
    pages[1].wait_for_selector(row)
    notice = pages[1].locator("#points #same-hand")
    expect(notice).to_be_visible()
    expect(notice.locator(".clash-stored")).to_contain_text("Anna")
    assert match_of(server, match_id, host_token)["round_count"] == races + 1
    # Meant as a deal of its own after all: one more tap says so.
    add = notice.locator("button.clash-add")
    expect(add).to_have_text(EN["clash_add"].format(round=f"deal {races + 2}"))
    add.click()
    pages[1].wait_for_selector(f'#sheet tbody tr[data-round="{races + 2}"]')
    assert match_of(server, match_id, host_token)["round_count"] == races + 2
    for phone in phones:
        phone.check_clean()


def test_a_form_overtaken_while_held_stops_and_adds_only_when_asked(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    created = create(server, {"game": "asszorti", "players": NAMES})
    match_id, host_token = created["id"], created["tokens"]["host"]
    berta = created["tokens"]["players"][1]
    page = open_player(phones, browser, server, created["tokens"]["links"]["players"][0])
    title = page.locator("#hand h2")

    # Anna types her amounts; Berta's phone stores another round meanwhile.
    enter_amounts(page, [4, -2, -2])
    other = api(
        server,
        "POST",
        f"/v1/matches/{match_id}/rounds",
        berta,
        json={"type": "asszorti_amounts", "amounts": SAME},
    )
    assert other.status_code == 201
    notice = page.locator("#amounts #same-hand")
    expect(notice).to_be_visible()
    expect(notice).to_be_in_viewport()
    expect(notice.locator(".clash-stored")).to_contain_text("Berta")
    expect(notice.locator(".clash-yours")).to_have_text(
        EN["clash_yours"].format(
            what=EN["amounts_line"].format(amounts="Anna +4, Berta \u22122, Csaba \u22122")
        )
    )
    expect(title).to_have_text(EN["enter_hand"].format(n=1))
    shots = ROOT / "build" / "screenshots"
    shots.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(shots / "same-hand.png"))
    # Tapping the form's own button again only shows the notice again: nothing is sent.
    page.click("#add-round")
    expect(notice).to_be_visible()
    assert match_of(server, match_id, host_token)["round_count"] == 1

    # Adding it is the explicit choice, named with the number it gets.
    add = notice.locator("button.clash-add")
    expect(add).to_have_text(EN["clash_add"].format(round="hand 2"))
    add.click()
    page.wait_for_selector('#sheet tbody tr[data-round="2"]')
    stored = rounds_of(server, match_id, host_token)
    assert [(r["input"]["amounts"], r["entered_by"]) for r in stored] == [
        (SAME, "seat:1"),
        ([4, -2, -2], "seat:0"),
    ]
    expect(title).to_have_text(EN["enter_hand"].format(n=3))
    expect(notice).to_be_hidden()

    # An entry not finished yet (a declarer chosen): keep it for the next hand, or drop it.
    page.click('button.choice[data-field="declarer"][data-value="2"]')
    for amounts in ([-2, 4, -2], [-2, -2, 4]):
        entered = api(
            server,
            "POST",
            f"/v1/matches/{match_id}/rounds",
            berta,
            json={"type": "asszorti_amounts", "amounts": amounts},
        )
        assert entered.status_code == 201
        expect(page.locator("#hand #same-hand")).to_be_visible()
        expect(page.locator("#hand #same-hand .clash-yours")).to_have_count(0)
        number = entered.json()["number"]
        expect(title).to_have_text(EN["enter_hand"].format(n=number))
        if number == 3:
            keep = page.locator("#hand #same-hand button.clash-add")
            expect(keep).to_have_text(EN["clash_keep"].format(round="hand 4"))
            keep.click()
            expect(title).to_have_text(EN["enter_hand"].format(n=4))
            declarer = page.locator('button.choice[data-field="declarer"][data-value="2"]')
            expect(declarer).to_have_attribute("aria-checked", "true")
        else:
            page.locator("#hand #same-hand button.clash-drop").click()
            expect(title).to_have_text(EN["enter_hand"].format(n=5))
            expect(
                page.locator('button.choice[data-field="declarer"][aria-checked="true"]')
            ).to_have_count(0)
    assert match_of(server, match_id, host_token)["round_count"] == 4
    phones[0].check_clean()


def test_a_queued_round_like_a_stored_one_names_it_and_drops_first(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    created = create(server, {"game": "asszorti", "players": NAMES})
    match_id, host_token = created["id"], created["tokens"]["host"]
    player = new_phone(phones, browser, server)
    page = player.open(created["tokens"]["links"]["players"][0])
    page.wait_for_selector("#live.on")

    go_offline(player.context, page)
    enter_amounts(page, SAME)
    page.click("#add-round")
    held = page.locator("#outbox li.outbox-item")
    expect(held).to_have_attribute("data-state", "pending")
    other = api(
        server,
        "POST",
        f"/v1/matches/{match_id}/rounds",
        created["tokens"]["players"][2],
        json={"type": "asszorti_amounts", "amounts": SAME},
    )
    assert other.status_code == 201
    player.context.set_offline(False)
    expect(held).to_have_attribute("data-state", "conflict", timeout=SEND_TIMEOUT_MS)
    expect(held.locator(".outbox-same")).to_have_text(
        EN["outbox_same"].format(round=EN["enter_hand"].format(n=1), name="Csaba")
    )
    buttons = held.locator(".actions button")
    expect(buttons).to_have_text([EN["outbox_discard"], EN["outbox_add_new"]])
    assert "primary" in (buttons.first.get_attribute("class") or "")
    assert "primary" not in (buttons.last.get_attribute("class") or "")
    buttons.first.click()
    expect(page.locator("#outbox")).to_be_hidden()
    expect(page.locator("#hand h2")).to_have_text(EN["enter_hand"].format(n=2))
    assert match_of(server, match_id, host_token)["round_count"] == 1
    player.check_clean()


def test_a_stale_sheet_with_no_round_meanwhile_keeps_the_entry_at_its_number(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    """A 412 that no round caused (the host renamed a player just before the round
    reached the server): no notice; the refusal at the card, the entry and its number
    kept, and the next tap stores it."""
    created = create(server, {"game": "asszorti", "players": NAMES})
    match_id, host_token = created["id"], created["tokens"]["host"]
    player = new_phone(phones, browser, server)
    page = player.open(created["tokens"]["links"]["players"][0])
    page.wait_for_selector("#live.on")
    renames: list[int] = []

    def rename_first(route: Route) -> None:
        # The first round on its way: the host renames Csaba before it arrives.
        if route.request.method == "POST" and not renames:
            renamed = api(
                server,
                "PATCH",
                f"/v1/matches/{match_id}/players/2",
                host_token,
                json={"name": "Cili"},
            )
            renames.append(renamed.status_code)
        route.fallback()

    page.route(f"**/v1/matches/{match_id}/rounds", rename_first)
    enter_amounts(page, [4, -2, -2])
    page.click("#add-round")
    message = page.locator("#amounts #message[role=alert]")
    expect(message.locator(".problem-text")).to_have_text(
        f"{EN['problem_precondition_failed']}. {EN['hint_precondition_failed']}"
    )
    expect(message).to_be_in_viewport()
    expect(page.locator("#same-hand")).to_have_count(0)
    expect(page.locator("#hand h2")).to_have_text(EN["enter_hand"].format(n=1))
    assert amounts_in(page) == ["4", "-2", "-2"]
    assert renames == [200]
    assert match_of(server, match_id, host_token)["round_count"] == 0
    page.click("#add-round")
    page.wait_for_selector('#sheet tbody tr[data-round="1"]')
    assert [r["input"]["amounts"] for r in rounds_of(server, match_id, host_token)] == [[4, -2, -2]]
    player.check_clean()


def test_a_refusal_is_said_at_the_card_that_caused_it_in_view(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    created = create(server, {"game": "asszorti", "players": NAMES})
    player = new_phone(phones, browser, server)
    page = player.open(created["tokens"]["links"]["players"][0])
    page.wait_for_selector("#amounts")
    page.evaluate("() => window.scrollTo(0, 0)")

    # An odd total in the amounts card (the server's 422): said under its button.
    enter_amounts(page, [3, -1, -2])
    page.click("#add-round")
    message = page.locator("#amounts #message[role=alert]")
    expect(message).to_be_visible()
    expect(message.locator(".problem-text")).to_have_text(
        f"{EN['problem_field_amounts']}. {EN['hint_validation_error']}"
    )
    expect(message).to_be_in_viewport()

    # A hand not filled in: said in the hand card, which is where the page then is.
    page.evaluate("() => window.scrollTo(0, 0)")
    page.click("#add-hand")
    message = page.locator("#hand #message[role=alert]")
    expect(message).to_have_text(EN["missing_declarer"])
    expect(message).to_be_in_viewport()
    expect(page.locator("#amounts #message")).to_have_count(0)
    player.check_clean()
