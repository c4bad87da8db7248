// A live event applied to the match and sheet the page holds, so that a change made on
// another phone redraws it with no request. Each event carries the match as it now is
// (status, totals, owed, net, settlement, standings, winner); a round's events also say
// what became of its row, and a correction the cells of later rows where they depend
// on it (later_cells). The rows are all the page keeps of the sheet beyond the match.
//
// An event the page cannot apply answers null, and the page reads the match and the
// sheet again: one that skips a version (the stream missed a change, or a kind this
// page does not listen to went by), a snapshot newer than what the page holds, a kind
// it does not know, or a round that does not fit the rows it holds.

/** The changes the page applies; the stream's events by these names. */
export const CHANGES = ["round_entered", "round_corrected", "round_removed", "match_updated", "token_reissued", "ended"];

/** A round's row of the sheet, as GET …/sheet has it. */
function rowOf(round) {
  return { number: round.number, dealer: round.dealer, cells: round.result.cells, net: round.result.net };
}

/** The rows after a change of the rounds, or null when the change does not fit them. */
function rowsAfter(rows, event) {
  switch (event.kind) {
    case "round_entered":
      return event.round && event.round.number === rows.length + 1 ? [...rows, rowOf(event.round)] : null;
    case "round_corrected": {
      const round = event.round;
      const later = event.later_cells || null; // null: the later rows are as they were
      if (!round || !rows[round.number - 1] || (later && later.length !== rows.length - round.number)) {
        return null;
      }
      return rows.map((row, index) => {
        if (index === round.number - 1) return rowOf(round);
        return later && index >= round.number ? { ...row, cells: later[index - round.number] } : row;
      });
    }
    case "round_removed":
      return event.number === rows.length ? rows.slice(0, -1) : null;
    default:
      return rows; // names, settings, tokens, the end: the rows stay
  }
}

/** The sheet of `match` with `rows`, as GET …/sheet answers it (teams.js labels it). */
function sheetOf(match, rows) {
  return {
    columns: match.players.map((player) => player.name),
    rows,
    totals: match.totals,
    owed: match.owed,
    net: match.net,
    settlement: match.settlement ?? null,
  };
}

/**
 * What `event` (its data, parsed) makes of the `match` and `sheet` the page holds:
 * `{ match, sheet }` to draw; `{ unchanged: true }` when the page has it already (an
 * event at or below the version it holds); or null when it cannot be applied.
 */
export function applyEvent(match, sheet, event) {
  if (!event || !Number.isInteger(event.version) || !event.match) return null;
  if (event.version <= match.version) return { unchanged: true };
  if (event.kind === "snapshot" || !CHANGES.includes(event.kind)) return null;
  if (event.version !== match.version + 1) return null; // a change went by unseen
  const rows = rowsAfter(sheet.rows, event);
  return rows ? { match: event.match, sheet: sheetOf(event.match, rows) } : null;
}
