"""The service's health."""

from __future__ import annotations

from pydantic import ConfigDict

from app.schemas.common import Read


class HealthRead(Read):
    model_config = ConfigDict(
        json_schema_extra={"examples": [{"status": "ok", "detail": "schema at 0003"}]}
    )
    status: str
    detail: str
