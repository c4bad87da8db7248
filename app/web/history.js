// A round opened from the sheet: what it holds, who dealt and entered it, its history
// (GET …/rounds/{n}/history, a page at a time: every input the round has held, who
// changed what and when),
// and, for a player or the host while the match is not ended, "Correct this round".
import { ApiError, call, versionOf } from "./api.js";
import { clear, h } from "./dom.js";
import { language, t } from "./i18n.js";
import { handText, signed } from "./hand.js";
import { dealText } from "./tricks.js";
import { problemText } from "./problems.js";

/** Who made a change: "host" or "seat:N" as the API records it. The host is the
 * player at the match's `host_seat` when it names one (else "the host"). */
export function byText(by, names, hostSeat = null) {
  if (by === "host") {
    const name = Number.isInteger(hostSeat) ? names[hostSeat] : undefined;
    return name !== undefined ? name : t("by_host");
  }
  const seat = /^seat:(\d+)$/.exec(by || "");
  if (seat && names[Number(seat[1])] !== undefined) return names[Number(seat[1])];
  return String(by);
}

/** A round's whole history, its pages (at most 100 revisions each) read following
 * `next`, and the match versions the pages were read at. */
export async function wholeHistory(path, token) {
  const first = await call("GET", `${path}/history`, { token });
  const items = [...first.data.items];
  const versions = [versionOf(first.etag)];
  for (let next = first.data.next; next; ) {
    const page = await call("GET", next, { token });
    items.push(...page.data.items);
    versions.push(versionOf(page.etag));
    next = page.data.next;
  }
  return { history: { ...first.data, items, next: null }, versions };
}

/** One line for a round's input, of any round type. */
export function inputText(input, names, teams) {
  if (!input) return "";
  switch (input.type) {
    case "asszorti_hand":
      return handText(input, names);
    case "asszorti_amounts":
      return t("amounts_line", {
        amounts: input.amounts.map((amount, seat) => `${names[seat]} ${signed(amount)}`).join(", "),
      });
    case "alkort_tricks":
      return t("tricks_seq", { list: input.tricks.map((team) => teams[team] ?? team).join(", ") });
    case "alkort_points":
      return t("points_line", { team: teams[input.team] ?? input.team, points: input.points });
    case "own_points": // one per column: per seat, or per team at a table with teams
      return t("own_points_line", {
        list: input.points.map((points, index) => `${teams[index] ?? names[index]} ${signed(points)}`).join(", "),
      });
    default:
      return JSON.stringify(input);
  }
}

function timeText(when) {
  const date = new Date(when);
  if (Number.isNaN(date.getTime())) return String(when || "");
  return date.toLocaleTimeString(language(), { hour: "2-digit", minute: "2-digit" });
}

export class RoundPanel {
  /** @param {object} table the open table (app.js) @param {{correct: Function}} hooks */
  constructor(table, hooks) {
    this.table = table;
    this.hooks = hooks;
    this.number = null; // the round shown
    this.version = null; // the match version it was read at
    this.loading = null;
    this.element = h("section", { class: "card round-panel", id: "round-panel", hidden: true });
  }

  get names() {
    return this.table.names();
  }

  get teams() {
    return (this.table.sheet && this.table.sheet.columns) || [];
  }

  async open(number) {
    this.number = number;
    this.version = null;
    this.element.hidden = false;
    clear(this.element).append(h("p", { class: "muted" }, t("loading")));
    await this.load();
    this.element.scrollIntoView({ block: "nearest" });
  }

  close() {
    this.number = null;
    this.version = null;
    this.element.hidden = true;
    clear(this.element);
    this.table.draw();
  }

  /** The sheet was read again: read the open round again if the match changed. */
  follow() {
    const match = this.table.match;
    if (this.number === null || !match || this.loading) return;
    if (this.version !== null && this.version !== match.version) this.load();
  }

  async load() {
    const number = this.number;
    const { id, token } = this.table;
    const path = `/v1/matches/${encodeURIComponent(id)}/rounds/${number}`;
    this.loading = Promise.all([call("GET", path, { token }), wholeHistory(path, token)]);
    let round;
    let etag;
    let history;
    let versions;
    try {
      const [read, whole] = await this.loading;
      round = read.data;
      etag = read.etag;
      ({ history, versions } = whole);
    } catch (error) {
      if (number !== this.number) return;
      if (error instanceof ApiError && error.code === "round_not_found") {
        this.version = this.table.match ? this.table.match.version : null;
        this.draw(null, null, null, t("round_gone", { n: number }));
        return;
      }
      this.draw(null, null, null, problemText(error));
      return;
    } finally {
      this.loading = null;
    }
    if (number !== this.number) return;
    // The oldest version any of its reads saw: a change that landed between them
    // (a correction after the history was read, say) makes the panel read again.
    const seen = [versionOf(etag), ...versions].filter((version) => version !== null);
    this.version = seen.length ? Math.min(...seen) : this.table.match.version;
    this.draw(round, etag, history, null);
    // A change that landed while it was read: read it once more.
    if (this.table.match && this.table.match.version !== this.version) this.follow();
  }

  draw(round, etag, history, problem) {
    const names = this.names;
    const teams = this.teams;
    const match = this.table.match;
    const hostSeat = match ? match.host_seat : null;
    const close = h("button", { type: "button", class: "link close", id: "round-close", onclick: () => this.close() }, t("close"));
    const parts = [h("div", { class: "panel-head" }, h("h2", {}, t("round_title", { n: this.number })), close)];
    if (problem) parts.push(h("p", { class: "note error" }, problem));
    if (round) {
      parts.push(
        h(
          "p",
          { class: "muted", id: "round-meta" },
          t("round_meta", { dealer: names[round.dealer], by: byText(round.entered_by, names, hostSeat) }),
        ),
        h("p", { class: "round-input", id: "round-input" }, inputText(round.input, names, teams)),
      );
      const result = round.result || {};
      if (Array.isArray(result.net)) {
        parts.push(
          h(
            "ul",
            { class: "nets", id: "round-nets" },
            result.net.map((net, seat) =>
              h("li", { class: net < 0 ? "net loss" : "net" }, h("span", { class: "who" }, names[seat]), " ", h("strong", {}, signed(net))),
            ),
          ),
        );
      } else if (result.breakdown && result.breakdown.kind) {
        parts.push(h("p", { class: "deal", id: "round-deal" }, dealText(result.breakdown, teams)));
      }
      if (this.table.canWrite && match && match.status !== "ended" && !this.table.rounds.locked) {
        parts.push(
          h(
            "div",
            { class: "actions" },
            h(
              "button",
              { type: "button", class: "primary", id: "round-correct", onclick: () => this.hooks.correct(round, etag) },
              t("correct_this"),
            ),
          ),
        );
      }
    }
    if (history) {
      parts.push(
        h("h3", {}, t("history_title")),
        h(
          "ol",
          { class: "history", id: "round-history" },
          history.items.map((item) =>
            h(
              "li",
              { dataset: { revision: String(item.revision), action: item.action } },
              h(
                "span",
                { class: "history-who" },
                t(`history_${item.action}`, { who: byText(item.by, names, hostSeat), time: timeText(item.recorded_at) }),
              ),
              item.input ? h("span", { class: "history-input" }, inputText(item.input, names, teams)) : null,
            ),
          ),
        ),
      );
    }
    clear(this.element).append(...parts);
  }
}
