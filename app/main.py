"""The FastAPI application: ``app.main:app``."""

import gc
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware
from fastapi.openapi.utils import get_openapi
from fastapi.routing import APIRoute

from app.api import problems
from app.api.limits import BodySizeLimit
from app.api.routes import docs, games, health, matches, rounds, sheet
from app.db.database import Database
from app.observability import REQUEST_ID_HEADER, RequestContext, configure_logging
from app.services.auth import KnownCredentials
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
        "name": "games",
        "description": "The supported games and a one-hand calculator. "
        "Scoring rules: `docs/rules.md` in the repository",
    },
    {"name": "health", "description": "Liveness and readiness probes"},
]


ALWAYS_SENT_HEADERS = {"ETag", "Location"}


def _operation_id(route: APIRoute) -> str:
    return route.name


def create_app(settings: Settings | None = None) -> FastAPI:
    """Build the app; the database engine is created when it starts, not at import."""
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        configure_logging(settings.log_level, json_logs=settings.log_json)
        app.state.db = Database(settings)
        # What startup built (modules, the app, its routes and schemas) lives as long
        # as the process: leave it out of every garbage collection, which would
        # otherwise walk all of it each time.
        gc.collect()
        gc.freeze()
        try:
            yield
        finally:
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
    )
    for module in (matches, rounds, sheet, games, health):
        app.include_router(module.router)
    docs.install(app)
    app.state.settings = settings
    app.state.credentials = KnownCredentials()
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
            app.openapi_schema = _rename_split_schemas(
                _problem_media_types(
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
            )
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
    return app


def _rename_split_schemas(document: dict[str, Any]) -> dict[str, Any]:
    """Name the two sides of a model FastAPI split: ``X-Input`` becomes ``X`` (what a
    client sends), ``X-Output`` becomes ``XRead`` (what it reads), titles included,
    so that generated SDKs get two distinct, readable classes."""
    schemas = document.get("components", {}).get("schemas", {})
    renames: dict[str, str] = {}
    for name in list(schemas):
        if name.endswith("-Input"):
            renames[name] = name.removesuffix("-Input")
        elif name.endswith("-Output"):
            renames[name] = name.removesuffix("-Output") + "Read"
    for old, new in renames.items():
        schema = schemas.pop(old)
        schema["title"] = new
        schemas[new] = schema
    prefix = "#/components/schemas/"

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith(prefix) and ref[len(prefix) :] in renames:
                node["$ref"] = prefix + renames[ref[len(prefix) :]]
            mapping = node.get("mapping")
            if isinstance(mapping, dict):
                for tag, target in mapping.items():
                    if target.startswith(prefix) and target[len(prefix) :] in renames:
                        mapping[tag] = prefix + renames[target[len(prefix) :]]
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(document)
    document["components"]["schemas"] = dict(sorted(schemas.items()))
    return document


def _problem_media_types(document: dict[str, Any]) -> dict[str, Any]:
    """Finish the generated document so it says what the app does.

    - error bodies are application/problem+json, and every 422 is a Problem
      (FastAPI would otherwise declare its own HTTPValidationError shape);
    - every enum schema carries an example, and every named union its variants' ones.
    """
    problem_422 = {
        "description": problems.DESCRIPTIONS[422],
        "content": {problems.PROBLEM_JSON: {"schema": {"$ref": "#/components/schemas/Problem"}}},
    }
    for path in document.get("paths", {}).values():
        for operation in path.values():
            responses = operation.get("responses", {})
            for status, response in responses.items():
                for name, header in response.get("headers", {}).items():
                    if name in ALWAYS_SENT_HEADERS:
                        header["required"] = True  # FastAPI drops `required` from headers
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
    for schema in schemas.values():  # a named union shows its variants' examples
        variants = schema.get("oneOf") or schema.get("anyOf") or []
        if variants and "examples" not in schema:
            examples = [
                example
                for variant in variants
                if "$ref" in variant
                for example in schemas[variant["$ref"].rsplit("/", 1)[-1]].get("examples", [])[:1]
            ]
            if examples:
                schema["examples"] = examples
    return document


app = create_app()
