"""The web page: ``/`` is ``app/web/index.html``, ``/app/*`` its assets (ES modules, CSS, i18n).

Same origin as the API, nothing fetched from elsewhere, no build step. Every response
here carries a strict Content-Security-Policy (no inline script or style anywhere) and
neither route is in the OpenAPI document.
"""

from pathlib import Path

from fastapi import APIRouter, FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles
from starlette.responses import Response
from starlette.types import Scope

WEB_DIR = Path(__file__).resolve().parents[2] / "web"
INDEX = WEB_DIR / "index.html"
ASSETS_URL = "/app"
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    # Revalidate each time (the ETag makes that cheap), so a new version shows at once.
    "Cache-Control": "no-cache",
}

router = APIRouter(include_in_schema=False)


class WebAssets(StaticFiles):
    """StaticFiles whose answers carry the page's security headers."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        response = await super().get_response(path, scope)
        response.headers.update(SECURITY_HEADERS)
        return response


# HEAD too: link checkers and uptime probes ask for the headers only (StaticFiles
# answers HEAD for the assets already).
@router.api_route("/", methods=["GET", "HEAD"], include_in_schema=False)
async def index() -> FileResponse:
    return FileResponse(INDEX, media_type="text/html; charset=utf-8", headers=SECURITY_HEADERS)


def install(app: FastAPI) -> None:
    """Serve the page at ``/`` and its assets under ``/app``."""
    app.mount(ASSETS_URL, WebAssets(directory=WEB_DIR), name="web-assets")
    app.include_router(router)
