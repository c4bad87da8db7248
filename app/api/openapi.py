"""The OpenAPI document, finished so it says exactly what the app does, and so that
generated SDKs (openapi-python-client, openapi-typescript) come out right."""

from __future__ import annotations

import json
import re
from typing import Any

from app.api import problems

ALWAYS_SENT_HEADERS = {"ETag", "Location"}


def finish(document: dict[str, Any]) -> dict[str, Any]:
    """FastAPI's document, finished (each step says what it adds)."""
    event_stream_items(document)
    restore_null_examples(document)
    document = problem_media_types(document)
    document = rename_split_schemas(document)
    declare_server_errors(document)
    declare_retry_after(document)
    plain_optional_headers(document)
    name_enum_members(document)
    public_operations(document)
    defaults_every_generator_reads_alike(document)
    return document


def defaults_every_generator_reads_alike(document: dict[str, Any]) -> None:
    """A request property a client may leave out is optional, and only that: its
    ``default`` moves into its description (openapi-typescript, on its default flags,
    makes a property with a default required, so a body that leaves ``kontra`` out
    would not type-check). A response property that is always sent is required, with
    no default (a generator that tries a union's members in turn would otherwise take
    the first, whose defaults fill what the answer did not carry)."""
    schemas = document.get("components", {}).get("schemas", {})

    def reached(roots: list[Any]) -> set[str]:
        names: set[str] = set()
        pending = list(roots)
        while pending:
            node = pending.pop()
            if isinstance(node, dict):
                ref = node.get("$ref", "")
                name = ref.rsplit("/", 1)[-1] if ref.startswith("#/components/schemas/") else ""
                if name and name not in names:
                    names.add(name)
                    pending.append(schemas.get(name, {}))
                pending.extend(node.values())
            elif isinstance(node, list):
                pending.extend(node)
        return names

    operations = [op for path in document.get("paths", {}).values() for op in path.values()]
    sent = reached([op.get("requestBody", {}) for op in operations])
    read = reached([op.get("responses", {}) for op in operations])
    for name in sorted(sent - read):
        for prop in schemas[name].get("properties", {}).values():
            if "default" in prop:
                default = json.dumps(prop.pop("default"))
                described = prop.get("description", "").rstrip(".")
                prop["description"] = f"{described}; default {default}".lstrip("; ")
    for name in sorted(read):
        schema = schemas[name]
        for field in schema.get("required", []):
            schema.get("properties", {}).get(field, {}).pop("default", None)


def restore_null_examples(document: dict[str, Any]) -> None:
    """Put back the nulls of the schemas' examples: FastAPI renders the document
    without null values, examples included, so an example's ``"winner": null`` went
    missing, and with it a property the schema requires."""
    schemas = document.get("components", {}).get("schemas", {})

    def resolve(schema: dict[str, Any]) -> dict[str, Any]:
        ref = schema.get("$ref", "")
        return resolve(schemas[ref.rsplit("/", 1)[-1]]) if ref else schema

    def nullable(schema: dict[str, Any]) -> bool:
        return any(v.get("type") == "null" for v in schema.get("anyOf", []))

    def fits(value: Any, variant: dict[str, Any]) -> bool:
        """Whether an object example is this variant's, once its nulls are back: its
        tag (a ``const``) matches, it has no key the variant lacks, and every required
        key it lacks may be null."""
        if not isinstance(value, dict):
            return variant.get("type") != "null"
        properties = variant.get("properties", {})
        tags = {name: p["const"] for name, p in properties.items() if "const" in p}
        missing = set(variant.get("required", [])) - set(value)
        return (
            all(value.get(name) == tag for name, tag in tags.items())
            and set(value) <= set(properties)
            and all(nullable(properties[name]) for name in missing if name in properties)
        )

    def fill(value: Any, schema: dict[str, Any]) -> None:
        schema = resolve(schema)
        variants = [resolve(v) for v in schema.get("anyOf", []) + schema.get("oneOf", [])]
        if variants:
            fitting = [variant for variant in variants if fits(value, variant)]
            if fitting:
                fill(value, fitting[0])
            return
        if isinstance(value, dict):
            properties = schema.get("properties", {})
            for name, item in value.items():
                if name in properties:
                    fill(item, properties[name])
            for name in schema.get("required", []):
                if name not in value and name in properties and nullable(properties[name]):
                    value[name] = None
        elif isinstance(value, list) and "items" in schema:
            for item in value:
                fill(item, schema["items"])

    for schema in schemas.values():
        for example in schema.get("examples", []):
            fill(example, schema)


def public_operations(document: dict[str, Any]) -> None:
    """An operation that takes no token says so (``security: []``), so that a linter
    or a generator knows it was not forgotten; one a stream ticket opens (its
    ``ticket`` query parameter) takes a token, or none."""
    for path in document.get("paths", {}).values():
        for operation in path.values():
            security = operation.setdefault("security", [])
            parameters = operation.get("parameters", [])
            if security and any(p["name"] == "ticket" for p in parameters):
                security.append({})


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


RETRY_AFTER = {
    "Retry-After": {
        "description": "Seconds to wait before retrying",
        "required": True,
        "schema": {"type": "integer", "minimum": 1},
    }
}


def declare_retry_after(document: dict[str, Any]) -> None:
    """Every 429 and 503 says when to retry (``Retry-After``, always sent)."""
    for path in document.get("paths", {}).values():
        for operation in path.values():
            for status in ("429", "503"):
                response = operation.get("responses", {}).get(status)
                if response is not None:
                    response.setdefault("headers", {}).update(RETRY_AFTER)


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
