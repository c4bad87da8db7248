// A long evening on a phone: a bar kept at the bottom of the screen with the totals,
// a "Saved" line read out by screen readers, and a button back to the entry form, so
// neither the totals nor the form are ever a long scroll away.
import { clear, h } from "./dom.js";
import { t } from "./i18n.js";

const SAID_MS = 4000;

export class BottomBar {
  /** @param {{form: () => Element | null}} hooks the entry form to jump to */
  constructor(hooks) {
    this.hooks = hooks;
    this.totals = h("p", { class: "reach-totals", id: "reach-totals" });
    this.said = h("p", { class: "reach-said", id: "saved-status", role: "status", "aria-live": "polite" });
    this.jump = h("button", { type: "button", class: "reach-jump", id: "jump-entry" }, t("jump_entry"));
    this.jump.addEventListener("click", () => {
      const form = this.hooks.form();
      if (!form) return;
      form.scrollIntoView({ block: "start" });
      const first = form.querySelector("button:not([disabled]), input, select");
      if (first) first.focus({ preventScroll: true });
    });
    this.element = h("div", { class: "reach", id: "reach", hidden: true }, this.totals, this.said, this.jump);
    this.timer = null;
  }

  /** Show the totals of `sheet`; the jump button only while rounds can be entered. */
  draw(sheet, { canEnter }) {
    this.element.hidden = !sheet.rows.length && !this.said.textContent;
    clear(this.totals).append(
      h("span", { class: "reach-label" }, `${t("total")}:`),
      ...sheet.columns.map((name, index) =>
        h("span", { class: "reach-total" }, h("span", { class: "reach-name" }, name), " ", h("strong", {}, String(sheet.totals[index]))),
      ),
    );
    this.jump.hidden = !canEnter;
  }

  /** Say `text` for a few seconds ("Saved"). */
  say(text) {
    clearTimeout(this.timer);
    this.said.textContent = text;
    this.element.hidden = false;
    this.timer = setTimeout(() => {
      this.said.textContent = "";
    }, SAID_MS);
  }

  close() {
    clearTimeout(this.timer);
  }
}
