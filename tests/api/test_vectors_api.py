"""The published scoring vectors are what the service answers over HTTP: every table
in docs/vectors/scoring-vectors.json is played through the API, on both databases,
and each step gets the score, the sheet, the status and the refusal the file says."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient

from scripts import export_vectors

VECTORS = json.loads(export_vectors.PATH.read_text(encoding="utf-8"))
TABLES = [(game, table) for game, tables in VECTORS["games"].items() for table in tables]
NAMES = ["Anna", "Bela", "Cili", "Dani", "Ede", "Flora", "Gabi", "Hugo"]


@pytest.mark.parametrize(("game", "table"), TABLES, ids=[t["about"][:40] for _, t in TABLES])
def test_the_service_answers_each_table_as_the_vectors_say(
    client: TestClient, game: str, table: dict[str, Any]
) -> None:
    body = {"game": game, "players": NAMES[: table["players"]], "settings": table["settings"]}
    created = client.post("/v1/matches", json=body)
    assert created.status_code == 201, created.text
    path = f"/v1/matches/{created.json()['id']}"
    auth = {"Authorization": f"Bearer {created.json()['tokens']['host']}"}
    for step in table["steps"]:
        if "correct" in step:
            number = step["correct"]
            answer = client.put(f"{path}/rounds/{number}", json=step["round"], headers=auth)
            if "refused" in step:
                assert answer.status_code == 409, (step, answer.text)
                assert answer.json()["code"] == step["refused"], step
                continue
            assert answer.status_code == 200, (step, answer.text)
            result = answer.json()["result"]
            assert result["net"] == step["score"]["net"], step
            assert result["cells"] == step["cells"], step
        elif "round" in step:
            answer = client.post(f"{path}/rounds", json=step["round"], headers=auth)
            if "rejected" in step:
                assert answer.status_code == 422, (step, answer.text)
                assert answer.json()["errors"][0]["loc"] == step["rejected"], step
                continue
            assert answer.status_code == 201, (step, answer.text)
            result = answer.json()["result"]
            score = step["score"]
            assert result["net"] == score["net"], step
            assert result["breakdown"] == {"game": game, **score["breakdown"]}, step
            assert (result["cells"], result["totals"], result["owed"]) == (
                step["cells"],
                step["totals"],
                step["owed"],
            ), step
        else:
            answer = client.patch(path, json={"settings": step["settings"]}, headers=auth)
            if "refused" in step:
                assert answer.status_code == 409, (step, answer.text)
                assert answer.json()["code"] == step["refused"], step
                continue
            assert answer.status_code == 200, (step, answer.text)
        match = client.get(path, headers=auth).json()
        assert (match["status"], match["winner"]) == (step["status"], step["winner"]), step
        if "round" in step:
            assert (match["net"], match["settlement"]) == (step["net"], step["settlement"]), step
            assert match["totals"] == step["totals"], step
