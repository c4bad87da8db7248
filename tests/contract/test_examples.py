"""Every example in the OpenAPI document is an instance of its schema, as a generated
client and a validating linter (Redocly's no-invalid-schema-examples) read them: the
document as the app serves it, examples checked with JSON Schema 2020-12, which
OpenAPI 3.1 uses."""

from __future__ import annotations

from typing import Any

import jsonschema_rs
import pytest

from app.main import create_app
from app.settings import Settings

DOCUMENT = create_app(Settings()).openapi()
SCHEMAS = DOCUMENT["components"]["schemas"]
EXAMPLES = [
    pytest.param(name, example, id=f"{name}[{i}]")
    for name, schema in SCHEMAS.items()
    for i, example in enumerate(schema.get("examples", []))
]


def _validator(name: str) -> Any:
    """The named schema, its references resolved in the document's components."""
    root = {"components": DOCUMENT["components"], "$ref": f"#/components/schemas/{name}"}
    return jsonschema_rs.Draft202012Validator(root)


@pytest.mark.parametrize(("name", "example"), EXAMPLES)
def test_every_schema_example_is_valid(name: str, example: Any) -> None:
    errors = [error.message for error in _validator(name).iter_errors(example)]
    assert errors == [], errors


def test_the_examples_cover_the_responses() -> None:
    """The responses' main models carry examples (the test above has something to
    hold), among them those whose nulls the document once dropped."""
    examples = {name for name, schema in SCHEMAS.items() if schema.get("examples")}
    assert {"MatchRead", "RoundRead", "IssuedToken", "MatchHistory"} <= examples
    match = SCHEMAS["MatchRead"]["examples"][0]
    assert match["winner"] is None and match["settlement"] is None


def test_an_invalid_example_is_caught() -> None:
    example = dict(SCHEMAS["MatchRead"]["examples"][0])
    del example["winner"]
    assert not _validator("MatchRead").is_valid(example)
