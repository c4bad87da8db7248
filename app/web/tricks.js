// An Alkort deal by tapping, for each trick in play order, the team that took it
// (`alkort_tricks`, docs/rules.md). Tapping stops as soon as the deal is settled;
// the match's preview (POST /v1/matches/{id}/score) then says what it is worth: a plain
// win (1), a múk (5) or a stroke (6 to 9).
import { clear, h } from "./dom.js";
import { t } from "./i18n.js";
import { previewFailed } from "./preview.js";

export const MAX_TRICKS = 9;
const MAJORITY = 5;

/** Whether nothing later can change the deal's score: after nine tricks, or once the
 * first run is broken and a team has five (the rule the API applies). */
export function settled(tricks) {
  if (tricks.length >= MAX_TRICKS) return true;
  if (!tricks.length) return false;
  const broken = tricks.some((team) => team !== tricks[0]);
  const most = Math.max(...[0, 1].map((team) => tricks.filter((each) => each === team).length));
  return broken && most >= MAJORITY;
}

/** "Stroke of 6: 6 to Us" from a breakdown. */
export function dealText(breakdown, teams) {
  const team = teams[breakdown.team] ?? breakdown.team;
  if (breakdown.kind === "stroke") {
    return breakdown.run
      ? t("deal_stroke", { run: breakdown.run, points: breakdown.points, team })
      : t("deal_stroke_points", { points: breakdown.points, team });
  }
  if (breakdown.kind === "muk") return t("deal_muk", { points: breakdown.points, team });
  return t("deal_plain", { points: breakdown.points, team });
}

export class TrickTapper {
  /** @param {{teams: () => string[], labels: () => string[], score: (body: object) => Promise<object>,
   *   changed: () => void}} hooks the teams' names, the teams with their players (the buttons),
   *   the match's preview of a deal, and a redraw of the save button */
  constructor(hooks) {
    this.hooks = hooks;
    this.tricks = [];
    this.seq = 0;
    this.score = null; // the preview's answer for the settled deal
    this.takes = [0, 1].map((team) =>
      h(
        "button",
        { type: "button", class: `take team${team}`, dataset: { team: String(team) } },
        "",
      ),
    );
    this.takes.forEach((button, team) => button.addEventListener("click", () => this.tap(team)));
    this.prompt = h("p", { class: "trick-prompt", id: "trick-prompt" });
    this.list = h("ol", { class: "trick-list", id: "trick-list" });
    this.back = h("button", { type: "button", id: "trick-back", onclick: () => this.undo() }, t("trick_back"));
    this.clearButton = h("button", { type: "button", id: "trick-clear", onclick: () => this.reset() }, t("trick_clear"));
    this.result = h("div", { class: "preview", id: "trick-result", "aria-live": "polite" });
    this.element = h(
      "div",
      { class: "trick-fields" },
      this.prompt,
      h("div", { class: "takes" }, this.takes),
      this.list,
      h("div", { class: "actions" }, this.back, this.clearButton),
      this.result,
    );
    this.draw();
  }

  get isSettled() {
    return settled(this.tricks);
  }

  tap(team) {
    if (this.isSettled) return;
    this.tricks.push(team);
    this.changed();
  }

  undo() {
    this.tricks.pop();
    this.changed();
  }

  reset() {
    this.tricks = [];
    this.changed();
  }

  fill(tricks) {
    this.tricks = tricks.slice(0, MAX_TRICKS);
    this.changed();
  }

  read() {
    return this.isSettled ? { body: { type: "alkort_tricks", tricks: this.tricks.slice() } } : null;
  }

  changed() {
    this.score = null;
    this.seq += 1;
    this.draw();
    if (this.hooks.changed) this.hooks.changed();
    if (this.isSettled) this.preview(this.seq, this.tricks.slice());
  }

  /** Redraw from the taps (and the team names, which the host may change). */
  draw() {
    const teams = this.hooks.teams();
    const labels = this.hooks.labels();
    const done = this.isSettled;
    const next = this.tricks.length + 1;
    this.takes.forEach((button, team) => {
      button.textContent = labels[team];
      button.setAttribute("aria-label", t("trick_took", { team: teams[team], n: next }));
      button.disabled = done;
    });
    this.prompt.textContent = done ? t("trick_settled") : t("trick_prompt", { n: next });
    clear(this.list).append(
      ...this.tricks.map((team, index) =>
        h("li", { class: `team${team}`, dataset: { team: String(team) }, title: t("trick_n", { n: index + 1 }) }, teams[team]),
      ),
    );
    const counts = [0, 1].map((team) => this.tricks.filter((each) => each === team).length);
    this.back.disabled = !this.tricks.length;
    this.clearButton.disabled = !this.tricks.length;
    if (!done) {
      clear(this.result).append(
        h(
          "p",
          { class: "muted" },
          this.tricks.length ? t("trick_counts", { a: teams[0], b: teams[1], x: counts[0], y: counts[1] }) : t("trick_hint"),
        ),
      );
    } else if (this.score) {
      clear(this.result).append(
        h("p", { class: "deal", dataset: { kind: this.score.breakdown.kind } }, dealText(this.score.breakdown, teams)),
      );
    }
  }

  async preview(seq, tricks) {
    clear(this.result).append(h("p", { class: "muted" }, t("trick_scoring")));
    try {
      const score = await this.hooks.score({ type: "alkort_tricks", tricks });
      if (seq !== this.seq) return;
      this.score = score;
      this.draw();
    } catch (error) {
      if (seq !== this.seq) return;
      clear(this.result).append(previewFailed(error));
    }
    if (this.hooks.changed) this.hooks.changed();
  }
}
