// The join links a host hands out: on the links screen after a table is started, and
// folded under the host's sheet.
//
// Each link is someone else's key, so it is handed over, never opened here: Share (the
// Web Share API, where the browser has it), Copy, and its QR code. Tapping the link only
// selects it; opening it on this phone would not take the host key away (store.js keeps
// the strongest), but it is not what the tap is for.
// The players' and the viewer's links come first. The host's own link gives a scanner
// the host's rights, so it is shown only after a step that warns of that.
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { qrSvg } from "./qr.js";

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

/** The host's step to their own link (and the recovery code, right after the start). */
function hostStep(links, recovery) {
  const box = h("div", { class: "host-link", id: "host-link" });
  const show = h("button", { type: "button", class: "link", id: "show-host-link" }, t("show_host_link"));
  show.addEventListener("click", () => {
    show.remove();
    box.append(
      h("p", { class: "note error", id: "host-link-warning" }, t("host_link_warning")),
      h("ul", { class: "links" }, linkItem(t("link_host"), links.host, "host")),
    );
    if (recovery) {
      box.append(
        h(
          "p",
          { class: "note", id: "recovery-note" },
          t("recovery_code_note"),
          " ",
          h("code", { id: "recovery-code", class: "secret-code" }, recovery),
        ),
      );
    }
  });
  box.append(show);
  return box;
}

/** The links card, or null when this phone does not hold the links (not the host's).
 * `players`: the seats' names; `recovery`: the code, known only right after the start. */
export function linksCard(entry, players, { collapsed = false, recovery = null } = {}) {
  const links = entry && entry.links;
  if (!links) return null;
  return h(
    collapsed ? "details" : "section",
    { class: "card", id: "links" },
    collapsed ? h("summary", {}, t("links_title")) : h("h2", {}, t("links_title")),
    h("p", { class: "muted" }, t("links_hint")),
    h(
      "ul",
      { class: "links" },
      links.players.map((href, seat) =>
        linkItem(t("link_player", { name: players ? players[seat] : seat + 1 }), href, "player", seat),
      ),
      linkItem(t("link_viewer"), links.viewer, "viewer"),
    ),
    hostStep(links, recovery),
  );
}
