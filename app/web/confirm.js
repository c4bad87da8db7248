// Ask first, in the page: a modal <dialog> with the question, an optional warning and
// two buttons, "No" first so a stray tap or Escape keeps things as they are.
import { h } from "./dom.js";
import { t } from "./i18n.js";

/** Resolves true when the player confirms, false on Cancel, Escape or a route change. */
export function askFirst({ question, warning = null, yes }) {
  dismissAsk();
  return new Promise((resolve) => {
    const dialog = h(
      "dialog",
      { class: "confirm", id: "confirm", "aria-labelledby": "confirm-question" },
      h("p", { id: "confirm-question" }, question),
      warning ? h("p", { class: "note error", id: "confirm-warning" }, warning) : null,
      h(
        "div",
        { class: "actions" },
        h("button", { type: "button", id: "confirm-no", onclick: () => dialog.close("no") }, t("confirm_cancel")),
        h("button", { type: "button", class: "danger", id: "confirm-yes", onclick: () => dialog.close("yes") }, yes),
      ),
    );
    dialog.addEventListener("close", () => {
      dialog.remove();
      resolve(dialog.returnValue === "yes");
    });
    document.body.append(dialog);
    dialog.showModal();
  });
}

/** Close a question left open (the screen it was about is gone). */
export function dismissAsk() {
  for (const dialog of document.querySelectorAll("dialog.confirm")) dialog.close("no");
}
