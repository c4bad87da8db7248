"""The web page: ``/`` is ``app/web/index.html``, ``/app/*`` its assets (ES modules, CSS,
i18n, the manifest and icons), ``/sw.js`` its service worker.

Same origin as the API, nothing fetched from elsewhere, no build step. Every response
here carries a strict Content-Security-Policy (no inline script or style anywhere) and
no route here is in the OpenAPI document.

The assets' version is a hash of their content, computed once at start-up: the service
worker is served with it and with the list of the shell's URLs, so a changed file makes
a new worker, which caches the new shell and deletes the old caches.
"""

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles
from starlette.responses import Response
from starlette.types import Scope

WEB_DIR = Path(__file__).resolve().parents[2] / "web"
INDEX = WEB_DIR / "index.html"
SERVICE_WORKER = WEB_DIR / "sw.js"
ASSETS_URL = "/app"
SERVICE_WORKER_URL = "/sw.js"
MANIFEST_MEDIA_TYPE = "application/manifest+json"
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; worker-src 'self'; manifest-src 'self'; base-uri 'none'; "
    "frame-ancestors 'none'; form-action 'self'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    # Revalidate each time (the ETag makes that cheap), so a new version shows at once.
    "Cache-Control": "no-cache",
}
# Not kept under /app: the worker itself, and the page (kept as /).
NOT_IN_SHELL = frozenset({"sw.js", "index.html"})

router = APIRouter(include_in_schema=False)


@dataclass(frozen=True)
class WebShell:
    """The page's assets as served: their version and the service worker's source."""

    version: str
    shell: tuple[str, ...]
    service_worker: bytes


def asset_files(directory: Path) -> list[Path]:
    """Every file the page may load, in a stable order."""
    return sorted(path for path in directory.rglob("*") if path.is_file())


def asset_version(directory: Path) -> str:
    """A short hash of the assets' names and content: it changes when any file does."""
    digest = hashlib.sha256()
    for path in asset_files(directory):
        digest.update(path.relative_to(directory).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()[:12]


def build_shell(directory: Path) -> WebShell:
    """The version, the shell's URLs (the page first) and the worker that keeps them."""
    version = asset_version(directory)
    assets = [
        f"{ASSETS_URL}/{path.relative_to(directory).as_posix()}"
        for path in asset_files(directory)
        if path.relative_to(directory).as_posix() not in NOT_IN_SHELL
    ]
    shell = ("/", *assets)
    preamble = f"const VERSION = {json.dumps(version)};\nconst SHELL = {json.dumps(shell)};\n"
    source = preamble.encode() + (directory / SERVICE_WORKER.name).read_bytes()
    return WebShell(version=version, shell=shell, service_worker=source)


class WebAssets(StaticFiles):
    """StaticFiles whose answers carry the page's security headers."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        response = await super().get_response(path, scope)
        response.headers.update(SECURITY_HEADERS)
        if path.endswith(".webmanifest"):
            response.headers["Content-Type"] = MANIFEST_MEDIA_TYPE
        return response


@router.get("/", include_in_schema=False)
async def index() -> FileResponse:
    return FileResponse(INDEX, media_type="text/html; charset=utf-8", headers=SECURITY_HEADERS)


@router.get(SERVICE_WORKER_URL, include_in_schema=False)
async def service_worker(request: Request) -> Response:
    shell: WebShell = request.app.state.web_shell
    return Response(
        shell.service_worker,
        media_type="text/javascript; charset=utf-8",
        headers=SECURITY_HEADERS,
    )


def install(app: FastAPI) -> None:
    """Serve the page at ``/``, its assets under ``/app`` and its worker at ``/sw.js``."""
    app.state.web_shell = build_shell(WEB_DIR)
    app.mount(ASSETS_URL, WebAssets(directory=WEB_DIR), name="web-assets")
    app.include_router(router)
