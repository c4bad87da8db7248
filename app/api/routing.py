"""A route class whose common case skips FastAPI's general request handler.

FastAPI's handler is written for every signature FastAPI accepts: on each
request it inspects each parameter's annotation again, builds a context for
dependencies that may yield, and so on. For this service's routes that is a
quarter of a whole GET of a match (measured: docs/performance.md). A
``LeanRoute`` looks at its endpoint once, when the route is built, and when the
signature is one it knows (plain dependencies of the request, path and header
parameters, one JSON body, an endpoint that returns a ``Response``) answers
valid requests itself:

- it reads the body and decodes it with orjson;
- it calls the dependencies (authentication and authorization) in FastAPI's
  order: after the body is read, before anything is validated;
- it validates each parameter and the body with the very ``ModelField`` FastAPI
  built for it, so values, defaults and constraints are FastAPI's own;
- it calls the endpoint.

Anything else is handed to FastAPI's own handler, for the same request (the
body it read is kept on the request): a body that is absent, not JSON or not
decodable, any validation error, a dependency override, a signature it does not
know. So every error is still FastAPI's, word for word, and the OpenAPI document
is built from the same signature as before.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any

import fastapi.routing
import orjson
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

# Where FastAPI keeps the included form of the route whose handler it is building
# (absent from other FastAPI versions: then the route itself is used).
_EFFECTIVE_ROUTE: Any = getattr(fastapi.routing, "_effective_route_context_var", None)
# The included form a request is being served by (then FastAPI's handle() serves it).
_SCOPE_EFFECTIVE_ROUTE: Any = getattr(fastapi.routing, "_get_scope_effective_route_context", None)

Handler = Callable[[Request], Coroutine[Any, Any, Response]]
# A lean answer: the response, or what FastAPI must answer from: None when the body
# was not read, the body's bytes when it was.
Lean = Callable[[Request], Coroutine[Any, Any, Response | bytes | None]]


@dataclass(frozen=True, slots=True)
class _Param:
    name: str  # the endpoint's parameter
    alias: str  # where the request has it (path parameter or header name)
    field: Any  # FastAPI's ModelField
    raw: bool  # a plain str with no constraint: the request's value is the value


@dataclass(frozen=True, slots=True)
class _Plan:
    call: Callable[..., Any]
    dependencies: tuple[tuple[str, Callable[[Request], Any]], ...]
    path: tuple[_Param, ...]
    headers: tuple[_Param, ...]
    body: tuple[str, Any] | None  # the body parameter's name and ModelField
    request_name: str | None


class LeanRoute(APIRoute):
    """An ``APIRoute`` that answers the common case of its requests directly.

    Served by the app's router, it answers from ``handle``: FastAPI's per-request
    wrapper (two exit stacks for dependencies that yield, none of which a lean
    route has, and its own exception wrapper, which the app's exception middleware
    repeats with the same handlers) is entered only for what FastAPI answers.
    """

    _lean: Lean | None = None
    _standard: ASGIApp  # FastAPI's own answer, for what the lean path does not answer

    def get_route_handler(self) -> Handler:
        standard = super().get_route_handler()
        route = _effective(self)
        plan = _plan(route)
        if plan is None:
            return standard
        lean = _lean_handler(plan, route.dependency_overrides_provider)
        if route is self:
            self._lean = lean
            self._standard = fastapi.routing.request_response(standard)

        async def handler(request: Request) -> Response:
            answer = await lean(request)
            return answer if isinstance(answer, Response) else await standard(request)

        return handler

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        lean = self._lean
        if (
            lean is None
            or getattr(self, "max_body_size", None) is not None  # FastAPI's app applies it
            or (self.methods and scope["method"] not in self.methods)
            or (_SCOPE_EFFECTIVE_ROUTE is not None and _SCOPE_EFFECTIVE_ROUTE(scope) is not None)
        ):
            await super().handle(scope, receive, send)
            return
        answer = await lean(Request(scope, receive, send))
        if isinstance(answer, Response):
            await answer(scope, receive, send)
        elif answer is None:
            await self._standard(scope, receive, send)
        else:  # the body was read: FastAPI reads it again from here
            await self._standard(scope, _replay(answer, receive), send)


def _replay(body: bytes, receive: Receive) -> Receive:
    """``receive`` with the body given back first (it was already read)."""
    given = False

    async def replayed() -> Message:
        nonlocal given
        if not given:
            given = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replayed


def _lean_handler(plan: _Plan, provider: Any) -> Lean:
    async def lean(request: Request) -> Response | bytes | None:
        if getattr(provider, "dependency_overrides", None):  # FastAPI resolves those
            return None
        body: Any = None
        raw: bytes | None = None  # the body, once read
        if plan.body is not None:
            raw = await request.body()
            content_type = request.headers.get("content-type", "")
            if not raw or not _is_json(content_type):
                return raw
            try:
                body = orjson.loads(raw)
            except orjson.JSONDecodeError:
                return raw
        values: dict[str, Any] = {}
        for name, dependency in plan.dependencies:
            value = dependency(request)
            values[name] = await value if inspect.isawaitable(value) else value
        for param in plan.path:
            if not _take(values, param, request.path_params.get(param.alias), "path"):
                return raw
        for param in plan.headers:
            if not _take(values, param, request.headers.get(param.alias), "header"):
                return raw
        if plan.body is not None:
            name, field = plan.body
            value, errors = field.validate(body, values, loc=("body",))
            if errors:
                return raw
            values[name] = value
        if plan.request_name is not None:
            values[plan.request_name] = request
        response: Response = await plan.call(**values)
        return response

    return lean


def _take(values: dict[str, Any], param: _Param, value: str | None, where: str) -> bool:
    """Put a parameter's value into ``values``; False when FastAPI must answer."""
    if value is None:
        if param.field.field_info.is_required():
            return False
        values[param.name] = param.field.default  # None for every optional one here
        return True
    if param.raw:
        values[param.name] = value
        return True
    validated, errors = param.field.validate(value, values, loc=(where, param.alias))
    if errors:
        return False
    values[param.name] = validated
    return True


def _is_json(content_type: str) -> bool:
    """A JSON media type, as FastAPI reads Content-Type (a type without exactly one
    slash is text/plain to it)."""
    media = content_type.partition(";")[0].strip().lower()
    if media.count("/") != 1:
        return False
    return media == "application/json" or (
        media.startswith("application/") and media.endswith("+json")
    )


def _effective(route: APIRoute) -> Any:
    """The route as included in the app (FastAPI builds the handler of an included route
    from its included form, whose dependencies may include its router's)."""
    context = _EFFECTIVE_ROUTE.get() if _EFFECTIVE_ROUTE is not None else None
    if context is not None and getattr(context, "original_route", None) is route:
        return context
    return route


def _plan(route: Any) -> _Plan | None:
    """What the route's requests need, or None when its signature is not one we know."""
    dependant = route.dependant
    endpoint = dependant.call
    if (
        endpoint is None
        or not inspect.iscoroutinefunction(endpoint)
        or not _returns_response(endpoint)
        or dependant.query_params
        or dependant.cookie_params
        or route._embed_body_fields
        or len(dependant.body_params) > 1
        or dependant.response_param_name
        or dependant.background_tasks_param_name
        or dependant.websocket_param_name
        or dependant.http_connection_param_name
        or dependant.security_scopes_param_name
    ):
        return None
    dependencies = []
    for sub in dependant.dependencies:
        if not _plain_request_dependency(sub) or sub.name is None or sub.call is None:
            return None
        dependencies.append((sub.name, sub.call))
    fields = [*dependant.path_params, *dependant.header_params]
    if any(not (f.field_info.is_required() or f.default is None) for f in fields):
        return None  # a default other than None: FastAPI copies it per request
    if any(f.alias == f.name for f in dependant.header_params):
        return None  # a header named after its parameter: FastAPI's naming rules apply
    path = tuple(_param(field) for field in dependant.path_params)
    headers = tuple(_param(field) for field in dependant.header_params)
    body = None
    if dependant.body_params:
        body = (dependant.body_params[0].name, dependant.body_params[0])
    return _Plan(
        call=endpoint,
        dependencies=tuple(dependencies),
        path=path,
        headers=headers,
        body=body,
        request_name=dependant.request_param_name,
    )


def _plain_request_dependency(sub: Dependant) -> bool:
    """A dependency that takes the request and nothing else, and does not yield."""
    call = sub.call
    return (
        call is not None
        and not inspect.isgeneratorfunction(call)
        and not inspect.isasyncgenfunction(call)
        and sub.request_param_name is not None
        and not (
            sub.path_params
            or sub.query_params
            or sub.header_params
            or sub.cookie_params
            or sub.body_params
            or sub.dependencies
            or sub.response_param_name
            or sub.background_tasks_param_name
            or sub.websocket_param_name
            or sub.http_connection_param_name
            or sub.security_scopes_param_name
        )
    )


def _param(field: Any) -> _Param:
    info = field.field_info
    raw = info.annotation is str and not info.metadata
    return _Param(name=field.name, alias=str(field.alias), field=field, raw=raw)


def _returns_response(endpoint: Callable[..., Any]) -> bool:
    try:
        returned = typing.get_type_hints(endpoint).get("return")
    except (NameError, TypeError):
        return False
    return isinstance(returned, type) and issubclass(returned, Response)
