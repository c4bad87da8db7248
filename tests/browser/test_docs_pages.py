"""/docs and /redoc render in a real browser with the network cut off.

A real ``uvicorn app.main:app`` (``tests/live.py``) serves the pages; headless
Chromium (Debian's ``chromium`` package, driven by Playwright, no browser download)
opens them with every request outside the server's origin aborted, so a page that
still needed a CDN would stay blank here, as it would on a machine without internet.

The browser and the server are ``tests/browser/conftest.py``'s.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, Route

from tests.live import LiveServer

RENDER_TIMEOUT_MS = 30_000
CREATE_MATCH_SUMMARY = "Create a match and its tokens"


@pytest.fixture(scope="module")
def operations(server: LiveServer) -> list[dict[str, Any]]:
    """Every operation of the served OpenAPI document: what the pages must show."""
    document = httpx.get(server.url + "/openapi.json", timeout=10).json()
    return [operation for item in document["paths"].values() for operation in item.values()]


class OfflinePage:
    """A page whose requests outside ``origin`` are aborted, and recorded."""

    def __init__(self, browser: Browser, origin: str) -> None:
        self.origin = origin
        self.context = browser.new_context(service_workers="block")
        self.context.set_default_timeout(RENDER_TIMEOUT_MS)
        self.left: list[str] = []  # requests that tried to leave the origin
        self.served: list[str] = []  # requests that reached the server
        self.errors: list[str] = []  # uncaught exceptions in the page
        self.refused: list[str] = []  # inline scripts and styles the policy refused
        self.context.route("**/*", self._route)
        self.page: Page = self.context.new_page()
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.on("console", self._console)

    def _console(self, message: Any) -> None:
        # Chromium says "Refused to execute inline script" or "Applying inline style
        # violates", each with the hash it would have allowed.
        if "Content Security Policy" in message.text and "inline" in message.text:
            self.refused.append(message.text)

    def _route(self, route: Route) -> None:
        url = route.request.url
        if url.startswith(self.origin + "/"):
            self.served.append(url)
            route.continue_()
        else:
            self.left.append(url)
            route.abort()

    def open(self, path: str) -> Page:
        response = self.page.goto(self.origin + path)
        assert response is not None and response.status == 200, path
        return self.page

    def settle(self) -> None:
        """Wait until the page has stopped loading (images the UI adds late included)."""
        self.page.wait_for_load_state("networkidle")

    def close(self) -> None:
        self.context.close()


@pytest.fixture
def offline(browser: Browser, server: LiveServer) -> Iterator[OfflinePage]:
    page = OfflinePage(browser, server.url)
    yield page
    page.close()


def test_swagger_ui_renders_every_operation_offline(
    offline: OfflinePage, operations: list[dict[str, Any]]
) -> None:
    page = offline.open("/docs")
    page.wait_for_selector(".opblock")
    for operation in operations:
        block = page.locator(f'[id="operations-{operation["tags"][0]}-{operation["operationId"]}"]')
        assert block.count() == 1, operation["operationId"]
        assert block.locator(".opblock-summary-description").inner_text() == operation["summary"]
    assert page.locator(".opblock").count() == len(operations)
    assert page.get_by_text(CREATE_MATCH_SUMMARY, exact=True).is_visible()
    assert page.locator(".info .title").inner_text().startswith("SquareScores")
    offline.settle()
    assert offline.left == [], "requests left the origin"
    assert any(url.endswith("/static/docs/swagger-ui-bundle.js") for url in offline.served)
    assert any(url.endswith("/openapi.json") for url in offline.served)
    assert offline.errors == []
    assert offline.refused == [], "the page's policy refused its own inline code"


def test_redoc_renders_every_operation_offline(
    offline: OfflinePage, operations: list[dict[str, Any]]
) -> None:
    page = offline.open("/redoc")
    heading = page.locator("h2", has_text=CREATE_MATCH_SUMMARY)
    heading.wait_for()
    assert heading.is_visible()
    headings = [text.strip() for text in page.locator("h2").all_inner_texts()]
    for operation in operations:
        assert operation["summary"] in headings, operation["operationId"]
    assert page.locator("h1").first.inner_text().startswith("SquareScores")
    # Its styles applied: the menu is a fixed column beside the content, not above it.
    menu, title = (
        page.locator(".menu-content").bounding_box(),
        page.locator("h1").first.bounding_box(),
    )
    assert menu is not None and title is not None and title["x"] >= menu["x"] + menu["width"]
    offline.settle()
    assert offline.left == [], "requests left the origin"
    assert any(url.endswith("/static/docs/redoc.standalone.js") for url in offline.served)
    assert any(url.endswith("/openapi.json") for url in offline.served)
    assert offline.errors == []
    assert offline.refused == [], "the page's policy refused its own inline code"
