// Table rules: chosen on the start form (createMatch's `settings`), and changed by the
// host on the sheet (PATCH the match's `settings`; only the settings sent change).
import { request } from "./api.js";
import { clear, h } from "./dom.js";
import { t } from "./i18n.js";
import { describeError, winnerNames } from "./endgame.js";

const SEATS = { asszorti: 3, alkort: 4 };
const LIMITS = { target: [1, 1000], planned_deals: [1, 10000] };

/** A whole number in the setting's range, null for an empty field, or undefined if invalid. */
function wholeNumber(input, setting) {
  const text = input.value.trim();
  if (text === "") return null;
  const value = Number(text);
  const [low, high] = LIMITS[setting];
  return Number.isInteger(value) && value >= low && value <= high ? value : undefined;
}

function numberField(id, label, setting, value, placeholder) {
  const [low, high] = LIMITS[setting];
  const input = h("input", {
    id,
    name: setting,
    type: "number",
    inputmode: "numeric",
    min: String(low),
    max: String(high),
    step: "1",
    placeholder,
    value: value === null || value === undefined ? "" : String(value),
  });
  return { input, field: h("label", { class: "field" }, h("span", {}, label), input) };
}

function dealerField(id, names, value) {
  const select = h(
    "select",
    { id, name: "first_dealer" },
    names.map((name, seat) => h("option", { value: String(seat) }, name)),
  );
  select.value = String(value || 0);
  const label = h("span", {}, t("setting_first_dealer"));
  return { select, field: h("label", { class: "field" }, label, select) };
}

function kontraField(id, checked) {
  const input = h("input", { id, name: "kontra", type: "checkbox", checked: Boolean(checked) });
  const label = h("span", {}, t("setting_kontra"));
  return { input, field: h("label", { class: "check" }, input, label) };
}

// ---- the start form -----------------------------------------------------------

/** The rules block of the start form: draw(game) when the game changes, read() on submit. */
export class StartSettings {
  constructor() {
    this.element = h("fieldset", { class: "rules", id: "start-settings" });
    this.game = null;
    this.fields = {};
  }

  draw(game, names = []) {
    const kept = this.game === game ? this.read() : null;
    this.game = game;
    clear(this.element).append(h("legend", {}, t("rules_title")));
    const seats = Array.from(
      { length: SEATS[game] },
      (_, seat) => names[seat] || t("player_n", { n: seat + 1 }),
    );
    const settings = (kept && kept.value) || {};
    this.fields = {};
    if (game === "asszorti") {
      this.fields.kontra = kontraField("kontra", settings.kontra !== false);
      this.fields.planned_deals = numberField(
        "planned-deals",
        t("setting_planned_deals"),
        "planned_deals",
        settings.planned_deals,
        t("no_limit"),
      );
    } else {
      const target = settings.target ?? 11;
      this.fields.target = numberField("target", t("setting_target"), "target", target);
    }
    this.fields.first_dealer = dealerField("first-dealer", seats, settings.first_dealer);
    for (const { field } of Object.values(this.fields)) this.element.append(field);
  }

  /** Show the names typed so far in the first dealer's list. */
  names(names) {
    const select = this.fields.first_dealer && this.fields.first_dealer.select;
    if (!select) return;
    [...select.options].forEach((option, seat) => {
      option.textContent = names[seat] || t("player_n", { n: seat + 1 });
    });
  }

  /** {value: the create body's settings} or {error: a message}. */
  read() {
    const settings = { first_dealer: Number(this.fields.first_dealer.select.value) };
    if (this.game === "asszorti") {
      settings.kontra = this.fields.kontra.input.checked;
      const planned = wholeNumber(this.fields.planned_deals.input, "planned_deals");
      if (planned === undefined) return { error: t("error_planned_deals") };
      if (planned !== null) settings.planned_deals = planned;
    } else {
      const target = wholeNumber(this.fields.target.input, "target");
      if (target === undefined || target === null) return { error: t("error_target") };
      settings.target = target;
    }
    return { value: settings };
  }
}

// ---- the host, on the sheet -----------------------------------------------------

/** The host's settings card under the sheet: move the Alkort target, set Asszorti's
 * planned deals and kontra, and the first dealer before round 1. */
export class HostSettings {
  constructor(table) {
    this.table = table;
    this.element = h("details", { class: "card settings", id: "host-settings", hidden: true });
    this.shape = null; // what the form was built for; rebuilt when that changes
    this.dirty = false; // typed into and not saved yet: a live redraw keeps it
    this.fields = {};
    this.note = h("p", { class: "note", id: "settings-note", role: "status" });
  }

  draw() {
    const { match, entry } = this.table;
    const known = match && Object.hasOwn(SEATS, match.game); // the games this card knows
    if (!known || !entry || entry.role !== "host" || match.status === "ended") {
      this.element.hidden = true;
      return;
    }
    this.element.hidden = false;
    const shape = `${match.game}:${match.round_count === 0}`;
    if (shape !== this.shape) {
      this.shape = shape;
      this.dirty = false;
      this.build(match);
    }
    if (!this.dirty) this.fill(match.settings);
  }

  build(match) {
    const game = match.game;
    this.fields = {};
    if (game === "alkort") {
      this.fields.target = numberField("host-target", t("setting_target"), "target", null);
    } else {
      this.fields.planned_deals = numberField(
        "host-planned-deals",
        t("setting_planned_deals"),
        "planned_deals",
        null,
        t("no_limit"),
      );
      this.fields.kontra = kontraField("host-kontra", true);
    }
    if (match.round_count === 0) {
      this.fields.first_dealer = dealerField("host-first-dealer", this.table.names(), 0);
    }
    const save = h(
      "button",
      { type: "submit", class: "primary", id: "save-settings" },
      t("settings_save"),
    );
    const form = h(
      "form",
      { class: "settings-form", novalidate: true }, // our own messages, in the page's language
      Object.values(this.fields).map(({ field }) => field),
      save,
    );
    form.addEventListener("input", () => {
      this.dirty = true;
    });
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.save(save);
    });
    const open = this.element.open;
    clear(this.element).append(h("summary", {}, t("settings_title")), form, this.note);
    this.element.open = open;
  }

  fill(settings) {
    const { target, planned_deals: planned, kontra, first_dealer: dealer } = this.fields;
    if (target) target.input.value = String(settings.target);
    if (planned) {
      planned.input.value = settings.planned_deals === null ? "" : String(settings.planned_deals);
    }
    if (kontra) kontra.input.checked = Boolean(settings.kontra);
    if (dealer) dealer.select.value = String(settings.first_dealer);
  }

  /** The settings that differ from the match's, or {error}. */
  changes() {
    const now = this.table.match.settings;
    const changed = {};
    const { target, planned_deals: planned, kontra, first_dealer: dealer } = this.fields;
    if (target) {
      const value = wholeNumber(target.input, "target");
      if (value === undefined || value === null) return { error: t("error_target") };
      if (value !== now.target) changed.target = value;
    }
    if (planned) {
      const value = wholeNumber(planned.input, "planned_deals");
      if (value === undefined) return { error: t("error_planned_deals") };
      if (value !== now.planned_deals) changed.planned_deals = value; // null clears it
    }
    if (kontra && kontra.input.checked !== now.kontra) changed.kontra = kontra.input.checked;
    if (dealer && Number(dealer.select.value) !== now.first_dealer) {
      changed.first_dealer = Number(dealer.select.value);
    }
    return { value: changed };
  }

  say(text, kind) {
    this.note.textContent = text;
    this.note.className = `note ${kind}`;
  }

  async save(button) {
    const changes = this.changes();
    if (changes.error) return this.say(changes.error, "error");
    if (!Object.keys(changes.value).length) return this.say(t("settings_unchanged"), "");
    const table = this.table;
    const before = table.match.status;
    button.disabled = true;
    try {
      const match = await request("PATCH", `/v1/matches/${encodeURIComponent(table.id)}`, {
        token: table.token,
        body: { settings: changes.value },
      });
      this.dirty = false;
      await table.refresh();
      if (match.status === "decided") {
        const names = winnerNames(table.match, table.sheet).join(", ");
        this.say(t("settings_decided", { names }), "decided");
      } else if (before === "decided") {
        this.say(t("settings_reopened"), "reopened");
      } else {
        this.say(t("saved"), "");
      }
    } catch (error) {
      this.say(describeError(error), "error");
    } finally {
      button.disabled = false;
    }
  }
}
