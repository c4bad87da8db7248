"""Helpers that play a table through the API."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient


class Table:
    """A match created through the API, with its tokens at hand."""

    def __init__(self, client: TestClient, body: dict[str, Any]) -> None:
        response = client.post("/v1/matches", json=body)
        assert response.status_code == 201, response.text
        self.client = client
        self.created = response.json()
        self.id: str = self.created["id"]
        self.tokens: dict[str, Any] = self.created["tokens"]
        self.url = f"/v1/matches/{self.id}"

    def auth(self, who: str | int = "host") -> dict[str, str]:
        token = self.tokens["players"][who] if isinstance(who, int) else self.tokens[who]
        return {"Authorization": f"Bearer {token}"}

    def get(
        self, path: str = "", who: str | int = "host", headers: dict[str, str] | None = None
    ) -> Any:
        return self.client.get(self.url + path, headers={**self.auth(who), **(headers or {})})

    def post(
        self,
        path: str,
        body: Any = None,
        who: str | int = "host",
        headers: dict[str, str] | None = None,
    ) -> Any:
        return self.client.post(
            self.url + path, json=body, headers={**self.auth(who), **(headers or {})}
        )

    def put(
        self, path: str, body: Any, who: str | int = "host", headers: dict[str, str] | None = None
    ) -> Any:
        return self.client.put(
            self.url + path, json=body, headers={**self.auth(who), **(headers or {})}
        )

    def patch(self, body: Any, who: str | int = "host") -> Any:
        return self.client.patch(self.url, json=body, headers=self.auth(who))

    def delete(
        self, path: str, who: str | int = "host", headers: dict[str, str] | None = None
    ) -> Any:
        return self.client.delete(self.url + path, headers={**self.auth(who), **(headers or {})})

    def round(self, body: dict[str, Any], who: str | int = "host") -> dict[str, Any]:
        response = self.post("/rounds", body, who)
        assert response.status_code == 201, response.text
        return dict(response.json())

    def match(self) -> dict[str, Any]:
        response = self.get()
        assert response.status_code == 200, response.text
        return dict(response.json())

    def snapshot(self) -> tuple[Any, Any]:
        """The match and its rounds, to prove a rejected write changed nothing."""
        return self.match(), self.get("/rounds").json()


def hand(
    declarer: int,
    tricks: list[int],
    contract: str = "1",
    trumps: str = "diamonds",
    kontra: str = "none",
    arrivazs: dict[str, Any] | None = None,
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "type": "asszorti_hand",
        "declarer": declarer,
        "contract": contract,
        "trumps": trumps,
        "tricks": tricks,
        "kontra": kontra,
    }
    if arrivazs is not None:
        body["arrivazs"] = arrivazs
    return body


def amounts(*values: int) -> dict[str, Any]:
    return {"type": "asszorti_amounts", "amounts": list(values)}


PLAYERS = ["Anna", "Berta", "Csaba"]
