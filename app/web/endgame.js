// The end of a match: the winner, the standings and (Asszorti, a zero-sum own table)
// the settlement, as the API gives them; the sheet as CSV in the page's language
// (fetched with the token in the Authorization header, saved from a Blob: no token in
// any URL); and Print (the @media print styles). The host of an ended match starts its
// rematch from here, and every phone is told at the top once it has started (the stream
// follows an ended match too): a phone that has no key for the rematch takes its own seat
// there with one tap, the same role and seat its key of the ended match has (takeRematchSeat).
import { ApiError, NetworkError, api, call, newKey } from "./api.js";
import { clear, h } from "./dom.js";
import { language, t } from "./i18n.js";
import { problemNodes } from "./problems.js";
import { addKey, getEntry } from "./store.js";
import { keepNewMatch } from "./tables.js";
import { chartFigure } from "./chart.js";

function hasTeam(value) {
  return value !== null && value !== undefined;
}

/** The names of a standing's or the winner's side: a team's column, or the seats' names. */
function sideNames(side, match, sheet) {
  if (hasTeam(side.team)) return [sheet.columns[side.team]];
  return (side.seats || []).map((seat) => match.players[seat].name);
}

/** The winner's names ([] when there is none yet, or a tie with no winner). */
export function winnerNames(match, sheet) {
  return match.winner ? sideNames(match.winner, match, sheet) : [];
}

/** The address of the sheet as CSV, its headings in the page's language. */
export function csvUrl(id, lang = language()) {
  return `/v1/matches/${encodeURIComponent(id)}/sheet.csv?lang=${encodeURIComponent(lang)}`;
}

/** The sheet as CSV, as a file on this device. */
export async function downloadCsv(id, token) {
  let response;
  try {
    response = await fetch(csvUrl(id), {
      headers: { Accept: "text/csv", Authorization: `Bearer ${token}` },
      cache: "no-store",
      credentials: "omit",
    });
  } catch (error) {
    throw new NetworkError(String(error));
  }
  if (!response.ok) {
    let problem = null;
    try {
      problem = await response.json();
    } catch {
      problem = null;
    }
    throw new ApiError(response.status, problem);
  }
  const blob = await response.blob();
  const url = URL.createObjectURL(blob);
  const link = h("a", { href: url, download: `squarescores-${id}.csv`, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** The result card (above the controls) and the tools row (CSV, Print) of a table. */
export class EndGame {
  constructor(table) {
    this.table = table;
    this.result = h("section", { class: "card result", id: "result", hidden: true });
    this.note = h("p", { class: "note error", id: "tools-note", role: "alert", hidden: true });
    const download = () => this.download();
    this.csv = h("button", { type: "button", id: "csv", onclick: download }, t("download_csv"));
    const print = () => window.print();
    this.print = h("button", { type: "button", id: "print", onclick: print }, t("print"));
    const actions = h("div", { class: "actions" }, this.csv, this.print);
    this.tools = h("div", { class: "tools" }, actions, this.note);
    this.rematchKey = null; // kept until the rematch is answered: a retry replays it
    // The started rematch, under the status line: every phone sees it without scrolling.
    this.rematchBox = h("section", { class: "card rematch-box", id: "rematch-box", role: "status", hidden: true });
    this.rematchShown = null; // the rematch the box was drawn for (a redraw keeps its note)
  }

  /** The box of a started rematch: open it, or take this phone's own seat in it. */
  drawRematch(match) {
    const id = match.status === "ended" ? match.rematch_id : null;
    const known = Boolean(id && getEntry(id));
    const shown = id ? `${id}:${known}` : null;
    if (shown === this.rematchShown) return;
    this.rematchShown = shown;
    this.rematchBox.hidden = !id;
    if (!id) return clear(this.rematchBox);
    const href = `#/m/${encodeURIComponent(id)}`;
    if (known) {
      const link = h("a", { href, class: "button primary", id: "rematch-link" }, t("rematch_open"));
      return clear(this.rematchBox).append(h("p", { class: "rematch" }, link));
    }
    const role = (this.table.entry && this.table.entry.role) || "viewer";
    const take = h("button", { type: "button", class: "primary", id: "rematch-take" }, t(`rematch_take_${role}`));
    const note = h("p", { class: "note error", id: "rematch-take-note", role: "alert", hidden: true });
    take.addEventListener("click", () => this.takeSeat(take, note));
    clear(this.rematchBox).append(
      h("p", { class: "rematch", id: "rematch-note" }, t("rematch_started")),
      h("p", { class: "actions" }, take),
      note,
    );
  }

  /** This phone's own seat in the rematch (its key's role and seat), then the rematch. */
  async takeSeat(button, note) {
    const table = this.table;
    button.disabled = true;
    note.hidden = true;
    try {
      const seat = await api.takeRematchSeat(table.id, table.token);
      addKey(seat.match_id, seat.token, seat.role, seat.seat);
      location.hash = `#/m/${encodeURIComponent(seat.match_id)}`;
    } catch (error) {
      note.replaceChildren(...problemNodes(error)); // a key replaced meanwhile gets nothing
      note.hidden = false;
      note.scrollIntoView({ block: "nearest" });
      button.disabled = false;
    }
  }

  /** The host's Rematch button in the result card of an ended match not yet rematched. */
  rematchPart(match) {
    if (match.status !== "ended" || match.rematch_id) return null;
    const entry = this.table.entry;
    if (!entry || entry.role !== "host") return null;
    const button = h("button", { type: "button", class: "primary", id: "rematch" }, t("rematch"));
    button.addEventListener("click", () => this.startRematch(button));
    return h("p", { class: "rematch" }, button);
  }

  async startRematch(button) {
    const table = this.table;
    this.note.hidden = true;
    button.disabled = true;
    this.rematchKey = this.rematchKey || newKey();
    try {
      const path = `/v1/matches/${encodeURIComponent(table.id)}/rematch`;
      const { data: match } = await call("POST", path, { token: table.token, key: this.rematchKey });
      keepNewMatch(match); // as after a create: the host hands out the new links
      this.rematchKey = null;
      location.hash = `#/m/${match.id}/links`;
    } catch (error) {
      this.note.replaceChildren(...problemNodes(error));
      this.note.hidden = false;
      button.disabled = false;
      if (error instanceof ApiError) table.refresh().catch(() => {}); // a rematch made elsewhere
    }
  }

  draw() {
    const { match, sheet } = this.table;
    if (!match || !sheet) return;
    this.drawRematch(match);
    if (match.status === "in_progress") {
      this.result.hidden = true;
      clear(this.result);
      return;
    }
    const winners = winnerNames(match, sheet);
    const standings = h(
      "table",
      { class: "standings", id: "standings" },
      h(
        "tbody",
        {},
        match.standings.map((standing) =>
          h(
            "tr",
            { class: standing.rank === 1 ? "first" : undefined },
            h("td", { class: "rank" }, `${standing.rank}.`),
            h("td", { class: "who" }, sideNames(standing, match, sheet).join(", ")),
            h("td", { class: "score" }, String(standing.total)),
          ),
        ),
      ),
    );
    const parts = [
      h("h2", {}, t(match.status === "ended" ? "result_final" : "result_decided")),
      h(
        "p",
        { class: "winner", id: "winner" },
        winners.length ? t("winner", { names: winners.join(", ") }) : t("no_winner"),
      ),
      h("h3", {}, t("standings")),
      standings,
    ];
    const chart = chartFigure(match, sheet, { id: "result-chart" }); // the evening (chart.js)
    if (chart) parts.push(chart);
    const rematch = this.rematchPart(match);
    if (rematch) parts.splice(2, 0, rematch);
    const settlement = sheet.settlement || match.settlement;
    if (Array.isArray(settlement)) {
      // Payer and payee are seats, or teams at an own table with teams.
      const names = match.settings && match.settings.teams > 0 ? sheet.columns : this.table.names();
      parts.push(
        h("h3", {}, t("settlement_title")),
        settlement.length
          ? h(
              "ul",
              { class: "settlement", id: "settlement" },
              settlement.map((payment) =>
                h(
                  "li",
                  { dataset: { payer: String(payment.payer), payee: String(payment.payee) } },
                  t("pays", {
                    payer: names[payment.payer],
                    payee: names[payment.payee],
                    amount: payment.amount,
                  }),
                ),
              ),
            )
          : h("p", { class: "muted", id: "settlement" }, t("settlement_none")),
      );
    }
    clear(this.result).append(...parts);
    this.result.className = `card result ${match.status}`;
    this.result.hidden = false;
  }

  async download() {
    this.note.hidden = true;
    this.csv.disabled = true;
    try {
      await downloadCsv(this.table.id, this.table.token);
    } catch (error) {
      this.note.replaceChildren(...problemNodes(error));
      this.note.hidden = false;
    } finally {
      this.csv.disabled = false;
    }
  }
}
