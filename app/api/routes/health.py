"""Liveness and readiness; and the metrics, when the operator turns them on."""

from fastapi import APIRouter, Response

from app import metrics
from app.api.deps import DbDep
from app.api.problems import responses
from app.schemas import HealthRead
from app.services.health import readiness

router = APIRouter(tags=["health"])
# Included only with METRICS_ENABLED (app.main); not part of the API's document.
metrics_router = APIRouter(include_in_schema=False)


@router.get("/healthz", response_model=HealthRead, name="healthz", summary="The process is up")
async def healthz() -> HealthRead:
    """Answers as long as the process serves requests."""
    return HealthRead(status="ok", detail="process up")


@router.get(
    "/readyz",
    response_model=HealthRead,
    name="readyz",
    summary="The database is reachable and its schema is at head",
    responses=responses(503),
)
def readyz(db: DbDep) -> HealthRead:
    """503 `not_ready` while the database is unreachable or not migrated to head."""
    return HealthRead(status="ok", detail=f"schema at {readiness(db)}")


@metrics_router.get("/metrics")
async def metrics_page() -> Response:
    """Prometheus' text format (app/metrics.py)."""
    body, media_type = metrics.exposition()
    return Response(body, media_type=media_type)
