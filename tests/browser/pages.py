"""What the browser tests share: a phone (a browser context of its own at phone width
that may not leave the server's origin), the ``phones`` list they are closed from, and
the API calls that set a table up and check what the page shows.

Each test module opens its phones with ``new_phone(phones, browser, server)``; the
``phones`` fixture (tests/browser/conftest.py) closes them.
"""

from __future__ import annotations

from typing import Any

import httpx
from playwright.sync_api import Browser, BrowserContext, Dialog, Page, Route, ViewportSize

from tests.live import LiveServer

RENDER_TIMEOUT_MS = 30_000
LIVE_TIMEOUT_MS = 2_000  # another phone's change must show within this, without reload
PHONE: ViewportSize = {"width": 360, "height": 740}


class Phone:
    """A browser context of its own (its own localStorage) at phone width, kept offline:
    requests outside ``origin`` are aborted and recorded, as are page errors and dialogs."""

    def __init__(self, browser: Browser, origin: str, locale: str = "en-US") -> None:
        self.origin = origin
        self.context = browser.new_context(
            service_workers="block", viewport=PHONE, locale=locale, is_mobile=True
        )
        self.context.set_default_timeout(RENDER_TIMEOUT_MS)
        self.left: list[str] = []
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.context.route("**/*", self._route)
        self.page: Page = self.context.new_page()
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.on("dialog", self._dialog)

    def _route(self, route: Route) -> None:
        if route.request.url.startswith(self.origin + "/"):
            route.continue_()
        else:
            self.left.append(route.request.url)
            route.abort()

    def _dialog(self, dialog: Dialog) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def open(self, url: str) -> Page:
        response = self.page.goto(url if url.startswith("http") else self.origin + url)
        assert response is not None and response.status == 200, url
        return self.page

    def check_clean(self) -> None:
        assert self.left == [], "requests left the origin"
        assert self.errors == [], "uncaught errors in the page"
        assert self.dialogs == [], "dialogs opened"

    def close(self) -> None:
        self.context.close()


def go_offline(context: BrowserContext, page: Page) -> None:
    """No network for the context, once the page knows it."""
    context.set_offline(True)
    page.wait_for_function("() => !navigator.onLine")


def new_phone(phones: list[Phone], browser: Browser, server: LiveServer, **kwargs: Any) -> Phone:
    phone = Phone(browser, server.url, **kwargs)
    phones.append(phone)
    return phone


# A cell's own number, without the hand's net an Asszorti cell shows under it.
CELL_VALUES = """(rows) => rows.map((row) => [...row.querySelectorAll('th, td')].map(
  (cell) => (cell.querySelector('.cell-value') || cell).innerText.trim()))"""


def rows(page: Page) -> list[list[str]]:
    """The sheet's rounds as the page shows them: the round's number, then its cells
    (not the pending rows of rounds still waiting to be sent)."""
    return list(page.locator("#sheet tbody tr[data-round]").evaluate_all(CELL_VALUES))


def nets(page: Page) -> list[list[str]]:
    """Each row's nets as an Asszorti sheet shows them under its cells (+18, \u22129, 0)."""
    return [
        [text.strip() for text in row.locator("td .cell-net .net-value").all_inner_texts()]
        for row in page.locator("#sheet tbody tr[data-round]").all()
    ]


# ---- the API, to set up and to check what the page shows --------------------------


def api(
    server: LiveServer, method: str, path: str, token: str | None = None, **kwargs: Any
) -> httpx.Response:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.request(method, server.url + path, headers=headers, timeout=10, **kwargs)


def create(server: LiveServer, body: dict[str, Any]) -> dict[str, Any]:
    response = api(server, "POST", "/v1/matches", json=body)
    assert response.status_code == 201, response.text
    return dict(response.json())
