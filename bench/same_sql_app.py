"""What FastAPI and SQLAlchemy cost for POST round and GET match with nothing of the
app around the SQL: ``scripts/bench.py`` measures it beside the app on SQLite.

The same engine (``app.db.database.Database``: its pragmas and JSON codec) and the
same statements (``app.db.repository``) as the app, in one transaction run inline on
the event loop. The caller's access is checked as the app checks it
(``app.services.auth.match_for_caller``, the match and the credential in one
statement) and the body validated by the app's ``RoundBody``. Not here: the
middleware (request id, body limit), the dependencies (bearer token, database,
settings, If-Match, Idempotency-Key), the worker thread each request's unit of work
runs in, the problem answers, scoring, the new sheet, the live event and the response model. A
round is stored with fixed points and the sheet is not updated, so a match this app
wrote to is not one to read with the app.

Served over the bench's SQLite database, after the app's measurements: its ratio to
the bare endpoint is the most the app's POST round or GET match could reach on this
stack (docs/performance.md, "What one run does", step 7).
"""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated, Any

from fastapi import Body, FastAPI, Header, Response

from app.db import repository
from app.db.database import Database, UnitOfWork
from app.schemas import RoundBody
from app.services.auth import Access, Permission, match_for_caller
from app.services.match_state import utcnow
from app.settings import get_settings

db = Database(get_settings())


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    yield
    db.dispose()


app = FastAPI(
    title="bench: the same SQL", openapi_url=None, docs_url=None, redoc_url=None, lifespan=lifespan
)


def _access(authorization: str | None, match_id: str, need: Permission) -> Access:
    return Access.of((authorization or "").removeprefix("Bearer "), match_id, need)


@app.get("/healthz")
async def healthz() -> dict[str, str]:
    return {"status": "ok"}


@app.get("/v1/matches/{match_id}")
async def get_match(
    match_id: str, authorization: Annotated[str | None, Header()] = None
) -> Response:
    with db.engine.connect() as connection, connection.begin():
        row, _ = match_for_caller(
            UnitOfWork(connection), _access(authorization, match_id, Permission.READ)
        )
    return Response(b'{"version":%d}' % row["version"], media_type="application/json")


@app.post("/v1/matches/{match_id}/rounds", status_code=201)
async def create_round(
    match_id: str,
    body: Annotated[RoundBody, Body()],
    authorization: Annotated[str | None, Header()] = None,
) -> Response:
    with db.engine.connect() as connection, connection.begin():
        connection.exec_driver_sql("BEGIN IMMEDIATE")  # as Database.unit_of_work begins a write
        access = _access(authorization, match_id, Permission.PLAY)
        row, who = match_for_caller(UnitOfWork(connection), access, for_update=True)
        number, version, now = row["round_count"] + 1, row["version"] + 1, utcnow()
        new_round: dict[str, Any] = {
            "match_id": match_id,
            "number": number,
            "type": body.type,
            "input": body.model_dump(mode="json"),
            "dealer": 0,
            "points": [2, -1, -1],
            "result": {"net": [2, -1, -1], "breakdown": {}},
            "entered_by": who.label,
            "created_at": now,
            "updated_at": now,
        }
        repository.insert_round(connection, new_round)
        changed = {"round_count": number, "version": version, "updated_at": now}
        repository.update_match(connection, match_id, changed)
        payload = {"kind": "round_entered", "version": version, "round": new_round["points"]}
        repository.insert_change(
            connection,
            {
                "match_id": match_id,
                "version": version,
                "kind": "round_entered",
                "payload": payload,
                "created_at": now,
            },
        )
    return Response(b'{"number":%d}' % number, status_code=201, media_type="application/json")
