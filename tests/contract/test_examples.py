"""Every example in the OpenAPI document is an instance of its schema, as a generated
client and a validating linter (Redocly's no-invalid-schema-examples) read them: the
document as the app serves it, examples checked with JSON Schema 2020-12, which
OpenAPI 3.1 uses."""

from __future__ import annotations

from typing import Any

import jsonschema_rs
import pytest

from app.api.openapi import restore_null_examples
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


def test_nulls_are_restored_in_the_member_an_example_belongs_to() -> None:
    """An example under a union gets back only the nulls of its own member: Alkort's
    settings are not taken for the own table's (whose `planned_rounds` may be null)."""
    document = create_app(Settings()).openapi()
    schemas = document["components"]["schemas"]
    schemas["GameSettings"]["examples"] = [{"first_dealer": 0, "target": 11}]
    schemas["RoundInputRead"]["examples"] = [{"type": "own_points", "points": [1, 2]}]
    schemas["MatchEvent"]["examples"] = [{"kind": "revoked", "version": 3}]
    restore_null_examples(document)
    assert schemas["GameSettings"]["examples"] == [{"first_dealer": 0, "target": 11}]
    assert schemas["RoundInputRead"]["examples"] == [{"type": "own_points", "points": [1, 2]}]
    assert schemas["MatchEvent"]["examples"] == [{"kind": "revoked", "version": 3}]
