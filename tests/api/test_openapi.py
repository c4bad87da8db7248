"""The committed OpenAPI document is the one the app serves, and it is usable."""

from __future__ import annotations

import json
from typing import Any

from scripts.export_openapi import PATH, render


def test_committed_document_equals_what_the_app_serves(client: Any) -> None:
    served = client.get("/openapi.json").json()
    committed = json.loads(PATH.read_text(encoding="utf-8"))
    assert committed == served, "run `make openapi` and commit openapi/openapi.json"
    assert PATH.read_text(encoding="utf-8") == render()


def test_operations_have_ids_tags_and_error_responses() -> None:
    document = json.loads(PATH.read_text(encoding="utf-8"))
    operation_ids = []
    for path, item in document["paths"].items():
        for method, operation in item.items():
            operation_ids.append(operation["operationId"])
            assert len(operation["tags"]) == 1, (method, path)
            assert operation.get("summary"), (method, path)
            if "{match_id}" in path and operation.get("security"):
                assert {"401", "403", "404"} <= set(operation["responses"]), (method, path)
            elif "{match_id}" in path:  # recoverHostToken: the recovery code, no token
                assert {"401", "404"} <= set(operation["responses"]), (method, path)
            for status, response in operation["responses"].items():
                if status.startswith(("4", "5")):
                    assert "application/problem+json" in response.get("content", {}), (
                        method,
                        path,
                        status,
                    )
    assert len(operation_ids) == len(set(operation_ids))
    assert {"createMatch", "createRound", "getMatch", "getSheet", "endMatch"} <= set(operation_ids)


def test_round_body_is_a_discriminated_union() -> None:
    document = json.loads(PATH.read_text(encoding="utf-8"))
    create = document["paths"]["/v1/matches/{match_id}/rounds"]["post"]
    ref = create["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    schema = document["components"]["schemas"][ref.rsplit("/", 1)[-1]]
    assert ref.endswith("/RoundInput")
    assert schema["discriminator"]["propertyName"] == "type"
    assert set(schema["discriminator"]["mapping"]) >= {"asszorti_hand", "asszorti_amounts"}


def test_every_operation_is_in_the_client_guide() -> None:
    """A client author finds every operation, by its operationId, in the guide."""
    document = json.loads(PATH.read_text(encoding="utf-8"))
    guide = (PATH.parents[1] / "docs" / "client-guide.md").read_text(encoding="utf-8")
    missing = [
        operation["operationId"]
        for item in document["paths"].values()
        for operation in item.values()
        if f"`{operation['operationId']}`" not in guide
    ]
    assert missing == []


def test_throttled_and_unavailable_answers_say_when_to_retry() -> None:
    """Every 429 and 503 declares Retry-After, and every 304 its ETag."""
    document = json.loads(PATH.read_text(encoding="utf-8"))
    for path, item in document["paths"].items():
        for method, operation in item.items():
            for status, response in operation["responses"].items():
                headers = response.get("headers", {})
                if status in ("429", "503"):
                    assert headers["Retry-After"]["required"], (method, path, status)
                if status == "304":
                    assert headers["ETag"]["required"], (method, path)
            if operation.get("requestBody"):
                assert "413" in operation["responses"], (method, path)
            assert "security" in operation, (method, path)
    # A stream ticket opens the stream without a token: either will do.
    stream = document["paths"]["/v1/matches/{match_id}/events"]["get"]
    assert stream["security"] == [{"HTTPBearer": []}, {}]
