"""The FastAPI application: ``app.main:app``."""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware
from fastapi.openapi.utils import get_openapi
from fastapi.routing import APIRoute

from app.api import problems
from app.api.limits import BodySizeLimit
from app.api.routes import games, health, matches, rounds, sheet
from app.db.engine import Database
from app.observability import REQUEST_ID_HEADER, RequestContext, configure_logging
from app.settings import Settings, get_settings

DESCRIPTION = """Score-keeping for card-game tables: a table plays a hand, a player
enters what happened, SquareScores scores it and keeps the running sheet.

Authenticate with `Authorization: Bearer <token>`, using a token returned by
`createMatch`. Every error is `application/problem+json` with a stable `code`."""

TAGS = [
    {"name": "matches", "description": "Create, read, configure and end matches"},
    {"name": "rounds", "description": "Enter, correct and remove rounds"},
    {"name": "sheet", "description": "The score sheet"},
    {"name": "games", "description": "The supported games and a one-hand calculator"},
    {"name": "health", "description": "Liveness and readiness probes"},
]


def _operation_id(route: APIRoute) -> str:
    return route.name


def create_app(settings: Settings | None = None) -> FastAPI:
    """Build the app; the database engine is created when it starts, not at import."""
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        configure_logging(settings.log_level, json_logs=settings.log_json)
        app.state.db = Database(settings)
        try:
            yield
        finally:
            app.state.db.dispose()

    app = FastAPI(
        title="SquareScores",
        version="1.0.0",
        description=DESCRIPTION,
        openapi_tags=TAGS,
        lifespan=lifespan,
        generate_unique_id_function=_operation_id,
    )
    for module in (matches, rounds, sheet, games, health):
        app.include_router(module.router)
    app.state.settings = settings
    problems.install(app)
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
                "Retry-After",
                REQUEST_ID_HEADER,
            ],
            max_age=600,
        )
    app.add_middleware(RequestContext)

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = _problem_media_types(
                get_openapi(
                    title=app.title,
                    version=app.version,
                    description=app.description,
                    routes=app.routes,
                    tags=app.openapi_tags,
                    servers=[{"url": "/", "description": "this server"}],
                    contact={"name": "SquareScores", "url": "https://squarescores.example/support"},
                )
            )
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
    return app


def _problem_media_types(document: dict[str, Any]) -> dict[str, Any]:
    """Finish the generated document so it says what the app does.

    - error bodies are application/problem+json, and every 422 is a Problem
      (FastAPI would otherwise declare its own HTTPValidationError shape);
    - every enum schema carries an example.
    """
    problem_422 = {
        "description": problems.DESCRIPTIONS[422],
        "content": {problems.PROBLEM_JSON: {"schema": {"$ref": "#/components/schemas/Problem"}}},
    }
    for path in document.get("paths", {}).values():
        for operation in path.values():
            responses = operation.get("responses", {})
            for status, response in responses.items():
                content = response.get("content", {})
                if status.isdigit() and int(status) >= 400 and "application/json" in content:
                    content.setdefault(problems.PROBLEM_JSON, content.pop("application/json"))
            if "422" in responses:
                responses["422"] = problem_422
    schemas = document.get("components", {}).get("schemas", {})
    for name in ("HTTPValidationError", "ValidationError"):
        schemas.pop(name, None)
    for schema in schemas.values():
        if "enum" in schema and "examples" not in schema:
            schema["examples"] = [schema["enum"][0]]
    return document


app = create_app()
