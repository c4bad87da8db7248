"""A live event redraws the other phones from its own data (issue #39, item 4).

A change made on one phone reaches another phone's sheet, totals and status with no
request from that phone for the match or the sheet: the event carries what the page
shows. A phone reads them again only when it cannot apply an event: a version it
skipped, or a kind it does not know (which it sees as a skipped version at the next
event it knows). Requests are counted with Playwright's ``page.on("request")``.
"""

from __future__ import annotations

import json
import re
from typing import Any

from playwright.sync_api import Browser, Page, Request, Route, expect

from tests.browser.pages import LIVE_TIMEOUT_MS, Phone, api, create, new_phone, rows
from tests.conftest import ROOT
from tests.live import LiveServer

EN = json.loads((ROOT / "app" / "web" / "i18n" / "en.json").read_text())

PLAYERS = ["Anna", "Berta", "Csaba"]


def amounts(*values: int) -> dict[str, Any]:
    return {"type": "asszorti_amounts", "amounts": list(values)}


class Reads:
    """The phone's reads of the match and of its sheet, counted from the start."""

    def __init__(self, page: Page, match_id: str) -> None:
        self.match = re.compile(rf"/v1/matches/{match_id}(\?.*)?$")
        self.sheet = re.compile(rf"/v1/matches/{match_id}/sheet(\?.*)?$")
        self.seen: list[str] = []
        page.on("request", self._request)

    def _request(self, request: Request) -> None:
        if request.method == "GET" and (
            self.match.search(request.url) or self.sheet.search(request.url)
        ):
            self.seen.append(request.url)

    def count(self) -> int:
        return len(self.seen)


def write(
    server: LiveServer, created: dict[str, Any], method: str, path: str, body: Any = None
) -> Any:
    response = api(
        server, method, f"/v1/matches/{created['id']}{path}", created["tokens"]["host"], json=body
    )
    assert response.status_code in (200, 201, 204), response.text
    return response.json() if response.status_code != 204 else None


def read(server: LiveServer, created: dict[str, Any], path: str = "") -> Any:
    response = api(server, "GET", f"/v1/matches/{created['id']}{path}", created["tokens"]["host"])
    assert response.status_code == 200, response.text
    return response.json()


def shown_rows(server: LiveServer, created: dict[str, Any]) -> list[list[str]]:
    """The sheet's rows as the page shows them, from GET …/sheet."""
    sheet = read(server, created, "/sheet")
    return [[str(row["number"]), *(str(c) for c in row["cells"])] for row in sheet["rows"]]


def totals(page: Page) -> list[str]:
    return page.locator("#sheet tfoot tr.totals td").all_inner_texts()


def open_live(phones: list[Phone], browser: Browser, server: LiveServer, link: str) -> Page:
    phone = new_phone(phones, browser, server)
    page = phone.open(link)
    page.wait_for_selector("#live.on")
    return page


def test_a_change_reaches_the_other_phone_without_it_reading_again(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    created = create(server, {"game": "asszorti", "players": PLAYERS})
    links = created["tokens"]["links"]
    entering = open_live(phones, browser, server, links["players"][0])
    watching = open_live(phones, browser, server, links["viewer"])
    reads = Reads(watching, created["id"])  # from here on: none expected

    # A round entered on one phone's form.
    entering.fill('input[name="amount0"]', "-4")
    entering.fill('input[name="amount1"]', "2")
    entering.fill('input[name="amount2"]', "2")
    entering.click("#add-round")
    watching.wait_for_selector('#sheet tbody tr[data-round="1"]', timeout=LIVE_TIMEOUT_MS)
    assert rows(watching) == [["1", "0", "2", "2"]]
    assert totals(watching) == ["0", "2", "2"]

    # A later round, then a correction of the first that changes the later row's cells
    # (Anna's debt of 4 is gone, so her 6 is no longer paid into it).
    write(server, created, "POST", "/rounds", amounts(6, -3, -3))
    expect(watching.locator('#sheet tbody tr[data-round="2"]')).to_be_visible()
    assert rows(watching) == [["1", "0", "2", "2"], ["2", "2", "0", "0"]]
    write(server, created, "PUT", "/rounds/1", amounts(2, -1, -1))
    expect(watching.locator("#sheet tfoot tr.totals td").first).to_have_text("8")
    assert (
        rows(watching)
        == shown_rows(server, created)
        == [["1", "2", "0", "0"], ["2", "6", "0", "0"]]
    )
    assert totals(watching) == [str(t) for t in read(server, created)["totals"]]

    # A rename: the column's heading.
    write(server, created, "PATCH", "", {"players": ["Anna", "Bea", "Csaba"]})
    expect(watching.locator("#sheet thead th").nth(2)).to_have_text("Bea")

    # Undo: the row goes, the totals follow.
    write(server, created, "DELETE", "/rounds/2")
    expect(watching.locator('#sheet tbody tr[data-round="2"]')).to_have_count(0)
    assert rows(watching) == [["1", "2", "0", "0"]]
    assert totals(watching) == ["2", "0", "0"]

    # The end: the status; the stream stays open (an ended match is still renamed).
    write(server, created, "POST", "/end")
    expect(watching.locator("p.status")).to_have_class(re.compile(r"\bended\b"))
    write(server, created, "PATCH", "/players/1", {"name": "Bella"})
    expect(watching.locator("#sheet thead th").nth(2)).to_have_text("Bella")

    assert reads.count() == 0, reads.seen  # every change came from its event alone
    for phone in phones:
        phone.check_clean()


def _craft(events: list[tuple[str, dict[str, Any]]]) -> str:
    """A stream's body: each (name, data) as a Server-Sent Event with its version as id."""
    return "".join(
        f"event: {name}\nid: {data['version']}\ndata: {json.dumps(data)}\n\n"
        for name, data in events
    )


def _stream_once(page: Page, make_body: Any) -> list[str]:
    """The phone's next stream answered once by ``make_body()`` (after which the stream
    ends, and the page's later streams reach the server); the URLs it answered."""
    answered: list[str] = []

    def handle(route: Route) -> None:
        if answered:
            route.continue_()
            return
        answered.append(route.request.url)
        route.fulfill(
            status=200,
            headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"},
            body=make_body(),
        )

    page.route(re.compile(r"/events\?ticket="), handle)
    return answered


def test_a_skipped_version_makes_the_phone_read_the_match_again(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    """The stream skips version v+1: the page cannot apply v+2 to what it holds, so it
    reads the match and the sheet again, and shows both rounds."""
    created = create(server, {"game": "asszorti", "players": PLAYERS})
    phone = new_phone(phones, browser, server)

    def body() -> str:
        # Two changes while the phone opens its stream; it is sent only the second.
        write(server, created, "POST", "/rounds", amounts(2, -1, -1))
        write(server, created, "POST", "/rounds", amounts(-2, 4, -2))
        second = {
            "kind": "round_entered",
            "version": read(server, created)["version"],
            "match": read(server, created),
            "round": read(server, created, "/rounds/2"),
        }
        return _craft([("round_entered", second)])

    opened_at = read(server, created)["version"]
    answered = _stream_once(phone.page, body)
    reads = Reads(phone.page, created["id"])
    page = phone.open(created["tokens"]["links"]["viewer"])
    expect(page.locator('#sheet tbody tr[data-round="2"]')).to_be_visible()
    assert rows(page) == shown_rows(server, created)
    assert len(answered) == 1 and f"after={opened_at}" in answered[0]  # from what it read
    # The first reads, then the match and the sheet again for the skipped version.
    assert reads.count() == 4, reads.seen
    phone.check_clean()


def test_an_unknown_kind_makes_the_phone_read_the_match_again(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    """A kind the page does not know goes by (EventSource hands it to no listener): at
    the next event it knows, the page reads the match and the sheet again, and so shows
    what the unknown one changed (here a name) as well as the round."""
    created = create(server, {"game": "asszorti", "players": PLAYERS})
    phone = new_phone(phones, browser, server)

    def body() -> str:
        write(server, created, "PATCH", "", {"players": ["Anna", "Bea", "Csaba"]})
        renamed = read(server, created)
        write(server, created, "POST", "/rounds", amounts(2, -1, -1))
        entered = {
            "kind": "round_entered",
            "version": renamed["version"] + 1,
            "match": read(server, created),
            "round": read(server, created, "/rounds/1"),
        }
        unknown = {"kind": "seat_swapped", "version": renamed["version"], "match": renamed}
        return _craft([("seat_swapped", unknown), ("round_entered", entered)])

    _stream_once(phone.page, body)
    reads = Reads(phone.page, created["id"])
    page = phone.open(created["tokens"]["links"]["viewer"])
    expect(page.locator('#sheet tbody tr[data-round="1"]')).to_be_visible()
    expect(page.locator("#sheet thead th").nth(2)).to_have_text("Bea")
    assert reads.count() == 4, reads.seen
    phone.check_clean()


def test_a_sheet_of_another_version_than_the_match_is_read_again(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    """A change between the page's two reads leaves the sheet at another version than
    the match (its ETag says which): the stream resumes after the match's version, so it
    would never bring what the sheet missed; the page reads both again instead."""
    created = create(server, {"game": "asszorti", "players": PLAYERS})
    write(server, created, "POST", "/rounds", amounts(2, -1, -1))
    phone = new_phone(phones, browser, server)
    answered: list[str] = []

    def older_sheet(route: Route) -> None:
        if answered:
            route.continue_()
            return
        answered.append(route.request.url)
        response = route.fetch()  # as if read just before the round went in
        older = {**response.headers, "etag": '"v1"'}
        route.fulfill(
            response=response, headers=older, body=json.dumps({**response.json(), "rows": []})
        )

    phone.page.route(re.compile(r"/sheet$"), older_sheet)
    reads = Reads(phone.page, created["id"])
    page = phone.open(created["tokens"]["links"]["viewer"])
    page.wait_for_selector("#live.on")
    assert len(answered) == 1
    assert rows(page) == shown_rows(server, created) == [["1", "2", "0", "0"]]
    assert reads.count() == 4, reads.seen  # the match and the sheet, twice
    phone.check_clean()


def test_the_writing_phone_redraws_from_its_own_event_without_reading_again(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    """The phone that makes a change is one more phone at the table: the stream's event
    of its own write redraws it, so an entry, a correction, a rename, a setting, an undo
    and the end cost it no read of the match or the sheet while its stream is open."""
    created = create(server, {"game": "asszorti", "players": PLAYERS})
    page = open_live(phones, browser, server, created["tokens"]["links"]["host"])
    reads = Reads(page, created["id"])  # from here on: none expected

    for number, values in ((1, ("-4", "2", "2")), (2, ("6", "-3", "-3"))):
        for seat, value in enumerate(values):
            page.fill(f'input[name="amount{seat}"]', value)
        page.click("#add-round")
        expect(page.locator(f'#sheet tbody tr[data-round="{number}"]')).to_be_visible()
        # (its event may come before its answer: the row it waited as goes all the same)
        expect(page.locator("#sheet tbody tr.pending-round")).to_have_count(0)
    assert rows(page) == shown_rows(server, created)

    # A correction from the round's panel: the later row's cells follow.
    page.click('#sheet button.round-open[data-round="1"]')
    page.click("#round-correct")
    for seat, value in enumerate(("2", "-1", "-1")):
        page.fill(f'input[name="amount{seat}"]', value)
    page.click("#add-round")
    expect(page.locator("#sheet tfoot tr.totals td").first).to_have_text("8")
    assert rows(page) == shown_rows(server, created) == [["1", "2", "0", "0"], ["2", "6", "0", "0"]]

    # A rename and a setting, from the host's card.
    page.click("#host-settings summary")
    page.fill("#rename-name-1", "Bea")
    page.click("#rename-1")
    expect(page.locator("#sheet thead th").nth(2)).to_have_text("Bea")
    page.fill("#host-planned-deals", "12")
    page.click("#save-settings")
    expect(page.locator("#settings-note")).to_have_text(EN["saved"])
    assert read(server, created)["settings"]["planned_deals"] == 12

    # Undo, then End: each asks first.
    page.click("#undo")
    page.click("#confirm-yes")
    expect(page.locator('#sheet tbody tr[data-round="2"]')).to_have_count(0)
    page.click("#end")
    page.click("#confirm-yes")
    expect(page.locator("p.status")).to_have_class(re.compile(r"\bended\b"))
    assert rows(page) == shown_rows(server, created)
    assert totals(page) == [str(t) for t in read(server, created)["totals"]]

    assert reads.count() == 0, reads.seen  # each change came from its own event
    phones[0].check_clean()


def test_with_no_stream_the_writing_phone_reads_what_it_wrote(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    """No stream to bring its event (a proxy that drops it, say): the phone reads the
    match and the sheet after its write, and so still shows the round it entered."""
    created = create(server, {"game": "asszorti", "players": PLAYERS})
    phone = new_phone(phones, browser, server)
    phone.page.route(re.compile(r"/events\?ticket="), lambda route: route.abort())
    page = phone.open(created["tokens"]["links"]["host"])
    expect(page.locator("#live.off")).to_be_visible()
    reads = Reads(page, created["id"])
    for seat, value in enumerate(("-4", "2", "2")):
        page.fill(f'input[name="amount{seat}"]', value)
    page.click("#add-round")
    expect(page.locator('#sheet tbody tr[data-round="1"]')).to_be_visible()
    assert rows(page) == shown_rows(server, created) == [["1", "0", "2", "2"]]
    assert reads.count() == 2, reads.seen  # the match and the sheet, once
