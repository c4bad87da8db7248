"""The OpenAPI document, finished so it says exactly what the app does, and so that
generated SDKs (openapi-python-client, openapi-typescript) come out right."""

from __future__ import annotations

import re
from typing import Any

from app.api import problems

ALWAYS_SENT_HEADERS = {"ETag", "Location"}


def finish(document: dict[str, Any]) -> dict[str, Any]:
    """FastAPI's document, finished (each step says what it adds)."""
    event_stream_items(document)
    document = problem_media_types(document)
    document = rename_split_schemas(document)
    declare_server_errors(document)
    plain_optional_headers(document)
    name_enum_members(document)
    return document


def event_stream_items(document: dict[str, Any]) -> None:
    """A Server-Sent Events stream declares its events: the stream is a string of
    ``text/event-stream``, and each event's ``data`` is the JSON of the model the route
    gives for its 200 (``x-itemSchema``: OpenAPI 3.2's ``itemSchema``, kept as an
    extension while this document is 3.1). Its errors are problem+json only."""
    for path in document.get("paths", {}).values():
        for operation in path.values():
            responses = operation.get("responses", {})
            stream = responses.get("200", {}).get("content", {}).get("text/event-stream")
            if stream is None:
                continue
            model = stream.pop("schema", {})
            data: dict[str, Any] = {"type": "string", "contentMediaType": "application/json"}
            if "$ref" in model:
                data["contentSchema"] = {"$ref": model["$ref"]}
            item = {
                "type": "object",
                "properties": {
                    "data": data,
                    "event": {"type": "string"},
                    "id": {"type": "string"},
                    "retry": {"type": "integer", "minimum": 0},
                },
            }
            stream["schema"] = {
                "type": "string",
                "description": "Server-Sent Events; each event's data is described by x-itemSchema",
            }
            stream["x-itemSchema"] = item
            for status, response in responses.items():
                if status.isdigit() and int(status) >= 400:
                    response.get("content", {}).pop("text/event-stream", None)


def declare_server_errors(document: dict[str, Any]) -> None:
    """Every operation may answer 500 (a bug) and, when it uses the database, 503
    (the database is unreachable or not migrated): both are problem+json, so a
    generated client parses them instead of returning nothing."""
    for route, path in document.get("paths", {}).items():
        for operation in path.values():
            responses = operation.setdefault("responses", {})
            responses.setdefault("500", _problem_response(500))
            if route != "/healthz":
                responses.setdefault("503", _problem_response(503))


def _problem_response(status: int) -> dict[str, Any]:
    return {
        "description": problems.DESCRIPTIONS[status],
        "content": {problems.PROBLEM_JSON: {"schema": {"$ref": "#/components/schemas/Problem"}}},
    }


def plain_optional_headers(document: dict[str, Any]) -> None:
    """An optional request header is a plain optional string, not "string or null":
    a header is either sent or not, and a generated client that may pass None
    crashes inside its HTTP library (httpx takes only str or bytes)."""
    for path in document.get("paths", {}).values():
        for operation in path.values():
            for parameter in operation.get("parameters", []):
                schema = parameter.get("schema", {})
                variants = schema.get("anyOf")
                if parameter.get("in") != "header" or not variants:
                    continue
                kept = [v for v in variants if v.get("type") != "null"]
                if len(kept) == 1:
                    del schema["anyOf"]
                    schema.update(kept[0])


def name_enum_members(document: dict[str, Any]) -> None:
    """Readable names for every enum's members (``x-enum-varnames``, which both SDK
    generators read): ``Contract.CONTRACT_2``, not ``Contract.VALUE_1`` (which was "2"
    in one and index 1 in another)."""

    def walk(node: Any, title: str) -> None:
        if isinstance(node, dict):
            title = str(node.get("title", title))
            values = node.get("enum")
            if isinstance(values, list) and all(isinstance(v, str) for v in values):
                node["x-enum-varnames"] = [_member_name(v, title) for v in values]
            for value in node.values():
                walk(value, title)
        elif isinstance(node, list):
            for value in node:
                walk(value, title)

    walk(document, "value")


def _member_name(value: str, title: str) -> str:
    name = re.sub(r"[^0-9A-Za-z]+", "_", value).strip("_").upper()
    if not name or name[0].isdigit():  # "3" -> CONTRACT_3
        prefix = re.sub(r"(?<!^)(?=[A-Z])", "_", title).upper()
        name = f"{prefix}_{name}" if name else prefix
    return name


def rename_split_schemas(document: dict[str, Any]) -> dict[str, Any]:
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


def problem_media_types(document: dict[str, Any]) -> dict[str, Any]:
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
