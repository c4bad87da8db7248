"""Request bodies are JSON only as RFC 8259 says: UTF-8, and no key twice in one object.

FastAPI parses a JSON body with ``Request.json()``; this route class hands it a
request whose ``json()`` refuses what the standard library would quietly accept
(a UTF-16 or UTF-32 body, found by sniffing its first bytes; a repeated key, where
the last one silently won). Both are raised as ``json.JSONDecodeError``, so the
client gets FastAPI's own ``json_invalid`` error, answered as 422 ``malformed_json``
(app/api/problems.py). It is the custom ``Request`` and ``APIRoute`` pattern of
FastAPI's documentation.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import Request, Response
from fastapi.routing import APIRoute

BOM = "\ufeff"


class DuplicateKey(ValueError):
    """A key that appears twice in one JSON object."""


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object, refusing a key that appears twice."""
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise DuplicateKey(key)
        result[key] = value
    return result


def loads(body: bytes) -> Any:
    """Parse a JSON body: UTF-8 (a leading byte-order mark is tolerated), no key twice."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as error:
        doc = body.decode("utf-8", errors="replace")
        raise json.JSONDecodeError("the body is not UTF-8", doc, error.start) from None
    text = text.removeprefix(BOM)
    try:
        return json.loads(text, object_pairs_hook=_object)
    except json.JSONDecodeError:
        raise
    except DuplicateKey as error:
        raise json.JSONDecodeError(f"the key {error.args[0]!r} appears twice", text, 0) from None
    except ValueError:  # Python's bound on the digits of an integer it converts
        message = f"a number has more than {sys.get_int_max_str_digits()} digits"
        raise json.JSONDecodeError(message, text, 0) from None


class StrictJSONRequest(Request):
    """A request whose JSON body is parsed by ``loads``."""

    async def json(self) -> Any:
        return loads(await self.body())


class StrictJSONRoute(APIRoute):
    """An ``APIRoute`` whose requests parse their JSON body with ``loads``."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def strict_handler(request: Request) -> Response:
            return await handler(StrictJSONRequest(request.scope, request.receive))

        return strict_handler
