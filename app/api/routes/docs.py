"""The interactive docs, /docs (Swagger UI) and /redoc, served with their own assets.

FastAPI's default pages load Swagger UI and ReDoc from a CDN, so on a machine
without internet they stay blank. These are FastAPI's documented self-hosted pages
("Custom Docs UI Static Assets"): the JavaScript, CSS and favicon come from the
``fastapi-offline`` package (its ``static`` folder, pinned in uv.lock) and are
served under ``/static/docs``. None of these routes is in the OpenAPI document.
"""

import base64
import hashlib
import re

from fastapi import APIRouter, FastAPI, Request
from fastapi.openapi.docs import (
    get_redoc_html,
    get_swagger_ui_html,
    get_swagger_ui_oauth2_redirect_html,
)
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

DOCS_URL = "/docs"
REDOC_URL = "/redoc"
OAUTH2_REDIRECT_URL = "/docs/oauth2-redirect"  # FastAPI's default, kept for Swagger UI
ASSETS_URL = "/static/docs"
ASSETS_PACKAGE = ("fastapi_offline", "static")  # swagger-ui-bundle.js, swagger-ui.css, ...
# The pages load nothing from another origin. ReDoc would otherwise fetch the logo of its
# "API docs by Redocly" link from Redocly's CDN; under this policy the browser refuses it
# (the link shows without it). No inline script runs but the page's own, named by its
# hash (FastAPI's page template starts Swagger UI inline), and no inline style but the
# page's own and, on /redoc, the two style elements ReDoc writes (REDOC_STYLES); no other
# site may frame the pages (clickjacking).
POLICY = (
    "default-src 'self'; script-src 'self' {scripts}; style-src 'self' {styles}; "
    "img-src 'self' data:; font-src 'self' data:; worker-src 'self' blob:; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
INLINE_SCRIPT = re.compile(r"<script>(.*?)</script>", re.DOTALL)
INLINE_STYLE = re.compile(r"<style>(.*?)</style>", re.DOTALL)
# The style elements redoc.standalone.js (pinned in uv.lock) writes, by hash: an empty one
# that styled-components fills through the CSSOM, which a policy does not govern, and its
# scrollbar CSS. A ReDoc that writes others fails tests/browser/test_docs_pages.py, which
# prints the hash Chromium asks for.
REDOC_STYLES = (
    "'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=' "
    "'sha256-QMIg+bpjm3JdElJ388KYke01izlUW0UoNOeKjpMxdgc='"
)


def _hashes(pattern: re.Pattern[str], html: str) -> str:
    return " ".join(
        f"'sha256-{base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()}'"
        for text in pattern.findall(html)
    )


def with_policy(page: HTMLResponse, *, styles: str = "") -> HTMLResponse:
    """The page, with a Content-Security-Policy that allows its own inline script and
    style, and the ``styles`` its script writes, each by hash, and nothing else inline,
    and that no other site may frame it."""
    html = bytes(page.body).decode()
    page.headers["Content-Security-Policy"] = POLICY.format(
        scripts=_hashes(INLINE_SCRIPT, html), styles=f"{_hashes(INLINE_STYLE, html)} {styles}"
    )
    page.headers["X-Frame-Options"] = "DENY"  # for browsers without frame-ancestors
    return page


# Served for HEAD as for GET, as the assets are (StaticFiles answers both).
PAGE_METHODS = ["GET", "HEAD"]

router = APIRouter(include_in_schema=False)


def _root(request: Request) -> str:
    """The prefix a proxy serves the app under (``--root-path``), as FastAPI's own pages use."""
    return str(request.scope.get("root_path", "")).rstrip("/")


@router.api_route(DOCS_URL, methods=PAGE_METHODS)
async def swagger_ui(request: Request) -> HTMLResponse:
    root, app = _root(request), request.app
    page = get_swagger_ui_html(
        openapi_url=root + app.openapi_url,
        title=f"{app.title} - Swagger UI",
        swagger_js_url=f"{root}{ASSETS_URL}/swagger-ui-bundle.js",
        swagger_css_url=f"{root}{ASSETS_URL}/swagger-ui.css",
        swagger_favicon_url=f"{root}{ASSETS_URL}/favicon.png",
        oauth2_redirect_url=root + OAUTH2_REDIRECT_URL,
        init_oauth=app.swagger_ui_init_oauth,
        swagger_ui_parameters=app.swagger_ui_parameters,
    )
    return with_policy(page)


@router.api_route(OAUTH2_REDIRECT_URL, methods=PAGE_METHODS)
async def swagger_ui_oauth2_redirect() -> HTMLResponse:
    return with_policy(get_swagger_ui_oauth2_redirect_html())


@router.api_route(REDOC_URL, methods=PAGE_METHODS)
async def redoc(request: Request) -> HTMLResponse:
    root, app = _root(request), request.app
    page = get_redoc_html(
        openapi_url=root + app.openapi_url,
        title=f"{app.title} - ReDoc",
        redoc_js_url=f"{root}{ASSETS_URL}/redoc.standalone.js",
        redoc_favicon_url=f"{root}{ASSETS_URL}/favicon.png",
        with_google_fonts=False,  # the fonts would come from Google's servers
    )
    return with_policy(page, styles=REDOC_STYLES)


def install(app: FastAPI) -> None:
    """Serve the docs pages and their assets (create the app with docs_url=redoc_url=None).

    The assets are mounted on the app itself, as FastAPI documents it: a mount on an
    ``APIRouter`` is not part of what ``include_router`` is documented to carry over.
    """
    app.mount(ASSETS_URL, StaticFiles(packages=[ASSETS_PACKAGE]), name="docs-assets")
    app.include_router(router)
