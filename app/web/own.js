// An own table's round (`own_points`): one whole number per seat, or per team at a
// table with teams, labelled with the sheet's columns (the names, or the teams with
// their players).
// At a zero-sum table the running sum shows, and once every field but one is typed
// the last untouched one is filled with the number that balances the round (it can
// still be typed over). Once every field holds a number, the match's preview (POST
// /v1/matches/{id}/score) says what the round scores, or why the table refuses it.
import { clear, h } from "./dom.js";
import { t } from "./i18n.js";
import { signed } from "./hand.js";
import { Preview } from "./preview.js";


export class OwnPointsForm {
  /** @param {{columns: Function, names: Function, zeroSum: Function, score: Function}} hooks
   * the fields' labels (the sheet's columns, teams with their players), the columns' short
   * names, the zero-sum setting, and the match's preview of a round body */
  constructor(hooks) {
    this.hooks = hooks;
    this.inputs = [];
    this.labels = [];
    this.typed = new Set(); // the fields typed into (the balancing number goes elsewhere)
    this.auto = null; // the field filled in automatically
    this.box = h("div", { class: "own-points" });
    this.hint = h("p", { class: "muted", id: "own-hint" });
    this.sum = h("p", { class: "own-sum", id: "own-sum", role: "status" });
    this.preview = new Preview("own-preview", hooks.score, (score) => this.previewNodes(score));
    this.element = h("div", {}, this.hint, this.box, this.sum, this.preview.element);
  }

  /** Draw the fields for the sheet's columns (kept, with what was typed, when they match). */
  draw() {
    const columns = this.hooks.columns();
    if (this.inputs.length !== columns.length) {
      clear(this.box);
      this.typed = new Set();
      this.auto = null;
      this.inputs = columns.map((_, index) => {
        const input = h("input", {
          // It takes a minus: no inputmode. "numeric" and "decimal" open keypads with no minus
          // key (iOS, Samsung's); a number field alone opens iOS's numbers-and-symbols
          // keyboard and Android's number pad, both with "-".
          type: "number",
          step: "1",
          name: `points${index}`,
          class: "own-point",
          dataset: { column: String(index) },
        });
        input.addEventListener("input", () => this.typedInto(index));
        return input;
      });
      this.labels = columns.map(() => h("span", {}));
      this.inputs.forEach((input, index) => {
        this.box.append(h("label", { class: "field" }, this.labels[index], input));
      });
    }
    columns.forEach((name, index) => {
      this.labels[index].textContent = name;
      this.inputs[index].setAttribute("aria-label", t("own_points_for", { name }));
    });
    this.hint.textContent = t(this.hooks.zeroSum() ? "own_hint_zero" : "own_hint");
    this.drawSum();
  }

  typedInto(index) {
    this.typed.add(index);
    if (this.auto === index) {
      this.auto = null; // typed over: it is the user's now
      this.inputs[index].classList.remove("auto");
    }
    if (this.hooks.zeroSum()) this.balance();
    this.drawSum();
    this.schedulePreview();
  }

  /** Zero-sum: every field but one typed, fill that one so the round sums to 0. */
  balance() {
    const open = this.inputs.map((_, index) => index).filter((index) => !this.typed.has(index));
    if (open.length !== 1) return;
    const last = open[0];
    const others = this.inputs.filter((_, index) => index !== last).map((input) => input.value.trim());
    const values = others.map(Number);
    if (others.some((text) => text === "") || !values.every(Number.isInteger)) return;
    const rest = -values.reduce((a, b) => a + b, 0);
    this.inputs[last].value = String(rest === 0 ? 0 : rest);
    this.inputs[last].classList.add("auto");
    this.auto = last;
  }

  drawSum() {
    if (!this.hooks.zeroSum()) {
      this.sum.hidden = true;
      return;
    }
    const values = this.inputs.map((input) => Number(input.value || 0));
    const total = values.every(Number.isInteger) ? values.reduce((a, b) => a + b, 0) : NaN;
    this.sum.hidden = false;
    this.sum.textContent = t("own_sum", { sum: Number.isNaN(total) ? "?" : signed(total) });
    this.sum.classList.toggle("off", total !== 0);
  }

  /** {body} for the API, or {missing: a message}. */
  read() {
    const texts = this.inputs.map((input) => input.value.trim());
    const points = texts.map(Number);
    if (texts.some((text) => text === "") || !points.every(Number.isInteger)) {
      return { missing: t("error_own_points") };
    }
    return { body: { type: "own_points", points } };
  }

  /** A round's points back in the fields (a correction). */
  fill(points) {
    this.reset();
    points.forEach((value, index) => {
      if (this.inputs[index]) this.inputs[index].value = String(value);
      this.typed.add(index);
    });
    this.drawSum();
    this.schedulePreview();
  }

  // ---- the preview: what the match makes of the round, once every field is typed ----

  schedulePreview() {
    const read = this.read();
    if (read.body) this.preview.ask(read.body);
    else this.preview.say();
  }

  /** What the match makes of the round: each column's points. */
  previewNodes(score) {
    const columns = this.hooks.names();
    const cells = score.cells || score.net || [];
    const list = cells.map((value, index) => `${columns[index] ?? index + 1} ${signed(value)}`).join(", ");
    return [h("p", { class: "own-preview-line" }, t("own_preview", { list }))];
  }

  reset() {
    for (const input of this.inputs) {
      input.value = "";
      input.classList.remove("auto");
    }
    this.typed = new Set();
    this.auto = null;
    this.drawSum();
    this.preview.say();
  }
}
