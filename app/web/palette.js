// A colour per seat (or team), the same on the sheet's head, its totals and the chart.
// Each is at least 4.5:1 on white, so a coloured total stays readable as text; a dash
// pattern per line and the names beside the swatches mean colour is never the only sign.
export const PALETTE = [
  "#1d4ed8", // blue
  "#c2410c", // orange
  "#15803d", // green
  "#7e22ce", // purple
  "#0f766e", // teal
  "#a16207", // amber
  "#be185d", // pink
  "#475569", // slate
];

// The chart's line for each column: solid, then dashes and dots that tell lines apart.
const DASHES = [null, "8 4", "2 4", "10 4 2 4", "4 4", "12 4", "2 4 2 8", "6 2 2 2"];

export function colourOf(column) {
  return PALETTE[column % PALETTE.length];
}

export function dashOf(column) {
  return DASHES[column % DASHES.length];
}

/** Give `el` the column's colour as the --seat custom property (CSSOM: the CSP allows
 * it where a style attribute in markup would be refused). */
export function paint(el, column) {
  el.style.setProperty("--seat", colourOf(column));
  return el;
}

/** The columns in the lead: the highest total, or the lowest at an own table whose
 * lowest total wins; none before the first round,
 * nor when all are level. Ties lead together. */
export function leaders(match, sheet) {
  if (!sheet.rows.length || !sheet.totals.length) return [];
  const lowest = Boolean(match.settings && match.settings.lowest_wins);
  const best = lowest ? Math.min(...sheet.totals) : Math.max(...sheet.totals);
  const ahead = sheet.totals.flatMap((total, column) => (total === best ? [column] : []));
  return ahead.length < sheet.totals.length ? ahead : []; // all level: nobody leads
}
