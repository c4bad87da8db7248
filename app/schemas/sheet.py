"""A match's score sheet."""

from __future__ import annotations

from pydantic import ConfigDict, Field

from app.schemas.common import Read
from app.schemas.matches import SETTLEMENT_DESCRIPTION, PaymentRead


class SheetRow(Read):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [{"number": 1, "dealer": 0, "cells": [0, 18, 0], "net": [-9, 18, -9]}]
        }
    )
    number: int
    dealer: int
    cells: list[int]
    net: list[int] | None


class SheetRead(Read):
    """The score sheet: one row of cells per round, then the totals."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "columns": ["Anna", "Berta", "Csaba"],
                    "rows": [{"number": 1, "dealer": 0, "cells": [0, 18, 0], "net": [-9, 18, -9]}],
                    "totals": [0, 18, 0],
                    "owed": [9, 0, 9],
                    "net": [-9, 18, -9],
                    "settlement": [
                        {"payer": 0, "payee": 1, "amount": 9},
                        {"payer": 2, "payee": 1, "amount": 9},
                    ],
                }
            ]
        }
    )

    columns: list[str]
    rows: list[SheetRow]
    totals: list[int]
    owed: list[int] | None
    net: list[int] | None
    settlement: list[PaymentRead] | None = Field(None, description=SETTLEMENT_DESCRIPTION)
