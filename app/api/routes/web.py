"""The web page: ``/`` is ``app/web/index.html``, ``/app/{version}/*`` its assets (ES
modules, CSS, i18n, the manifest and icons), ``/sw.js`` its service worker.

Same origin as the API, nothing fetched from elsewhere, no build step. Every response
here carries a strict Content-Security-Policy (no inline script or style anywhere) and
no route here is in the OpenAPI document.

The assets' version is a hash of their content, computed once at start-up. Under
``/app/{version}/`` they are cached for good (a changed file is a new version, hence a
new URL) and gzipped; the page is rendered with that prefix and a ``modulepreload``
for every module that ``app.js`` imports, directly or not, so they load in one round.
The page itself and ``/sw.js`` are revalidated on each visit. The service worker is
served with the version and the shell's URLs, so a changed file makes a new worker,
which caches the new shell and deletes the old caches. ``/app/*`` without a version
still answers, revalidated each time, for links from outside the page.
"""

import functools
import gzip
import hashlib
import json
import re
from collections import deque
from dataclasses import dataclass
from pathlib import Path

from fastapi import APIRouter, FastAPI, Request
from fastapi.staticfiles import StaticFiles
from starlette.middleware.gzip import GZipMiddleware
from starlette.responses import Response
from starlette.types import Scope

WEB_DIR = Path(__file__).resolve().parents[2] / "web"
INDEX = WEB_DIR / "index.html"
SERVICE_WORKER = WEB_DIR / "sw.js"
ASSETS_URL = "/app"
ENTRY_MODULE = "app.js"
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
# A versioned URL's content never changes: no revalidation until the page names another.
IMMUTABLE = "public, max-age=31536000, immutable"
# A static import: `import x from "./y.js"`, `import { a, b } from "./y.js"`, `import "./y.js"`.
# A dynamic import("./y.js") is not one: it loads when the code asks, so is not preloaded.
STATIC_IMPORT = re.compile(
    r"""^\s*(?:import|export)\s+(?:[^"';]*?\sfrom\s+)?["'](\.{1,2}/[^"']+)["']""", re.M
)
MODULE_SCRIPT = '<script type="module"'
DEFAULT_LANGUAGE = "en"
# Not kept under /app: the worker itself, and the page (kept as /).
NOT_IN_SHELL = frozenset({"sw.js", "index.html"})

router = APIRouter(include_in_schema=False)


@dataclass(frozen=True)
class WebShell:
    """The page's assets as served: their version, the rendered page, the modules it
    preloads, and the service worker's source."""

    version: str
    assets_url: str
    modules: tuple[str, ...]
    index: dict[str, bytes]  # by the language whose strings it preloads
    shell: tuple[str, ...]
    service_worker: bytes

    def language(self, accept_language: str) -> str:
        """The first language of Accept-Language that the page has, as i18n.js picks
        from the browser's (a choice the player made on the page still wins there)."""
        for tag in accept_language.split(","):
            base = tag.split(";")[0].strip().lower().split("-")[0]
            if base in self.index:
                return base
        return DEFAULT_LANGUAGE


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


def module_graph(directory: Path, entry: str = ENTRY_MODULE) -> list[str]:
    """The modules ``entry`` imports statically, directly or not, nearest first (paths
    relative to ``directory``; ``entry`` itself not included)."""
    seen = {entry}
    order: list[str] = []
    queue = deque([entry])
    while queue:
        module = queue.popleft()
        base = (directory / module).parent
        for specifier in STATIC_IMPORT.findall((directory / module).read_text(encoding="utf-8")):
            found = (base / specifier).resolve().relative_to(directory.resolve()).as_posix()
            if found not in seen:
                seen.add(found)
                order.append(found)
                queue.append(found)
    return order


def render_index(html: str, *, assets_url: str, modules: list[str], language: str) -> str:
    """The page with its asset URLs under ``assets_url``, a modulepreload per module and
    a preload of ``language``'s strings (fetched with CORS, as i18n.js's fetch is)."""
    if MODULE_SCRIPT not in html:
        raise ValueError(f"index.html has no {MODULE_SCRIPT}>")
    html = html.replace(f'"{ASSETS_URL}/', f'"{assets_url}/')
    at = html.index(MODULE_SCRIPT)
    indent = html[html.rindex("\n", 0, at) + 1 : at]
    links = [f'<link rel="modulepreload" href="{assets_url}/{module}">' for module in modules]
    strings = f"{assets_url}/i18n/{language}.json"
    links.append(f'<link rel="preload" href="{strings}" as="fetch" crossorigin>')
    return html[:at] + "".join(f"{link}\n{indent}" for link in links) + html[at:]


def build_shell(directory: Path) -> WebShell:
    """The version, the rendered page, the shell's URLs (the page first) and the worker
    that keeps them."""
    version = asset_version(directory)
    assets_url = f"{ASSETS_URL}/{version}"
    modules = module_graph(directory)
    html = (directory / INDEX.name).read_text(encoding="utf-8")
    index = {
        path.stem: render_index(
            html, assets_url=assets_url, modules=modules, language=path.stem
        ).encode()
        for path in sorted((directory / "i18n").glob("*.json"))
    }
    assets = [
        f"{assets_url}/{path.relative_to(directory).as_posix()}"
        for path in asset_files(directory)
        if path.relative_to(directory).as_posix() not in NOT_IN_SHELL
    ]
    shell = ("/", *assets)
    preamble = f"const VERSION = {json.dumps(version)};\nconst SHELL = {json.dumps(shell)};\n"
    source = preamble.encode() + (directory / SERVICE_WORKER.name).read_bytes()
    return WebShell(
        version=version,
        assets_url=assets_url,
        modules=tuple(modules),
        index=index,
        shell=shell,
        service_worker=source,
    )


class WebAssets(StaticFiles):
    """StaticFiles whose answers carry the page's security headers and ``cache_control``."""

    def __init__(self, *, directory: Path, cache_control: str = "no-cache") -> None:
        super().__init__(directory=directory)
        self.cache_control = cache_control

    async def get_response(self, path: str, scope: Scope) -> Response:
        response = await super().get_response(path, scope)
        response.headers.update(SECURITY_HEADERS)
        response.headers["Cache-Control"] = self.cache_control
        if path.endswith(".webmanifest"):
            response.headers["Content-Type"] = MANIFEST_MEDIA_TYPE
        return response


# HEAD too: link checkers and uptime probes ask for the headers only (StaticFiles
# answers HEAD for the assets already).
@router.api_route("/", methods=["GET", "HEAD"], include_in_schema=False)
async def index(request: Request) -> Response:
    shell: WebShell = request.app.state.web_shell
    language = shell.language(request.headers.get("accept-language", ""))
    # The page is a function of the assets' content and the language: they tag it.
    # Gzipped for a browser that takes it, as the assets are; each encoding its own tag.
    gzipped = "gzip" in request.headers.get("accept-encoding", "")
    etag = f'"{shell.version}-{language}{"-gzip" if gzipped else ""}"'
    headers = {**SECURITY_HEADERS, "ETag": etag, "Vary": "Accept-Language, Accept-Encoding"}
    if etag in request.headers.get("if-none-match", ""):
        return Response(status_code=304, headers=headers)
    body = shell.index[language]
    if gzipped:
        body = gzipped_page(body)
        headers["Content-Encoding"] = "gzip"
    return Response(body, media_type="text/html; charset=utf-8", headers=headers)


@functools.cache
def gzipped_page(page: bytes) -> bytes:
    """The rendered page, gzipped once per language and version (mtime 0: the same bytes
    every time)."""
    return gzip.compress(page, mtime=0)


@router.api_route(SERVICE_WORKER_URL, methods=["GET", "HEAD"], include_in_schema=False)
async def service_worker(request: Request) -> Response:
    shell: WebShell = request.app.state.web_shell
    return Response(
        shell.service_worker,
        media_type="text/javascript; charset=utf-8",
        headers=SECURITY_HEADERS,
    )


def install(app: FastAPI) -> None:
    """Serve the page at ``/``, its assets under ``/app/{version}`` (and ``/app``) and
    its worker at ``/sw.js``."""
    shell = build_shell(WEB_DIR)
    app.state.web_shell = shell
    # Gzip wraps the assets only: the API's streams (text/event-stream) never pass here.
    # The versioned mount comes first: ``/app`` would otherwise take its paths.
    app.mount(
        shell.assets_url,
        GZipMiddleware(WebAssets(directory=WEB_DIR, cache_control=IMMUTABLE)),
        name="web-assets-versioned",
    )
    app.mount(ASSETS_URL, GZipMiddleware(WebAssets(directory=WEB_DIR)), name="web-assets")
    app.include_router(router)
