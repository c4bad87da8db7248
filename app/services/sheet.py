"""The score sheet, as JSON or CSV."""

from __future__ import annotations

import csv
import io

from app.db.engine import Database
from app.schemas import SheetRead, SheetRow
from app.services.rounds import round_rows
from app.services.state import fold


def get_sheet(db: Database, match_id: str) -> tuple[SheetRead, int]:
    """Column headings, one row of cells per round, then totals; and the match version."""
    state, rows = round_rows(db, match_id)
    sheet = state.sheet
    cells = [row_cells for row_cells, _ in fold(state.game, (row["points"] for row in rows))]
    result = SheetRead(
        columns=state.game.columns(state.row["players"], state.row["team_names"]),
        rows=[
            SheetRow(
                number=row["number"],
                dealer=row["dealer"],
                cells=list(row_cells),
                net=row["result"]["net"],
            )
            for row, row_cells in zip(rows, cells, strict=True)
        ],
        totals=list(sheet.totals),
        owed=list(sheet.owed) if sheet.owed is not None else None,
        net=list(sheet.net) if sheet.net is not None else None,
    )
    return result, int(state.row["version"])


def sheet_csv(sheet: SheetRead) -> str:
    """The sheet as CSV: a heading row, a row per round, then ``total`` and ``owed`` rows."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(["round", "dealer", *(_cell_text(name) for name in sheet.columns)])
    for row in sheet.rows:
        writer.writerow([row.number, row.dealer, *row.cells])
    writer.writerow(["total", "", *sheet.totals])
    if sheet.owed is not None:
        writer.writerow(["owed", "", *sheet.owed])
    return out.getvalue()


def _cell_text(text: str) -> str:
    """Keep a name from being read as a formula by a spreadsheet (CSV injection)."""
    return f"'{text}" if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text
