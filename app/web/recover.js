// "Lost the host key?": the host types the recovery code and this phone gets a new host
// key (recoverHostToken). The answer carries a new recovery code too (the old one and
// the old host key stop working), shown here with Copy and Share for the host to keep
// (the links card shows it again).
import { ApiError, api, newKey } from "./api.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { codeBox } from "./links.js";
import { problemText } from "./problems.js";
import { addKey, dropKey } from "./store.js";

/** The form, folded; `done()` opens the table again, with the host key. */
export function recoverCard(matchId, done) {
  const input = h("input", {
    id: "recovery-input",
    name: "recovery_code",
    autocomplete: "off",
    spellcheck: "false",
    maxlength: "128",
    required: true,
  });
  const button = h("button", { type: "submit", class: "primary", id: "recover-submit" }, t("recover_submit"));
  const note = h("div", { class: "note", id: "recover-note", role: "status", hidden: true });
  const form = h(
    "form",
    { id: "recover-form" },
    h("p", { class: "muted" }, t("recover_hint")),
    h("label", { class: "field" }, h("span", {}, t("recovery_code")), input),
    h("div", { class: "actions" }, button),
  );
  // The form is built when the card is opened: a viewer's screen holds nothing to type in.
  const card = h("details", { class: "card", id: "recover" }, h("summary", {}, t("recover_title")));
  card.addEventListener("toggle", () => {
    if (card.open && !card.contains(note)) card.append(form, note);
  });
  // One key per code typed: a retry after a lost answer gets that answer again, where a
  // new key would send a code the server has already replaced.
  let sent = { code: null, key: null };
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const code = input.value.trim();
    if (!code) return;
    if (sent.code !== code) sent = { code, key: newKey() };
    button.disabled = true;
    note.hidden = true;
    try {
      const issued = await api.recover(matchId, code, sent.key);
      const entry = addKey(matchId, issued.token, "host");
      // A host key held from before stopped working with this answer.
      for (const key of entry.keys) {
        if (key.role === "host" && key.token !== issued.token) dropKey(matchId, key.token);
      }
      form.remove();
      note.className = "note";
      note.setAttribute("role", "status");
      note.replaceChildren(
        t("recover_done"),
        codeBox(issued.recovery || "", "new-recovery-code"), // Copy and Share, as at the start
        h("button", { type: "button", class: "primary", id: "recover-continue", onclick: done }, t("recover_continue")),
      );
    } catch (error) {
      note.className = "note error";
      // A refusal is an alert (the role set before its words, so it is read out), in view
      // at the button, as every card's refusal is.
      note.setAttribute("role", "alert");
      // A code the server does not know is a wrong code, not a link that stopped working.
      const wrong = error instanceof ApiError && error.status === 401;
      note.textContent = wrong ? t("recover_wrong") : problemText(error);
    } finally {
      button.disabled = false;
      note.hidden = false;
      if (note.classList.contains("error")) note.scrollIntoView({ block: "nearest" });
    }
  });
  return card;
}
