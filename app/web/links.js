// The join links a host hands out: on the links screen after a table is started, and
// folded under the host's sheet.
//
// Each link is someone else's key, so it is handed over, never opened here: Share (the
// Web Share API, where the browser has it), Copy, and its QR code. Tapping the link only
// selects it; opening it on this phone would not take the host key away (store.js keeps
// the strongest), but it is not what the tap is for.
// The players' and the viewer's links come first. The host's own link gives a scanner
// the host's rights, so it is shown only after a step that warns of that.
//
// The recovery code: a step of its own on the links screen right after the start, with
// Copy and Share, so that it leaves this phone; and again from the links card, read with
// the host key (getRecoveryCode), for a host who did not keep it.
import { api, newKey, request } from "./api.js";
import { askFirst } from "./confirm.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { problemNodes } from "./problems.js";
import { qrSvg } from "./qr.js";
import { getEntry, saveEntry } from "./store.js";

const CONFIRM_MS = 3000;

/** Put text on the clipboard: the Clipboard API where the page may use it, else the
 * older copy command on a selected field (a page served over plain http on a LAN). */
export async function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) {
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch {
      // refused (no permission): the older way may still work
    }
  }
  const field = h("textarea", { class: "copy-buffer", readonly: true, "aria-hidden": "true" });
  field.value = text;
  document.body.append(field);
  field.select();
  let copied = false;
  try {
    copied = document.execCommand("copy");
  } catch {
    copied = false;
  }
  field.remove();
  return copied;
}

function linkItem(text, link, role, seat) {
  // A link is relative unless the service knows its public address: this page's own.
  const href = new URL(link, location.href).href;
  const data = { role, seat: seat === undefined ? "" : String(seat) };
  const anchor = h("a", { href, class: "join-link", dataset: data }, href);
  anchor.addEventListener("click", (event) => {
    event.preventDefault();
    window.getSelection().selectAllChildren(anchor);
  });
  const said = h("span", { class: "copied", role: "status" });
  let timer = null;
  const copy = h("button", { type: "button", class: "copy-link", dataset: data }, t("copy_link"));
  copy.addEventListener("click", async () => {
    const copied = await copyText(href);
    said.textContent = copied ? t("link_copied") : t("copy_failed");
    clearTimeout(timer);
    timer = setTimeout(() => {
      said.textContent = "";
    }, CONFIRM_MS);
  });
  const share =
    typeof navigator.share === "function"
      ? h("button", { type: "button", class: "share-link", dataset: data }, t("share_link"))
      : null;
  if (share) {
    share.addEventListener("click", () => {
      // Dismissing the share sheet rejects: nothing to tell.
      navigator.share({ title: t("share_title", { name: text }), url: href }).catch(() => {});
    });
  }
  return h(
    "li",
    { dataset: data },
    h("span", { class: "link-label" }, text),
    qrSvg(href, t("qr_for", { name: text })),
    anchor,
    h("div", { class: "link-actions" }, share, copy, said),
  );
}

/** A recovery code as text, with Copy and Share (where the browser has it). */
export function codeBox(code, id) {
  const said = h("span", { class: "copied", role: "status" });
  let timer = null;
  const copy = h("button", { type: "button", class: "copy-code", id: `${id}-copy` }, t("copy_link"));
  copy.addEventListener("click", async () => {
    const copied = await copyText(code);
    said.textContent = copied ? t("link_copied") : t("copy_failed_code");
    clearTimeout(timer);
    timer = setTimeout(() => {
      said.textContent = "";
    }, CONFIRM_MS);
  });
  const share =
    typeof navigator.share === "function"
      ? h("button", { type: "button", class: "share-code", id: `${id}-share` }, t("share_link"))
      : null;
  if (share) {
    share.addEventListener("click", () => {
      navigator.share({ title: t("recovery_share_title"), text: code }).catch(() => {});
    });
  }
  return h(
    "div",
    { class: "code-box" },
    h("code", { id, class: "secret-code" }, code),
    h("div", { class: "link-actions" }, share, copy, said),
  );
}

/** The recovery code a table was just started with, as a step of its own. */
export function recoveryStep(code) {
  return h(
    "section",
    { class: "card", id: "recovery-step" },
    h("h2", {}, t("recovery_step_title")),
    h("p", { class: "muted" }, t("recovery_step_hint")),
    codeBox(code, "recovery-code"),
  );
}

/** The host's button to see the recovery code again, read with the host key. */
function recoveryAgain(id, token) {
  const box = h("div", { class: "recovery-again", id: "recovery-again" });
  const show = h("button", { type: "button", class: "link", id: "show-recovery" }, t("show_recovery"));
  const note = h("p", { class: "note error", id: "recovery-again-note", role: "alert", hidden: true });
  show.addEventListener("click", async () => {
    show.disabled = true;
    note.hidden = true;
    try {
      const { recovery_code: code } = await api.recoveryCode(id, token);
      show.remove();
      box.prepend(h("p", { class: "note" }, t("recovery_again_note")), codeBox(code, "recovery-code-again"));
    } catch (error) {
      note.replaceChildren(...problemNodes(error));
      note.hidden = false;
      show.disabled = false;
    }
  });
  box.append(show, note);
  return box;
}

/** The host's step to their own link. */
function hostStep(links) {
  const box = h("div", { class: "host-link", id: "host-link" });
  const show = h("button", { type: "button", class: "link", id: "show-host-link" }, t("show_host_link"));
  show.addEventListener("click", () => {
    show.remove();
    box.append(
      h("p", { class: "note error", id: "host-link-warning" }, t("host_link_warning")),
      h("ul", { class: "links" }, linkItem(t("link_host"), links.host, "host")),
    );
  });
  box.append(show);
  return box;
}

/** Keep a link the host made on this phone (a recovered host's), beside those known. */
function keepLink(id, role, seat, link) {
  const known = (getEntry(id) || {}).made || { players: [], viewer: null };
  const players = [...known.players];
  if (role === "player") players[seat] = link;
  const made = { players, viewer: role === "viewer" ? link : known.viewer };
  saveEntry(id, { made });
}

/** A seat's (or the viewers') row on a phone without its link: a new link, made with
 * the host key once the host says yes (reissueToken: the old link stops working). */
function newLinkItem(id, token, text, role, seat, name) {
  const data = { role, seat: seat === undefined ? "" : String(seat) };
  const button = h("button", { type: "button", class: "new-link", dataset: data }, t("new_link"));
  const note = h("p", { class: "note error", role: "alert", hidden: true });
  const item = h(
    "li",
    { dataset: data },
    h("span", { class: "link-label" }, text),
    h("div", { class: "link-actions" }, button),
    note,
  );
  let key = null; // kept until answered: a retry after a lost answer replays it
  button.addEventListener("click", async () => {
    const question = seat === undefined ? t("new_viewer_link_question") : t("new_link_question", { name });
    const yes = await askFirst({ question, yes: t("new_link") });
    if (!yes) return;
    button.disabled = true;
    note.hidden = true;
    key = key || newKey();
    try {
      const body = role === "player" ? { role, seat } : { role };
      const path = `/v1/matches/${encodeURIComponent(id)}/tokens`;
      const issued = await request("POST", path, { token, body, key });
      key = null;
      keepLink(id, role, seat, issued.link);
      item.replaceWith(linkItem(text, issued.link, role, seat));
    } catch (error) {
      note.replaceChildren(...problemNodes(error));
      note.hidden = false;
      button.disabled = false;
    }
  });
  return item;
}

/** A recovered host's rows: the links made on this phone, a New link button for the rest. */
function madeLinks(id, entry, players) {
  const made = entry.made || { players: [], viewer: null };
  const row = (text, role, seat, link, name) =>
    link ? linkItem(text, link, role, seat) : newLinkItem(id, entry.token, text, role, seat, name);
  return [
    ...(players || []).map((name, seat) =>
      row(t("link_player", { name }), "player", seat, made.players[seat], name),
    ),
    row(t("link_viewer"), "viewer", undefined, made.viewer),
  ];
}

/** The links card of match `id`, or null when this phone holds no host key. Without
 * the links (a host key recovered on this phone: they are on the phone that started the
 * table) it holds the recovery code's button only. `players`: the seats' names. */
export function linksCard(id, entry, players, { collapsed = false } = {}) {
  if (!entry || entry.role !== "host") return null;
  const links = entry.links;
  const parts = links
    ? [
        h("p", { class: "muted" }, t("links_hint")),
        h(
          "ul",
          { class: "links" },
          links.players.map((href, seat) =>
            linkItem(t("link_player", { name: players ? players[seat] : seat + 1 }), href, "player", seat),
          ),
          linkItem(t("link_viewer"), links.viewer, "viewer"),
        ),
        hostStep(links),
      ]
    : [
        h("p", { class: "muted", id: "links-elsewhere" }, t("links_elsewhere")),
        h("ul", { class: "links" }, ...madeLinks(id, entry, players)),
      ];
  return h(
    collapsed ? "details" : "section",
    { class: "card", id: "links" },
    collapsed ? h("summary", {}, t("links_title")) : h("h2", {}, t("links_title")),
    ...parts,
    recoveryAgain(id, entry.token),
  );
}
