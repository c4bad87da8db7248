// An Asszorti sheet never shows a loss (docs/rules.md, "The sheet"): a losing hand is a
// 0 and the loss goes to "Owed". So each cell says, smaller and below, what the player
// won or lost in that hand (the row's net), and the Owed row's label opens a sentence
// that says what owed is.
import { h } from "./dom.js";
import { signed } from "./hand.js";
import { t } from "./i18n.js";

const NOTE_ID = "owed-note";
let open = false; // kept across the sheet's redraws, which rebuild the table

/** A sheet cell's content: the cell, and under it the hand's net when the sheet has nets. */
export function cellNodes(cell, net) {
  const value = h("span", { class: "cell-value" }, String(cell));
  if (net === undefined || net === null) return [value];
  return [value, h("span", { class: "cell-net" }, h("span", { class: "visually-hidden" }, t("hand_net")), h("span", { class: "net-value" }, signed(net)))];
}

/** The Owed row's label: a button that shows or hides the explanation below the table. */
export function owedLabel() {
  const button = h(
    "button",
    { type: "button", class: "owed-why", id: "owed-why", "aria-expanded": String(open), "aria-controls": NOTE_ID },
    t("owed"),
    h("span", { class: "owed-mark", "aria-hidden": "true" }, "?"),
  );
  button.addEventListener("click", () => {
    open = !open;
    button.setAttribute("aria-expanded", String(open));
    const note = document.getElementById(NOTE_ID);
    if (note) note.hidden = !open;
  });
  return button;
}

/** What owed means, in the page's language; shown while the Owed label is open. */
export function owedNote() {
  return h("p", { class: "owed-note", id: NOTE_ID, hidden: !open }, t("owed_explain"));
}
