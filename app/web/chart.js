// A picture of the evening: each column's running total after every round, drawn as
// SVG by hand (no library), with the start at 0, the 0 line and, in a race to a target
// (Alkort, an own table with a target), the target's line. The same chart shows under
// the sheet (collapsible) and on the result card. The sheet's head and totals get each
// column's colour and the leader's mark from here too (decorateSheet).
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { colourOf, dashOf, leaders, paint } from "./palette.js";

const SVG = "http://www.w3.org/2000/svg";
// The drawing's own units; it scales to the card's width, about one unit a pixel at 360 px.
const WIDTH = 320;
const HEIGHT = 200;
const PAD = { left: 44, right: 14, top: 22, bottom: 30 }; // room for the target's label
const LABEL_GAP = 18; // two axis labels closer than a line of 14 px text would overlap
const X_LABELS = 7; // round numbers under the axis, at most

function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value !== null && value !== undefined) el.setAttribute(name, String(value));
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined) el.append(child);
  }
  return el;
}

/** Each column's total before the first round (0) and after each round. The sheet's
 * total is the sum of its column, so the last point is the sheet's total. */
export function runningTotals(sheet) {
  return sheet.totals.map((_, column) => {
    let total = 0;
    return [0, ...sheet.rows.map((row) => (total += row.cells[column]))];
  });
}

function target(match) {
  const value = match.settings && match.settings.target;
  return typeof value === "number" ? value : null;
}

/** What the chart shows, in words: the screen reader's reading and the SVG's title. */
export function chartLabel(match, sheet) {
  const totals = sheet.columns.map((name, column) => `${name} ${sheet.totals[column]}`).join(", ");
  const n = sheet.rows.length ? sheet.rows[sheet.rows.length - 1].number : 0;
  if (match.game === "asszorti") return t("chart_label_asszorti", { n, totals });
  const goal = target(match);
  if (goal !== null) return t("chart_label_target", { n, target: goal, totals });
  return t("chart_label", { n, totals });
}

function round1(value) {
  return Math.round(value * 10) / 10;
}

/** The SVG: a line per column, the axes with the round numbers, 0 and the target. */
function drawing(match, sheet, series) {
  const goal = target(match);
  const values = [0, ...series.flat(), ...(goal === null ? [] : [goal])];
  let low = Math.min(...values);
  let high = Math.max(...values);
  if (low === high) high = low + 1;
  const rounds = series[0].length - 1;
  const plotWidth = WIDTH - PAD.left - PAD.right;
  const plotHeight = HEIGHT - PAD.top - PAD.bottom;
  const x = (index) => round1(PAD.left + (index * plotWidth) / rounds);
  const y = (value) => round1(PAD.top + ((high - value) * plotHeight) / (high - low));

  const parts = [s("title", {}, chartLabel(match, sheet))];
  // The value axis: the highest and lowest values and 0, unless a label would overlap.
  const marks = [high, low, 0].filter(
    (value, index, all) =>
      all.indexOf(value) === index &&
      all.slice(0, index).every((other) => Math.abs(y(other) - y(value)) >= LABEL_GAP),
  );
  for (const value of marks) {
    const at = { x: PAD.left - 6, y: y(value), "text-anchor": "end", "dominant-baseline": "middle" };
    parts.push(s("text", { class: "chart-tick", ...at }, String(value)));
  }
  parts.push(
    s("line", { class: "chart-axis", x1: PAD.left, x2: PAD.left, y1: PAD.top, y2: PAD.top + plotHeight }),
    s("line", { class: "chart-zero", x1: PAD.left, x2: WIDTH - PAD.right, y1: y(0), y2: y(0) }),
  );
  // The round numbers: every step-th round, and the last one when it has room.
  const step = Math.max(1, Math.ceil(rounds / X_LABELS));
  const numbers = [];
  for (let index = step; index <= rounds; index += step) numbers.push(index);
  if (numbers[numbers.length - 1] !== rounds && rounds - numbers[numbers.length - 1] >= step / 2) {
    numbers.push(rounds);
  }
  const baseline = HEIGHT - 8;
  for (const index of numbers) {
    const number = sheet.rows[index - 1].number;
    parts.push(s("text", { class: "chart-tick", x: x(index), y: baseline, "text-anchor": "middle" }, String(number)));
  }
  if (goal !== null) {
    parts.push(
      s("line", { class: "chart-target", x1: PAD.left, x2: WIDTH - PAD.right, y1: y(goal), y2: y(goal) }),
      s(
        "text",
        { class: "chart-tick chart-target-label", x: WIDTH - PAD.right, y: y(goal) - 4, "text-anchor": "end" },
        t("chart_target", { target: goal }),
      ),
    );
  }
  series.forEach((points, column) => {
    const d = points.map((value, index) => `${index ? "L" : "M"}${x(index)} ${y(value)}`).join(" ");
    parts.push(
      s("path", {
        class: "chart-line",
        d,
        fill: "none",
        stroke: colourOf(column),
        "stroke-width": 2.5,
        "stroke-linejoin": "round",
        "stroke-dasharray": dashOf(column),
        "data-column": column,
      }),
    );
  });
  return s(
    "svg",
    {
      class: "chart-svg",
      viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
      role: "img",
      "aria-label": chartLabel(match, sheet),
    },
    parts,
  );
}

/** The names beside their colour and line, with the totals; the leader marked. */
function legend(match, sheet) {
  const ahead = leaders(match, sheet);
  return h(
    "ul",
    { class: "chart-legend", "aria-hidden": "true" },
    sheet.columns.map((name, column) =>
      paint(
        h(
          "li",
          { class: ahead.includes(column) ? "leader" : undefined },
          s(
            "svg",
            { class: "chart-key", viewBox: "0 0 24 10", "aria-hidden": "true" },
            s("line", {
              x1: 0,
              x2: 24,
              y1: 5,
              y2: 5,
              stroke: colourOf(column),
              "stroke-width": 3,
              "stroke-dasharray": dashOf(column),
            }),
          ),
          h("span", { class: "chart-name" }, name),
          " ",
          h("span", { class: "chart-total" }, String(sheet.totals[column])),
          ahead.includes(column) ? leadMark() : null,
        ),
        column,
      ),
    ),
  );
}

/** The chart with its legend, or null before the first round (nothing to draw yet). */
export function chartFigure(match, sheet, { id } = {}) {
  if (!sheet.rows.length || !sheet.columns.length) return null;
  const series = runningTotals(sheet);
  return h(
    "figure",
    { class: "chart", id },
    drawing(match, sheet, series),
    legend(match, sheet),
    match.game === "asszorti" ? h("figcaption", { class: "muted" }, t("chart_note_asszorti")) : null,
  );
}

/** The chart under the sheet while the match is in play (the result card has it after):
 * a card that folds away (it takes room on a phone); folded or not outlives redraws. */
export class SheetChart {
  constructor() {
    this.body = h("div", { class: "chart-body" });
    this.element = h(
      "details",
      { class: "card chart-card", id: "chart-card", open: true, hidden: true },
      h("summary", {}, t("chart_title")),
      this.body,
    );
  }

  draw(match, sheet) {
    const playing = match && sheet && match.status === "in_progress";
    const figure = playing ? chartFigure(match, sheet, { id: "chart" }) : null;
    this.element.hidden = !figure;
    this.body.replaceChildren(...(figure ? [figure] : []));
  }
}

/** The leader's mark: a star (drawn by the CSS, so the cell's text stays the number),
 * named for a screen reader; colour is never the only sign. */
function leadMark() {
  return h("span", { class: "lead-mark", role: "img", "aria-label": t("leads"), title: t("leads") });
}

/** A colour swatch on each column head and the colour on each total (the sheet's, and
 * the bar's within reach); the leader's head and totals marked. Called once the sheet
 * and the bar are drawn, with the element holding both. */
export function decorateSheet(box, match, sheet) {
  const heads = [...box.querySelectorAll("#sheet thead th[scope=col]")].slice(1);
  const totals = [...box.querySelectorAll("#sheet tfoot tr.totals td, #reach-totals .reach-total")];
  const ahead = leaders(match, sheet);
  heads.forEach((th, column) => {
    // One short line above the name: the swatch, and the star beside it.
    const marks = h("span", { class: "head-marks" }, h("span", { class: "swatch", "aria-hidden": "true" }));
    th.prepend(paint(marks, column));
    if (ahead.includes(column)) {
      th.classList.add("leader");
      marks.append(leadMark());
    }
  });
  const columns = sheet.totals.length;
  totals.forEach((cell, index) => {
    const column = index % columns; // the sheet's totals, then the bar's
    paint(cell, column).classList.add("seat-total");
    if (ahead.includes(column)) {
      cell.classList.add("leader");
      cell.append(leadMark());
    }
  });
}
