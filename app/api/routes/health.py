"""Liveness and readiness."""

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from app.api.deps import DbDep
from app.services.health import readiness

router = APIRouter(tags=["health"])


@router.get("/healthz", name="healthz", summary="The process is up")
async def healthz() -> dict[str, str]:
    return {"status": "ok"}


@router.get(
    "/readyz",
    name="readyz",
    summary="The database is reachable and its schema is at head",
    responses={503: {"description": "Not ready"}},
)
async def readyz(db: DbDep) -> JSONResponse:
    ready, detail = readiness(db)
    return JSONResponse(
        {"status": "ok" if ready else "unavailable", "detail": detail},
        status_code=200 if ready else 503,
    )
