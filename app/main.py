"""The FastAPI application: ``app.main:app``."""

import gc
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware
from fastapi.openapi.utils import get_openapi
from fastapi.routing import APIRoute, APIRouter
from fastapi.telemetry import TelemetryConfig

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


ALWAYS_SENT_HEADERS = {"ETag", "Location"}
_NO_TELEMETRY: TelemetryConfig = {"tracing": False, "metrics": False, "logs": False}


def _operation_id(route: APIRoute) -> str:
    return route.name


def _add_routes(app: FastAPI, router: APIRouter) -> None:
    """Add a module's routes to the app's own router instead of including the module's.

    FastAPI matches an included router's routes through its include machinery, twice
    a request, at a few microseconds a route tried; a route of the app's own router
    is matched by its path's regex (GET match and POST round each 10-15 us faster,
    docs/performance.md). Each route is built again on the app's router, with every
    setting it was declared with, as ``include_router`` itself did before FastAPI
    0.16x; so the app is its dependency-overrides provider, and the OpenAPI document
    is unchanged (tests/api/test_openapi.py compares it with the committed one).
    """
    for route in router.routes:
        assert isinstance(route, APIRoute), route
        app.router.add_api_route(
            route.path,
            route.endpoint,
            response_model=route.response_model,
            status_code=route.status_code,
            tags=route.tags,
            dependencies=route.dependencies,
            summary=route.summary,
            description=route.description,
            response_description=route.response_description,
            responses=route.responses,
            deprecated=route.deprecated,
            methods=route.methods,
            operation_id=route.operation_id,
            include_in_schema=route.include_in_schema,
            response_class=route.response_class,
            name=route.name,
            route_class_override=type(route),
            callbacks=route.callbacks,
            openapi_extra=route.openapi_extra,
            response_model_include=route.response_model_include,
            response_model_exclude=route.response_model_exclude,
            response_model_by_alias=route.response_model_by_alias,
            response_model_exclude_unset=route.response_model_exclude_unset,
            response_model_exclude_defaults=route.response_model_exclude_defaults,
            response_model_exclude_none=route.response_model_exclude_none,
            strict_content_type=route.strict_content_type,
            max_body_size=route.max_body_size,
        )


def create_app(settings: Settings | None = None) -> FastAPI:
    """Build the app; the database engine is created when it starts, not at import."""
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        configure_logging(settings.log_level, json_logs=settings.log_json)
        app.state.db = Database(settings)
        # What startup built (modules, the app, its routes and schemas: most of the
        # process's objects) lives as long as the process: leave it out of every
        # garbage collection. Otherwise each full collection walks all of it, and a
        # request that allocates much (a long sheet) pays for it: measured, a sheet
        # of 2000 rows took half the time after this.
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
        # Off, FastAPI skips its per-request look for OpenTelemetry providers.
        telemetry=None if settings.telemetry else _NO_TELEMETRY,
    )
    for module in (matches, rounds, sheet, games, health):
        _add_routes(app, module.router)
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
    document.setdefault("components", {}).setdefault("securitySchemes", {})["HTTPBearer"] = {
        "type": "http",
        "scheme": "bearer",
        "description": "A host, player or viewer token of the match",
    }
    for route, path in document.get("paths", {}).items():
        for operation in path.values():
            if route.startswith("/v1/matches/{match_id}"):
                operation["security"] = [{"HTTPBearer": []}]  # read by app.api.deps
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
