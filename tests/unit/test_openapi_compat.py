"""The OpenAPI compatibility guard (scripts/openapi_compat.py) on small hand-made documents."""

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from scripts.openapi_compat import BreakingChange, breaking_notes, check, compare, main

PROBLEM = {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}


def _doc() -> dict[str, Any]:
    """A two-path API: create a match (request body), read it (response body)."""
    return {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1"},
        "paths": {
            "/v1/matches": {
                "post": {
                    "operationId": "createMatch",
                    "requestBody": {
                        "required": True,
                        "content": {
                            "application/json": {
                                "schema": {"$ref": "#/components/schemas/MatchCreate"}
                            }
                        },
                    },
                    "responses": {
                        "201": {
                            "description": "created",
                            "content": {
                                "application/json": {
                                    "schema": {"$ref": "#/components/schemas/MatchRead"}
                                }
                            },
                        },
                        "422": {"description": "invalid", "content": PROBLEM},
                    },
                }
            },
            "/v1/matches/{match_id}": {
                "get": {
                    "operationId": "getMatch",
                    "parameters": [
                        {"in": "path", "name": "match_id", "required": True},
                        {"in": "query", "name": "fields", "schema": {"type": "string"}},
                    ],
                    "responses": {
                        "200": {
                            "description": "ok",
                            "content": {
                                "application/json": {
                                    "schema": {"$ref": "#/components/schemas/MatchRead"}
                                }
                            },
                        },
                        "404": {"description": "no such match", "content": PROBLEM},
                    },
                }
            },
        },
        "components": {
            "schemas": {
                "Game": {"type": "string", "enum": ["asszorti", "alkort"]},
                "MatchCreate": {
                    "type": "object",
                    "additionalProperties": False,
                    "properties": {
                        "game": {"$ref": "#/components/schemas/Game"},
                        "players": {
                            "type": "array",
                            "items": {"type": "string", "minLength": 1, "maxLength": 40},
                            "maxItems": 4,
                        },
                        "note": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                    },
                    "required": ["game", "players"],
                },
                "MatchRead": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "string"},
                        "game": {"$ref": "#/components/schemas/Game"},
                        "round_count": {"type": "integer", "minimum": 0},
                        "ended_at": {
                            "anyOf": [{"type": "string", "format": "date-time"}, {"type": "null"}]
                        },
                    },
                    "required": ["id", "game", "round_count", "ended_at"],
                },
                "Problem": {"type": "object", "properties": {"code": {"type": "string"}}},
            }
        },
    }


def _schemas(doc: dict[str, Any]) -> dict[str, Any]:
    return doc["components"]["schemas"]


def _summary(changes: list[BreakingChange]) -> list[tuple[str, str]]:
    return [(c.where, c.message) for c in changes]


def test_identical_documents_have_no_breaking_change() -> None:
    assert compare(_doc(), _doc()) == []


def test_removed_path_and_operation_and_status() -> None:
    new = _doc()
    del new["paths"]["/v1/matches/{match_id}"]
    assert _summary(compare(_doc(), new)) == [("/v1/matches/{match_id}", "path removed")]

    new = _doc()
    del new["paths"]["/v1/matches"]["post"]
    new["paths"]["/v1/matches"]["get"] = {"responses": {"200": {"description": "ok"}}}
    assert _summary(compare(_doc(), new)) == [("POST /v1/matches", "operation removed")]

    new = _doc()
    del new["paths"]["/v1/matches/{match_id}"]["get"]["responses"]["404"]
    assert _summary(compare(_doc(), new)) == [
        ("GET /v1/matches/{match_id} response 404", "response status removed")
    ]


def test_removed_response_field_names_the_schema_and_every_operation_using_it() -> None:
    new = _doc()
    del _schemas(new)["MatchRead"]["properties"]["round_count"]
    _schemas(new)["MatchRead"]["required"].remove("round_count")
    [change] = compare(_doc(), new)
    assert (change.schema, change.where) == ("MatchRead", "MatchRead.round_count")
    assert change.message == "response property removed"
    assert change.operations == {"POST /v1/matches", "GET /v1/matches/{match_id}"}


def test_removed_request_field_and_parameter() -> None:
    new = _doc()
    del _schemas(new)["MatchCreate"]["properties"]["note"]
    del new["paths"]["/v1/matches/{match_id}"]["get"]["parameters"][1]
    assert _summary(compare(_doc(), new)) == [
        ("GET /v1/matches/{match_id} parameter query fields", "parameter removed"),
        ("MatchCreate.note", "request property removed"),
    ]


def test_removed_enum_value_in_requests_and_responses() -> None:
    new = _doc()
    _schemas(new)["Game"]["enum"] = ["asszorti"]
    changes = compare(_doc(), new)
    assert {(c.where, c.message, c.direction) for c in changes} == {
        ("Game", 'enum value "alkort" removed', "request"),
        ("Game", 'enum value "alkort" removed', "response"),
    }


def test_added_enum_value_is_not_breaking() -> None:
    new = _doc()
    _schemas(new)["Game"]["enum"].append("ulti")
    assert compare(_doc(), new) == []


@pytest.mark.parametrize(
    ("edit", "where", "message"),
    [
        (
            lambda s: s["MatchRead"]["properties"].update(round_count={"type": "string"}),
            "MatchRead.round_count",
            "type changed from integer to string",
        ),
        (
            lambda s: s["MatchCreate"]["properties"]["players"]["items"].update(maxLength=20),
            "MatchCreate.players[]",
            "maxLength lowered from 40 to 20",
        ),
        (
            lambda s: s["MatchCreate"]["properties"]["players"].update(maxItems=3),
            "MatchCreate.players",
            "maxItems lowered from 4 to 3",
        ),
        (
            lambda s: s["MatchRead"]["properties"]["round_count"].update(minimum=1),
            "MatchRead.round_count",
            "minimum raised from 0 to 1",
        ),
        (
            lambda s: s["MatchCreate"]["properties"]["players"]["items"].update(pattern="^[A-Z]"),
            "MatchCreate.players[]",
            'pattern "^[A-Z]" added',
        ),
        (
            lambda s: s["MatchRead"]["properties"].update(
                ended_at={"type": "string", "format": "date-time"}
            ),
            "MatchRead.ended_at",
            "no longer nullable",
        ),
        (
            lambda s: s["MatchRead"]["properties"].update(
                id={"anyOf": [{"type": "string"}, {"type": "null"}]}
            ),
            "MatchRead.id",
            "may now be null",
        ),
        (
            lambda s: s["MatchCreate"]["properties"].update(note={"type": "string"}),
            "MatchCreate.note",
            "null no longer accepted",
        ),
    ],
)
def test_narrowed_type(edit: Any, where: str, message: str) -> None:
    new = _doc()
    edit(_schemas(new))
    assert (where, message) in _summary(compare(_doc(), new))


def test_request_property_that_became_required() -> None:
    new = _doc()
    _schemas(new)["MatchCreate"]["required"].append("note")
    assert _summary(compare(_doc(), new)) == [
        ("MatchCreate.note", "request property became required")
    ]


def test_new_required_request_property_and_parameter() -> None:
    new = _doc()
    _schemas(new)["MatchCreate"]["properties"]["seed"] = {"type": "integer"}
    _schemas(new)["MatchCreate"]["required"].append("seed")
    new["paths"]["/v1/matches/{match_id}"]["get"]["parameters"].append(
        {"in": "header", "name": "X-Table", "required": True, "schema": {"type": "string"}}
    )
    assert _summary(compare(_doc(), new)) == [
        ("GET /v1/matches/{match_id} parameter header X-Table", "new required parameter"),
        ("MatchCreate.seed", "new required request property"),
    ]


def test_non_breaking_additions_pass() -> None:
    new = _doc()
    # A new optional request property, a new response property, a new path, a new
    # status, a wider request limit, a nullable request field, an optional parameter.
    _schemas(new)["MatchCreate"]["properties"]["seed"] = {"type": "integer"}
    _schemas(new)["MatchCreate"]["properties"]["players"]["maxItems"] = 8
    _schemas(new)["MatchCreate"]["properties"]["players"]["items"]["minLength"] = 0
    _schemas(new)["MatchRead"]["properties"]["winner"] = {"type": "integer"}
    _schemas(new)["MatchRead"]["required"].append("winner")
    new["paths"]["/v1/games"] = {"get": {"responses": {"200": {"description": "ok"}}}}
    new["paths"]["/v1/matches"]["post"]["responses"]["429"] = {
        "description": "slow down",
        "content": PROBLEM,
    }
    new["paths"]["/v1/matches/{match_id}"]["get"]["parameters"].append(
        {"in": "query", "name": "v", "required": False, "schema": {"type": "integer"}}
    )
    assert compare(_doc(), new) == []


def test_reference_cycles_terminate() -> None:
    old = _doc()
    _schemas(old)["MatchRead"]["properties"]["parent"] = {"$ref": "#/components/schemas/MatchRead"}
    new = copy.deepcopy(old)
    del _schemas(new)["MatchRead"]["properties"]["id"]
    _schemas(new)["MatchRead"]["required"].remove("id")
    assert _summary(compare(old, new)) == [("MatchRead.id", "response property removed")]


def test_union_variant_removed_and_a_reference_turned_into_a_union() -> None:
    old = _doc()
    _schemas(old)["Hand"] = {"type": "object", "properties": {"t": {"const": "hand"}}}
    _schemas(old)["Amounts"] = {"type": "object", "properties": {"t": {"const": "amounts"}}}
    _schemas(old)["MatchCreate"]["properties"]["first"] = {"$ref": "#/components/schemas/Hand"}
    widened = copy.deepcopy(old)
    _schemas(widened)["MatchCreate"]["properties"]["first"] = {
        "oneOf": [{"$ref": "#/components/schemas/Hand"}, {"$ref": "#/components/schemas/Amounts"}]
    }
    assert compare(old, widened) == []
    assert _summary(compare(widened, old)) == [
        ("MatchCreate.first", "Amounts removed from the union")
    ]


CHANGELOG = """# Changelog

## [Unreleased]

### Removed
- BREAKING: `MatchRead.round_count` is gone, count the rounds instead.
- Not breaking: /v1/matches/{match_id} is faster.

## [1.0.0] - 2026-01-01
- BREAKING: `Game` lost "alkort".
"""


def test_breaking_notes_come_from_the_unreleased_section_only() -> None:
    assert breaking_notes(CHANGELOG) == [
        "- BREAKING: `MatchRead.round_count` is gone, count the rounds instead."
    ]


def test_acknowledged_by_schema_name_passes() -> None:
    new = _doc()
    del _schemas(new)["MatchRead"]["properties"]["round_count"]
    [change] = check(_doc(), new, CHANGELOG)
    assert change.acknowledged


def test_acknowledgment_needs_the_unreleased_section_and_the_right_name() -> None:
    new = _doc()
    _schemas(new)["Game"]["enum"] = ["asszorti"]  # acknowledged only under 1.0.0
    assert not any(c.acknowledged for c in check(_doc(), new, CHANGELOG))

    # "Match" must not acknowledge a change to "MatchRead", nor "/v1/matches" one to
    # "/v1/matches/{match_id}".
    new = _doc()
    del new["paths"]["/v1/matches/{match_id}"]
    notes = "## Unreleased\n- BREAKING: Match and /v1/matches changed\n"
    assert not check(_doc(), new, notes)[0].acknowledged
    notes = "## Unreleased\n- BREAKING: `/v1/matches/{match_id}` removed.\n"
    assert check(_doc(), new, notes)[0].acknowledged


def test_acknowledged_by_paths_needs_every_affected_path() -> None:
    new = _doc()
    _schemas(new)["MatchRead"]["properties"]["round_count"]["maximum"] = 100
    one = "## [Unreleased]\n- BREAKING: /v1/matches/{match_id} caps round_count\n"
    assert not check(_doc(), new, one)[0].acknowledged
    both = one + "- BREAKING: /v1/matches too\n"
    assert check(_doc(), new, both)[0].acknowledged


def test_command_exit_status(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base, current, changelog = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "C.md"
    base.write_text(json.dumps(_doc()))
    new = _doc()
    del _schemas(new)["MatchRead"]["properties"]["round_count"]
    current.write_text(json.dumps(new))
    args = ["--baseline", str(base), "--current", str(current), "--changelog", str(changelog)]

    changelog.write_text("# Changelog\n\n## [Unreleased]\n")
    assert main(args) == 1
    assert "MatchRead.round_count: response property removed" in capsys.readouterr().out

    changelog.write_text(CHANGELOG)
    assert main(args) == 0

    current.write_text(json.dumps(_doc()))
    assert main(args) == 0
    assert main(["--baseline", str(tmp_path / "missing.json"), "--current", str(current)]) == 2


def test_an_unknown_git_ref_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--base", "refs/heads/no-such-branch-for-the-compat-test"]) == 2
    assert "unknown git ref" in capsys.readouterr().err


def test_a_variant_split_into_input_and_output_schemas_is_the_same_variant() -> None:
    """FastAPI renames X to X-Input / X-Output when its request and response shapes differ."""
    from scripts.openapi_compat import compare

    def doc(name: str) -> dict[str, object]:
        return {
            "openapi": "3.1.0",
            "paths": {
                "/r": {
                    "post": {
                        "requestBody": {
                            "content": {
                                "application/json": {
                                    "schema": {"oneOf": [{"$ref": f"#/components/schemas/{name}"}]}
                                }
                            }
                        },
                        "responses": {"200": {"description": "ok"}},
                    }
                }
            },
            "components": {
                "schemas": {name: {"type": "object", "properties": {"x": {"type": "integer"}}}}
            },
        }

    assert compare(doc("Hand"), doc("Hand-Input")) == []
