// The host's player names: rename one seat (PATCH /v1/matches/{id}/players/{seat}),
// on an ended match too, so a typo is fixed after the evening. Every phone redraws
// from the live `match_updated`; the match's history keeps the old name.
import { call } from "./api.js";
import { clear, h } from "./dom.js";
import { t } from "./i18n.js";
import { problemNodes } from "./problems.js";

export class PlayerNames {
  constructor(table) {
    this.table = table;
    this.inputs = [];
    this.edited = new Set(); // seats typed into and not saved: a live redraw keeps them
    this.note = h("p", { class: "note", id: "rename-note", role: "status" });
    this.list = h("div", { class: "rename-list" });
    this.element = h(
      "section",
      { class: "rename", id: "player-names" },
      h("h3", {}, t("names_title")),
      this.list,
      this.note,
    );
  }

  draw(match) {
    const names = match.players.map((player) => player.name);
    if (this.inputs.length !== names.length) this.build(names);
    names.forEach((name, seat) => {
      if (!this.edited.has(seat)) this.inputs[seat].value = name;
    });
  }

  build(names) {
    this.edited.clear();
    this.inputs = names.map((name, seat) => {
      const input = h("input", {
        id: `rename-name-${seat}`,
        name: `name-${seat}`,
        maxlength: "40",
        autocomplete: "off",
        "aria-label": t("rename_seat", { seat: seat + 1 }),
        value: name,
      });
      input.addEventListener("input", () => this.edited.add(seat));
      return input;
    });
    clear(this.list).append(
      ...this.inputs.map((input, seat) => {
        const button = h("button", { type: "submit", id: `rename-${seat}` }, t("rename"));
        const form = h("form", { class: "rename-row", novalidate: true }, input, button);
        form.addEventListener("submit", (event) => {
          event.preventDefault();
          this.rename(seat, button);
        });
        return form;
      }),
    );
  }

  say(text, kind) {
    // A refusal is an alert (its role set before its words), in view at its button.
    this.note.setAttribute("role", kind === "error" ? "alert" : "status");
    if (Array.isArray(text)) this.note.replaceChildren(...text);
    else this.note.textContent = text;
    this.note.className = `note ${kind}`;
    if (kind === "error") this.note.scrollIntoView({ block: "nearest" });
  }

  async rename(seat, button) {
    const table = this.table;
    const name = this.inputs[seat].value.trim();
    const old = table.match.players[seat].name;
    if (!name) return this.say(t("error_name_empty"), "error");
    if (name === old) {
      this.edited.delete(seat);
      return this.say(t("rename_unchanged"), "");
    }
    button.disabled = true;
    try {
      const path = `/v1/matches/${encodeURIComponent(table.id)}/players/${seat}`;
      const { etag } = await call("PATCH", path, { token: table.token, body: { name } });
      this.edited.delete(seat);
      this.say(t("renamed", { old, name }), "");
      await table.caughtUp(etag);
    } catch (error) {
      this.say(problemNodes(error), "error"); // the detail names the seat the name is taken by
    } finally {
      button.disabled = false;
    }
  }
}
