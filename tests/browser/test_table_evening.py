"""A whole evening at the table on the web page (app/web): hands entered as the table
speaks them, with the match's preview; Alkort by tapping tricks; whose deal it is;
corrections with their history; undo; rounds entered offline and sent once; a viewer;
a link the host re-issued.

As in ``test_table_page.py``: a real ``uvicorn app.main:app`` serves the page, and
headless Chromium (Debian's ``chromium``, driven by Playwright) opens it as phones
would, each phone a browser context of its own; every request that tries to leave the
server's origin is aborted and recorded. What the page shows is checked against the
API. The browser and the server are ``tests/browser/conftest.py``'s.
"""

from __future__ import annotations

import json
from typing import Any

from playwright.sync_api import Browser, Page, expect

from tests.browser.pages import LIVE_TIMEOUT_MS, Phone, api, create, new_phone, rows
from tests.conftest import ROOT
from tests.live import LiveServer

SEND_TIMEOUT_MS = 10_000  # a round kept offline is sent this soon after the connection returns
EN = json.loads((ROOT / "app" / "web" / "i18n" / "en.json").read_text())
NAMES = ["Anna", "Berta", "Csaba"]
OUTBOX = "squarescores.outbox"
MINUS, EN_DASH = "\u2212", "\u2013"  # as the page writes nets and tricks
# The server gets each new round, but the page never gets the answer (until a reload).
LOSE_ROUND_ANSWERS = """() => {
  const real = window.fetch;
  window.fetch = async (input, init) => {
    const response = await real(input, init);
    if (init && init.method === "POST" && String(input).endsWith("/rounds")) {
      throw new TypeError("Failed to fetch (the answer was lost)");
    }
    return response;
  };
}"""


# ---- the API, to set up and to check what the page shows --------------------------


def get_match(server: LiveServer, match_id: str, token: str) -> dict[str, Any]:
    response = api(server, "GET", f"/v1/matches/{match_id}", token)
    assert response.status_code == 200, response.text
    return response.json()


def headings(match: dict[str, Any], sheet: dict[str, Any]) -> list[str]:
    """The sheet's column headings as the page writes them (English): the API's columns,
    but teams counted from 1 (or named) with their players."""
    if not match["teams"]:
        return list(sheet["columns"])
    names = [player["name"] for player in match["players"]]
    labels = [team["name"] or f"Team {team['team'] + 1}" for team in match["teams"]]
    return [
        f"{label}: " + " & ".join(names[seat] for seat in team["seats"])
        for label, team in zip(labels, match["teams"], strict=True)
    ]


def assert_sheet_as_api(page: Page, server: LiveServer, match_id: str, token: str) -> None:
    """The page's sheet is the API's: every row, the totals and (Asszorti) the owed row."""
    sheet = api(server, "GET", f"/v1/matches/{match_id}/sheet", token).json()
    assert page.locator("#sheet thead th").all_inner_texts()[1:] == headings(
        get_match(server, match_id, token), sheet
    )
    assert rows(page) == [[str(row["number"]), *map(str, row["cells"])] for row in sheet["rows"]]
    totals = page.locator("#sheet tfoot tr.totals td").all_inner_texts()
    assert totals == [str(total) for total in sheet["totals"]]
    if sheet["owed"] is not None:
        owed = page.locator("#sheet tfoot tr.owed td").all_inner_texts()
        assert owed == [str(each) for each in sheet["owed"]]


def row(page: Page, number: int) -> str:
    return f'#sheet tbody tr[data-round="{number}"]'


def wait_live(page: Page) -> None:
    page.wait_for_selector("#live.on")


# ---- entering on the page ---------------------------------------------------------


def choose(page: Page, field: str, value: str | int) -> None:
    page.click(f'button.choice[data-field="{field}"][data-value="{value}"]')


def enter_hand(
    page: Page,
    *,
    declarer: int,
    contract: str,
    trumps: str,
    tricks: dict[int, int],
    kontra: str | None = None,
    arrivazs: dict[str, str] | None = None,
) -> None:
    """Fill the hand form as the table says it: two players' tricks, the third follows."""
    choose(page, "declarer", declarer)
    choose(page, "contract", contract)
    choose(page, "trumps", trumps)
    assert len(tricks) == 2
    for seat, taken in tricks.items():
        page.fill(f'input[name="tricks{seat}"]', str(taken))
    third = next(seat for seat in range(3) if seat not in tricks)
    expect(page.locator(f'input[name="tricks{third}"]')).to_have_value(
        str(11 - sum(tricks.values()))
    )
    if kontra:
        choose(page, "kontra", kontra)
    if arrivazs:
        page.check("#arrivazs")
        choose(page, "arrivazs_won", arrivazs["won"])
        choose(page, "arrivazs_kind", arrivazs.get("kind", "own"))
        choose(page, "arrivazs_kontra", arrivazs.get("kontra", "none"))


def signed(amount: int) -> str:
    """An amount as the page shows it: +18, \u221218 (a minus sign), 0."""
    return f"+{amount}" if amount > 0 else f"{MINUS}{-amount}" if amount < 0 else "0"


def tricks_text(*tricks: int) -> str:
    return "tricks " + EN_DASH.join(map(str, tricks))


def expect_preview(page: Page, nets: list[int]) -> None:
    """The match's preview shows each seat's net before the hand is saved."""
    preview = page.locator("#hand-preview")
    expect(preview.locator(".preview-title")).to_have_text(EN["preview_title"])
    for seat, net in enumerate(nets):
        item = preview.locator(f'li.net[data-seat="{seat}"]')
        expect(item.locator("strong")).to_have_text(signed(net))
        expect(item.locator(".who")).to_have_text(NAMES[seat])


def enter_amounts(page: Page, amounts: list[int]) -> None:
    for seat, amount in enumerate(amounts):
        page.fill(f'input[name="amount{seat}"]', str(amount))


def tap(page: Page, tricks: list[int]) -> None:
    for team in tricks:
        page.click(f'button.take[data-team="{team}"]')


def outbox(page: Page) -> dict[str, Any]:
    return json.loads(page.evaluate(f"localStorage.getItem('{OUTBOX}') || '{{}}'"))


# ---- (a) an Asszorti evening on two phones ------------------------------------------


def test_an_asszorti_evening_on_two_phones(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    created = create(server, {"game": "asszorti", "players": NAMES})
    match_id, host_token = created["id"], created["tokens"]["host"]
    links = created["tokens"]["links"]

    host = new_phone(phones, browser, server)
    ours = host.open(links["host"])
    player = new_phone(phones, browser, server)  # Berta's phone
    theirs = player.open(links["players"][1])
    for page in (ours, theirs):
        page.wait_for_selector("#hand")
        wait_live(page)
        expect(page.locator("#dealer-line")).to_have_text("Anna deals.")  # first_dealer 0

    # Hand 1, on the host's phone: Berta declares 1 in diamonds and takes 7, Anna 2.
    expect(ours.locator("#hand h2")).to_have_text("Hand 1")
    enter_hand(ours, declarer=1, contract="1", trumps="diamonds", tricks={0: 2, 1: 7})
    expect_preview(ours, [-9, 18, -9])
    ours.click("#add-hand")
    theirs.wait_for_selector(row(theirs, 1), timeout=LIVE_TIMEOUT_MS)
    assert rows(theirs) == [["1", "0", "18", "0"]]
    expect(theirs.locator("#dealer-line")).to_have_text("Berta deals.")
    # The host's form is empty again, for the next hand.
    expect(ours.locator('button.choice[aria-checked="true"][data-field="declarer"]')).to_have_count(
        0
    )

    # Hand 2, on Berta's phone: Anna, 3 in hearts, 6:3:2, a won idegen arrivázs with kontra.
    enter_hand(
        theirs,
        declarer=0,
        contract="3",
        trumps="hearts",
        tricks={0: 6, 1: 3},
        arrivazs={"won": "won", "kind": "idegen", "kontra": "kontra"},
    )
    expect_preview(theirs, [68, -34, -34])
    theirs.click("#add-hand")
    ours.wait_for_selector(row(ours, 2), timeout=LIVE_TIMEOUT_MS)
    assert rows(ours)[1] == ["2", "59", "0", "0"]

    # Hand 3, on the host's phone: Csaba, 2 in spades, 6 tricks (5:0:6), rekontra.
    enter_hand(
        ours, declarer=2, contract="2", trumps="spades", tricks={0: 5, 2: 6}, kontra="rekontra"
    )
    expect_preview(ours, [-12, -12, 24])
    ours.click("#add-hand")
    theirs.wait_for_selector(row(theirs, 3), timeout=LIVE_TIMEOUT_MS)
    expect(theirs.locator("#dealer-line")).to_have_text("Anna deals.")  # round 4: seat 0 again

    # Hand 4, on Berta's phone, as the amounts the table worked out (one typed, two follow).
    theirs.fill('input[name="amount1"]', "40")
    expect(theirs.locator('input[name="amount0"]')).to_have_value("-20")
    theirs.click("#add-round")
    ours.wait_for_selector(row(ours, 4), timeout=LIVE_TIMEOUT_MS)
    assert_sheet_as_api(ours, server, match_id, host_token)

    # A correction: hand 1 was really contract 2. Berta opens it from the sheet.
    theirs.click('#sheet button.round-open[data-round="1"]')
    panel = theirs.locator("#round-panel")
    expect(panel.locator("#round-input")).to_have_text(
        "Berta: contract 1, ♦ Diamonds, " + tricks_text(2, 7, 2)
    )
    expect(panel.locator("#round-meta")).to_have_text("Dealt by Anna; entered by the host.")
    expect(panel.locator("#round-history li")).to_have_count(1)
    theirs.click("#round-correct")
    expect(theirs.locator("#hand h2")).to_have_text("Correct round 1")
    expect(theirs.locator("#dealer-line")).to_have_text("Dealt by Anna.")
    expect(
        theirs.locator('button.choice[data-field="contract"][data-value="1"]')
    ).to_have_attribute("aria-checked", "true")
    expect(theirs.locator('input[name="tricks1"]')).to_have_value("7")
    choose(theirs, "contract", "2")
    expect_preview(theirs, [-6, 12, -6])
    expect(theirs.locator("#add-hand")).to_have_text("Save the correction")
    # Meanwhile the host changes a setting: the correction was opened on an older sheet,
    # so it is refused (If-Match), with what to do; saved again, it is taken.
    patched = api(
        server,
        "PATCH",
        f"/v1/matches/{match_id}",
        host_token,
        json={"settings": {"planned_deals": 99}},
    )
    assert patched.status_code == 200
    theirs.click("#add-hand")
    expect(theirs.locator("#message")).to_contain_text(EN["hint_precondition_failed"])
    assert rows(ours)[0] == ["1", "0", "18", "0"]  # nothing written
    expect(theirs.locator("#hand h2")).to_have_text("Correct round 1")  # still as typed
    expect(theirs.locator('input[name="tricks1"]')).to_have_value("7")
    theirs.click("#add-hand")
    expect(ours.locator(row(ours, 1) + " td .cell-value")).to_have_text(
        ["0", "12", "0"], timeout=LIVE_TIMEOUT_MS
    )
    expect(theirs.locator("#hand h2")).to_have_text("Hand 5")  # back to the next hand
    expect(theirs.locator("#cancel-edit")).to_be_hidden()
    expect(theirs.locator("#message")).to_be_hidden()
    # Its history, on the page and in the API: who changed what.
    history = panel.locator("#round-history li")
    expect(history).to_have_count(2)
    expect(history.nth(0).locator(".history-who")).to_contain_text("Entered by the host")
    expect(history.nth(1).locator(".history-who")).to_contain_text("Corrected by Berta")
    expect(history.nth(1).locator(".history-input")).to_have_text(
        "Berta: contract 2, ♦ Diamonds, " + tricks_text(2, 7, 2)
    )
    revisions = api(server, "GET", f"/v1/matches/{match_id}/rounds/1/history", host_token).json()
    assert [(item["action"], item["by"]) for item in revisions["items"]] == [
        ("entered", "host"),
        ("corrected", "seat:1"),
    ]
    assert revisions["items"][1]["input"]["contract"] == "2"

    # Undo the last round, on the host's phone.
    ours.click("#undo")
    ours.click("#confirm-yes")  # Undo asks first
    theirs.wait_for_selector(row(theirs, 4), state="detached", timeout=LIVE_TIMEOUT_MS)
    for page in (ours, theirs):
        expect(page.locator("#sheet tbody tr")).to_have_count(3)
        assert_sheet_as_api(page, server, match_id, host_token)
    # The entry is usable again after the undo (which disabled the controls meanwhile).
    expect(ours.locator('button.choice[data-field="declarer"]').first).to_be_enabled()
    expect(ours.locator("#add-hand")).to_be_enabled()
    expect(ours.locator("#hand h2")).to_have_text("Hand 4")

    # End the match (two taps); the settlement brings every seat to its net.
    ours.click("#end")
    ours.click("#confirm-yes")
    for page in (ours, theirs):
        expect(page.locator(".status.ended")).to_have_count(1, timeout=LIVE_TIMEOUT_MS)
        expect(page.locator("#hand, #amounts, #undo, #end")).to_have_count(0)
        assert_sheet_as_api(page, server, match_id, host_token)
    match = get_match(server, match_id, host_token)
    sheet = api(server, "GET", f"/v1/matches/{match_id}/sheet", host_token).json()
    assert match["status"] == "ended"
    assert match["net"] == [50, -34, -16]  # 1: -6 +12 -6, 2: +68 -34 -34, 3: -12 -12 +24
    assert [t - o for t, o in zip(sheet["totals"], sheet["owed"], strict=True)] == match["net"]
    balance = [0, 0, 0]
    for payment in sheet["settlement"]:
        balance[payment["payer"]] -= payment["amount"]
        balance[payment["payee"]] += payment["amount"]
    assert balance == match["net"]
    assert match["settlement"] == sheet["settlement"]
    expect(ours.locator("#settlement li")).to_have_count(len(sheet["settlement"]))
    host.check_clean()
    player.check_clean()


# ---- (b) Alkort by tapping tricks -----------------------------------------------------


def test_an_alkort_evening_by_tapping_tricks(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    created = create(
        server,
        {
            "game": "alkort",
            "players": ["Anna", "Bela", "Cili", "Dani"],
            "team_names": ["Us", "Them"],
            "settings": {"first_dealer": 2},
        },
    )
    match_id, host_token = created["id"], created["tokens"]["host"]
    host = new_phone(phones, browser, server)
    page = host.open(created["tokens"]["links"]["host"])
    page.wait_for_selector("#tricks")
    wait_live(page)
    expect(page.locator("#dealer-line")).to_have_text("Cili deals.")
    expect(page.locator("#tricks h2")).to_have_text("Deal 1")
    expect(page.locator('button.take[data-team="0"]')).to_have_text("Us: Anna & Cili")
    save = page.locator("#add-deal")
    result = page.locator("#trick-result")

    # Deal 1: Us take the first six; the run of six is unbroken, so not settled yet.
    tap(page, [0, 0, 0, 0, 0, 0])
    expect(page.locator("#trick-prompt")).to_have_text("Trick 7: who took it?")
    expect(save).to_be_disabled()
    tap(page, [1])  # broken after six: a stroke of six
    expect(page.locator("#trick-prompt")).to_have_text(EN["trick_settled"])
    expect(page.locator("button.take")).to_have_count(2)
    for team in (0, 1):
        expect(page.locator(f'button.take[data-team="{team}"]')).to_be_disabled()
    expect(result).to_have_text("A stroke of 6: 6 to Us")
    expect(save).to_be_enabled()
    save.click()
    page.wait_for_selector(row(page, 1))
    assert rows(page) == [["1", "6", "0"]]
    expect(page.locator("#trick-list li")).to_have_count(0)
    expect(page.locator("#dealer-line")).to_have_text("Dani deals.")

    # Deal 2: Them take five, then Us one: a múk (after tapping one back and again).
    tap(page, [1, 1, 1, 1, 1, 0])
    expect(result).to_have_text("Múk: 5 to Them")
    page.click("#trick-back")
    expect(page.locator('button.take[data-team="0"]')).to_be_enabled()
    expect(save).to_be_disabled()
    tap(page, [0])
    expect(result).to_have_text("Múk: 5 to Them")
    save.click()
    page.wait_for_selector(row(page, 2))

    # Deal 3: alternating, Them lead: only the ninth trick settles it, a plain win.
    tap(page, [1, 0, 1, 0, 1, 0, 1, 0])
    expect(save).to_be_disabled()
    tap(page, [1])
    expect(result).to_have_text("A plain win: 1 to Them")
    save.click()
    page.wait_for_selector(row(page, 3))
    expect(page.locator("#dealer-line")).to_have_text("Bela deals.")  # (2 + 3) mod 4
    assert_sheet_as_api(page, server, match_id, host_token)  # 6 to 6

    # The target moves to 7 (the host's settings card; settings.js).
    page.locator("#host-settings summary").click()
    page.fill("#host-target", "7")
    page.click("#save-settings")
    expect(page.locator("#settings-note")).not_to_be_empty()
    assert get_match(server, match_id, host_token)["settings"]["target"] == 7

    # Deal 4: a múk for Us takes them to 11: the match is decided.
    tap(page, [0, 0, 0, 0, 0, 1])
    expect(result).to_have_text("Múk: 5 to Us")
    save.click()
    expect(page.locator(".status.decided")).to_have_count(1)
    expect(page.locator("#tricks, #points")).to_have_count(0)  # no new round when decided
    match = get_match(server, match_id, host_token)
    assert (match["status"], match["winner"]["team"], match["totals"]) == ("decided", 0, [11, 6])

    # A correction that would decide it earlier is refused, with the rule explained.
    page.click('#sheet button.round-open[data-round="3"]')
    expect(page.locator("#round-input")).to_have_text(
        "Tricks: Them, Us, Them, Us, Them, Us, Them, Us, Them"
    )
    page.click("#round-correct")
    expect(page.locator("#tricks h2")).to_have_text("Correct round 3")
    expect(page.locator("#trick-list li")).to_have_count(9)  # the deal as it was tapped
    page.click("#trick-clear")
    tap(page, [1] * 9)
    expect(result).to_have_text("A stroke of 9: 9 to Them")
    save.click()
    message = page.locator("#message")
    expect(message).to_be_visible()
    expect(message).to_contain_text(EN["hint_correction_conflict"])
    problem = api(
        server,
        "PUT",
        f"/v1/matches/{match_id}/rounds/3",
        host_token,
        json={"type": "alkort_tricks", "tricks": [1] * 9},
    ).json()
    assert problem["code"] == "correction_conflict"
    assert message.locator(".problem-text").inner_text() == (
        f"{EN['problem_correction_conflict']}. {EN['hint_correction_conflict']}"
    )
    assert problem["detail"] in message.locator(".problem-detail").inner_text()
    assert get_match(server, match_id, host_token)["totals"] == [11, 6]

    # One that leaves the decision where it was is taken: deal 2 was a plain win.
    page.click("#cancel-edit")
    page.click('#sheet button.round-open[data-round="2"]')
    page.click("#round-correct")
    expect(page.locator("#points")).to_have_class("card entry editing")
    page.click('button.point[data-team="1"][data-points="1"]')
    expect(page.locator(row(page, 2) + " td")).to_have_text(["0", "1"])
    expect(page.locator("#tricks, #points")).to_have_count(0)  # decided: no entry left
    expect(page.locator("#round-history li")).to_have_count(2)
    assert_sheet_as_api(page, server, match_id, host_token)
    page.click("#end")
    page.click("#confirm-yes")
    expect(page.locator(".status.ended")).to_have_count(1)
    host.check_clean()


# ---- (c) offline at the table -------------------------------------------------------


def test_a_hand_entered_offline_is_kept_and_stored_once(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    created = create(server, {"game": "asszorti", "players": NAMES})
    match_id, host_token = created["id"], created["tokens"]["host"]
    player = new_phone(phones, browser, server)
    page = player.open(created["tokens"]["links"]["players"][0])
    page.wait_for_selector("#hand")
    wait_live(page)

    def round_count() -> int:
        return int(get_match(server, match_id, host_token)["round_count"])

    # Offline: the hand is kept on the phone, shown as waiting.
    player.context.set_offline(True)
    page.wait_for_function("!navigator.onLine")
    expect(page.locator("#offline-note")).to_have_text(EN["offline_note"])
    enter_hand(page, declarer=0, contract="1", trumps="diamonds", tricks={0: 7, 1: 2})
    expect(page.locator("#hand-preview")).to_have_text(EN["preview_offline"])
    page.click("#add-hand")
    waiting = page.locator("#outbox li.outbox-item")
    expect(waiting).to_have_count(1)
    expect(waiting).to_have_attribute("data-state", "pending")
    expect(waiting.locator(".outbox-input")).to_have_text(
        "Anna: contract 1, ♦ Diamonds, " + tricks_text(7, 2, 2)
    )
    kept = outbox(page)[match_id]
    assert len(kept) == 1 and kept[0]["body"]["tricks"] == [7, 2, 2]
    key = kept[0]["key"]
    assert round_count() == 0

    # Back online: it is sent, with the key it was kept with, and stored once.
    sent_keys: list[str] = []
    page.on(
        "request",
        lambda request: (
            sent_keys.append(request.headers.get("idempotency-key", ""))
            if request.method == "POST" and request.url.endswith("/rounds")
            else None
        ),
    )
    player.context.set_offline(False)
    page.wait_for_selector(row(page, 1), timeout=SEND_TIMEOUT_MS)
    expect(page.locator("#outbox")).to_be_hidden()
    assert outbox(page) == {}
    assert round_count() == 1
    assert sent_keys and set(sent_keys) == {key}
    assert_sheet_as_api(page, server, match_id, host_token)

    # A double send: the server stores the round, but the answer never reaches the page;
    # the page keeps it and sends it again after a reload, with the same key: stored once.
    sent_keys.clear()
    page.evaluate(LOSE_ROUND_ANSWERS)
    enter_amounts(page, [-9, 18, -9])
    page.click("#add-round")
    expect(page.locator("#outbox li.outbox-item")).to_have_count(1)
    expect(page.locator("#outbox li.outbox-item")).to_have_attribute("data-state", "pending")
    assert round_count() == 2  # the server has it
    lost = set(sent_keys)
    assert len(lost) == 1 and lost != {key}
    sent_keys.clear()
    page.reload()
    page.wait_for_selector(row(page, 2))
    expect(page.locator("#outbox")).to_be_hidden()
    assert outbox(page) == {}
    assert round_count() == 2
    assert sent_keys and set(sent_keys) == lost  # sent again, with the same key
    assert_sheet_as_api(page, server, match_id, host_token)

    # A conflict: while a hand waits offline, someone else enters a round. It is shown,
    # not dropped; the player adds it anyway.
    player.context.set_offline(True)
    page.wait_for_function("!navigator.onLine")
    enter_amounts(page, [-12, -12, 24])
    page.click("#add-round")
    expect(page.locator("#outbox li.outbox-item")).to_have_count(1)
    entered = api(
        server,
        "POST",
        f"/v1/matches/{match_id}/rounds",
        host_token,
        json={"type": "asszorti_amounts", "amounts": [4, -2, -2]},
    )
    assert entered.status_code == 201
    player.context.set_offline(False)
    held = page.locator("#outbox li.outbox-item")
    expect(held).to_have_attribute("data-state", "conflict", timeout=SEND_TIMEOUT_MS)
    expect(held.locator(".outbox-state")).to_contain_text(EN["outbox_conflict"])
    expect(held.locator(".outbox-state")).to_contain_text(EN["hint_precondition_failed"])
    assert round_count() == 3  # the host's round only
    page.wait_for_selector(row(page, 3))  # the page shows what changed meanwhile
    held.locator("button.outbox-retry").click()
    page.wait_for_selector(row(page, 4), timeout=SEND_TIMEOUT_MS)
    expect(page.locator("#outbox")).to_be_hidden()
    assert round_count() == 4
    fourth = api(server, "GET", f"/v1/matches/{match_id}/rounds/4", host_token).json()
    assert fourth["input"]["amounts"] == [-12, -12, 24]
    assert_sheet_as_api(page, server, match_id, host_token)
    player.check_clean()


# ---- (d) who may write ------------------------------------------------------------


def test_a_viewer_cannot_write_and_a_replaced_link_stops_working(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    created = create(server, {"game": "asszorti", "players": NAMES})
    match_id, host_token = created["id"], created["tokens"]["host"]
    links = created["tokens"]["links"]
    entered = api(
        server,
        "POST",
        f"/v1/matches/{match_id}/rounds",
        host_token,
        json={
            "type": "asszorti_hand",
            "declarer": 1,
            "contract": "1",
            "trumps": "diamonds",
            "tricks": [2, 7, 2],
        },
    )
    assert entered.status_code == 201

    # The viewer reads the sheet and a round's history, and has nothing to write with.
    viewer = new_phone(phones, browser, server)
    page = viewer.open(links["viewer"])
    page.wait_for_selector("#viewer-note")
    assert rows(page) == [["1", "0", "18", "0"]]
    # The screen-awake toggle is the viewer's too (the tablet in the middle of the table).
    for control in (
        "#hand",
        "#amounts",
        "#tricks",
        "#points",
        "#undo",
        "#end",
        "input:not(#wake-lock)",
        "form",
    ):
        assert page.locator(control).count() == 0, control
    page.click('#sheet button.round-open[data-round="1"]')
    expect(page.locator("#round-history li")).to_have_count(1)
    expect(page.locator("#round-input")).to_have_text(
        "Berta: contract 1, ♦ Diamonds, " + tricks_text(2, 7, 2)
    )
    assert page.locator("#round-correct").count() == 0
    refused = api(
        server,
        "POST",
        f"/v1/matches/{match_id}/rounds",
        created["tokens"]["viewer"],
        json={"type": "asszorti_amounts", "amounts": [2, -1, -1]},
    )
    assert refused.status_code == 403

    # Csaba's link, then the host re-issues Csaba's token: the page says so at once.
    player = new_phone(phones, browser, server)
    theirs = player.open(links["players"][2])
    theirs.wait_for_selector("#hand")
    wait_live(theirs)
    reissued = api(
        server,
        "POST",
        f"/v1/matches/{match_id}/tokens",
        host_token,
        json={"role": "player", "seat": 2},
    )
    assert reissued.status_code == 200
    expect(theirs.locator("#locked-note")).to_have_text(
        EN["revoked_note"], timeout=LIVE_TIMEOUT_MS * 5
    )
    # The stream's "revoked", or the problem of the re-read it set off (which lands last).
    expect(theirs.locator("#message")).to_be_visible()
    said = theirs.locator("#message .problem-text").inner_text()
    assert said == EN["revoked"] or said.endswith(EN["hint_unauthenticated"]), said
    assert theirs.locator("#hand, #amounts").count() == 0

    # Opened again, the old link is refused with the problem and what to do.
    theirs.reload()
    message = theirs.locator("#message")
    expect(message).to_contain_text(EN["hint_unauthenticated"])
    assert theirs.locator("#hand").count() == 0

    # The new link works on the same phone (relative to the service: no PUBLIC_BASE_URL).
    theirs.goto(server.url + reissued.json()["link"])
    theirs.wait_for_selector("#hand")
    wait_live(theirs)
    enter_amounts(theirs, [-2, -2, 4])
    theirs.click("#add-round")
    theirs.wait_for_selector(row(theirs, 2))
    page.wait_for_selector(row(page, 2), timeout=LIVE_TIMEOUT_MS)  # and the viewer follows
    assert_sheet_as_api(page, server, match_id, host_token)
    viewer.check_clean()
    player.check_clean()


def test_a_round_corrected_past_one_page_of_history_shows_every_revision(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    """The API answers a round's history 100 revisions a page; the round panel
    follows `next` and lists them all, the last correction last."""
    created = create(server, {"game": "asszorti", "players": NAMES})
    match_id, host_token = created["id"], created["tokens"]["host"]
    rounds = f"/v1/matches/{match_id}/rounds"
    body = {"type": "asszorti_amounts", "amounts": [2, -1, -1]}
    assert api(server, "POST", rounds, host_token, json=body).status_code == 201
    for k in range(1, 102):
        n = k % 10 + 1
        amounts = {"type": "asszorti_amounts", "amounts": [-2 * n, n, n]}
        assert api(server, "PUT", f"{rounds}/1", host_token, json=amounts).status_code == 200
    first = api(server, "GET", f"{rounds}/1/history", host_token).json()
    assert len(first["items"]) == 100 and first["next"] is not None

    page = new_phone(phones, browser, server).open(created["tokens"]["links"]["viewer"])
    page.wait_for_selector("#viewer-note")
    page.click('#sheet button.round-open[data-round="1"]')
    history = page.locator("#round-history li")
    expect(history).to_have_count(102)
    assert history.last.get_attribute("data-revision") == "102"
    assert history.last.get_attribute("data-action") == "corrected"
    assert history.first.get_attribute("data-action") == "entered"
