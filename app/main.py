"""The FastAPI application: ``app.main:app``."""

import gc
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware
from fastapi.openapi.utils import get_openapi
from fastapi.routing import APIRoute

from app.api import openapi as openapi_document
from app.api import problems
from app.api.forwarded import ForwardedClient
from app.api.limits import BodySizeLimit
from app.api.rendered import Rendered
from app.api.routes import docs, events, games, health, matches, rounds, sheet, tokens, web
from app.db.database import Database
from app.live import ChangeHub
from app.observability import REQUEST_ID_HEADER, RequestContext, configure_logging
from app.services.ratelimit import ProcessCounts
from app.settings import Settings, get_settings

DESCRIPTION = """Score-keeping for card-game tables: a table plays a hand, a player
enters what happened, SquareScores scores it and keeps the running sheet.

Authenticate with `Authorization: Bearer <token>`, using a token returned by
`createMatch`. Every error is `application/problem+json` with a stable `code`.

Scoring rules: `docs/rules.md` in the repository (Asszorti and Alkort, with worked
examples)."""

TAGS = [
    {"name": "matches", "description": "Create, read, configure and end matches"},
    {"name": "rounds", "description": "Enter, correct and remove rounds"},
    {"name": "sheet", "description": "The score sheet"},
    {
        "name": "tokens",
        "description": "Re-issue a lost token, recover the host's, and the match's history of both",
    },
    {"name": "live", "description": "Follow a match as it changes (Server-Sent Events)"},
    {
        "name": "games",
        "description": "The supported games and a one-hand calculator. "
        "Scoring rules: `docs/rules.md` in the repository",
    },
    {"name": "health", "description": "Liveness and readiness probes"},
]


# The route modules whose routers the app includes (docs and web install their own).
API_MODULES = (matches, rounds, sheet, tokens, events, games, health)


def _operation_id(route: APIRoute) -> str:
    return route.name


def create_app(settings: Settings | None = None) -> FastAPI:
    """Build the app; the database engine is created when it starts, not at import."""
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        configure_logging(settings.log_level, json_logs=settings.log_json)
        app.state.db = Database(settings)
        app.state.hub = ChangeHub(app.state.db)  # the live streams of this process
        await app.state.hub.start()
        # What startup built (modules, the app, its routes and schemas) lives as long
        # as the process: leave it out of every garbage collection, which would
        # otherwise walk all of it each time.
        gc.collect()
        gc.freeze()
        try:
            yield
        finally:
            await app.state.hub.stop()
            app.state.db.dispose()
            gc.unfreeze()

    app = FastAPI(
        title="SquareScores",
        version="1.0.0",
        description=DESCRIPTION,
        openapi_tags=TAGS,
        lifespan=lifespan,
        generate_unique_id_function=_operation_id,
        docs_url=None,  # /docs and /redoc: app.api.routes.docs, with their own assets
        redoc_url=None,
        # No redirect from /docs/ to /docs: Starlette builds its Location from the Host
        # header, which a client forges. Every path has one spelling; another is a 404.
        redirect_slashes=False,
    )
    for module in API_MODULES:
        app.include_router(module.router)
    if settings.metrics_enabled:
        app.include_router(health.metrics_router)
    docs.install(app)
    web.install(app)
    app.state.settings = settings
    # Per process, as the worker's CPU they spare and guard (app.api.rendered).
    app.state.rendered = Rendered(settings.read_cache_bytes)
    app.state.read_counts = ProcessCounts()
    problems.install(
        app, [route for module in (*API_MODULES, docs, web) for route in module.router.routes]
    )
    # Outermost last: every response, errors included, gets CORS headers and a request id.
    # Our own body limit rather than FastAPI's max_body_size, whose 413 is text/plain
    # on some paths; ours is always problem+json.
    app.add_middleware(BodySizeLimit, max_bytes=settings.max_body_bytes)
    if settings.cors_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=settings.cors_origins,
            allow_methods=["GET", "POST", "PUT", "PATCH", "DELETE"],
            allow_headers=[
                "Authorization",
                "Content-Type",
                "Idempotency-Key",
                "If-Match",
                "If-None-Match",
                REQUEST_ID_HEADER,
            ],
            expose_headers=[
                "ETag",
                "Location",
                "Idempotent-Replayed",
                "Link",
                "Retry-After",
                REQUEST_ID_HEADER,
            ],
            max_age=600,
        )
    app.add_middleware(RequestContext)
    # Outermost: the request id's log line and every limit see the client it settles on.
    if settings.forwarded_allow_ips:
        app.add_middleware(ForwardedClient, trusted=settings.forwarded_allow_ips)

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = openapi_document.finish(
                get_openapi(
                    title=app.title,
                    version=app.version,
                    description=app.description,
                    routes=app.routes,
                    tags=app.openapi_tags,
                    servers=[{"url": "/", "description": "this server"}],
                    contact={
                        "name": "SquareScores",
                        "url": "https://squarescores.example/support",
                    },
                )
            )
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
    return app


app = create_app()
