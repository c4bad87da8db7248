// Table rules: chosen on the start form (createMatch's `settings`), and changed by the
// host on the sheet (PATCH the match's `settings`; only the settings sent change). The
// host's card also renames players (rename.js), after the match has ended too, and says
// which seat is the host's (`host_seat`: the history names the host's rounds after it).
import { call } from "./api.js";
import { clear, h } from "./dom.js";
import { t } from "./i18n.js";
import { winnerNames } from "./endgame.js";
import { problemText } from "./problems.js";
import { PlayerNames } from "./rename.js";

const SEATS = { asszorti: 3, alkort: 4 };
const GAMES = ["asszorti", "alkort", "own_table"]; // the games the host's card knows
const OWN_PLAYERS = [2, 8]; // an own table's players (GET /v1/games: min_players, players)
const LIMITS = {
  target: [1, 1000],
  planned_deals: [1, 10000],
  own_target: [1, 1000000],
  planned_rounds: [1, 5000],
};
const TABLE_RULES_MAX = 500;

/** The team counts that split `players` into teams of two or more of equal size. */
export function teamChoices(players) {
  return [2, 3, 4].filter((teams) => players % teams === 0 && players / teams >= 2);
}

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

/** "Which seat is yours?": each player by name, and "I only keep score" (value "":
 * `host_seat` null). */
export function hostSeatField(id, names, value) {
  const select = h("select", { id, name: "host_seat" }, h("option", { value: "" }, t("host_seat_none")));
  seatOptions(select, names);
  select.value = Number.isInteger(value) && value < names.length ? String(value) : "";
  return { select, field: h("label", { class: "field" }, h("span", {}, t("host_seat")), select) };
}

/** The seat select's players as `names` has them, one per seat, before "I only keep
 * score"; the choice is kept while its seat is still there (else the first seat). */
export function seatOptions(select, names) {
  const chosen = select.value;
  const none = select.querySelector('option[value=""]');
  const players = [...select.options].filter((option) => option !== none);
  while (players.length > names.length) players.pop().remove();
  while (players.length < names.length) {
    const option = h("option", { value: String(players.length) });
    none.before(option);
    players.push(option);
  }
  players.forEach((option, seat) => {
    option.textContent = names[seat];
  });
  select.value = chosen === "" || Number(chosen) < names.length ? chosen : "0";
}

/** The `host_seat` a seat select says: a seat, or null. */
export function chosenSeat(select) {
  return select.value === "" ? null : Number(select.value);
}

function kontraField(id, checked) {
  return checkField(id, "kontra", t("setting_kontra"), checked);
}

function checkField(id, name, text, checked) {
  const input = h("input", { id, name, type: "checkbox", checked: Boolean(checked) });
  const label = h("span", {}, text);
  return { input, field: h("label", { class: "check" }, input, label) };
}

function selectField(id, name, text, options, value) {
  const select = h(
    "select",
    { id, name },
    options.map(([optionValue, optionText]) => h("option", { value: String(optionValue) }, optionText)),
  );
  select.value = String(value);
  return { select, field: h("label", { class: "field" }, h("span", {}, text), select) };
}

function teamOptions(players) {
  return [[0, t("teams_none")], ...teamChoices(players).map((n) => [n, t("teams_count", { n })])];
}

// ---- the start form -----------------------------------------------------------

/** The rules block of the start form: draw(game) when the game changes, read() on submit.
 * `reshaped` is called when an own table's player count or teams change (app.js then
 * draws the name fields again: seats(), teams()). */
export class StartSettings {
  constructor(reshaped = () => {}) {
    this.element = h("fieldset", { class: "rules", id: "start-settings" });
    this.game = null;
    this.fields = {};
    this.reshaped = reshaped;
  }

  /** How many name fields the form shows. */
  seats() {
    if (this.game === "own_table") return Number(this.fields.players.select.value);
    return SEATS[this.game];
  }

  /** How many team-name fields the form shows (0: none). */
  teams() {
    if (this.game === "own_table") return Number(this.fields.teams.select.value);
    return this.game === "alkort" ? 2 : 0;
  }

  draw(game, names = []) {
    const kept = this.game === game ? this.read() : null;
    this.game = game;
    clear(this.element).append(h("legend", {}, t("rules_title")));
    const settings = (kept && kept.value) || {};
    this.fields = {};
    if (game === "own_table") {
      this.drawOwn(settings);
    } else if (game === "asszorti") {
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
    const seats = Array.from(
      { length: this.seats() },
      (_, seat) => names[seat] || t("player_n", { n: seat + 1 }),
    );
    this.fields.first_dealer = dealerField("first-dealer", seats, settings.first_dealer);
    for (const { field } of Object.values(this.fields)) this.element.append(field);
  }

  drawOwn(settings) {
    const [low, high] = OWN_PLAYERS;
    const counts = [];
    for (let n = low; n <= high; n += 1) counts.push([n, String(n)]);
    const players = this.players ?? 4;
    this.fields.players = selectField("own-players", "players", t("setting_players"), counts, players);
    this.fields.teams = selectField("own-teams", "teams", t("setting_teams"), teamOptions(players), 0);
    this.fields.zero_sum = checkField("own-zero-sum", "zero_sum", t("setting_zero_sum"), false);
    this.fields.negatives = checkField("own-negatives", "negatives", t("setting_negatives"), true);
    this.fields.target = numberField("own-target", t("setting_own_target"), "own_target", null, t("no_limit"));
    this.fields.lowest_wins = checkField("own-lowest-wins", "lowest_wins", t("setting_lowest_wins"), false);
    this.fields.planned_rounds = numberField(
      "own-planned-rounds",
      t("setting_planned_rounds"),
      "planned_rounds",
      null,
      t("no_limit"),
    );
    const rules = h("textarea", {
      id: "own-table-rules",
      name: "table_rules",
      rows: "3",
      maxlength: String(TABLE_RULES_MAX),
    });
    this.fields.table_rules = {
      input: rules,
      field: h("label", { class: "field" }, h("span", {}, t("setting_table_rules")), rules),
    };
    if (settings.teams !== undefined) this.fill(settings);
    this.fields.players.select.addEventListener("change", () => {
      const count = Number(this.fields.players.select.value);
      this.players = count;
      const teams = this.fields.teams.select;
      const before = teams.value;
      clear(teams).append(...teamOptions(count).map(([v, text]) => h("option", { value: String(v) }, text)));
      teams.value = teamChoices(count).includes(Number(before)) ? before : "0";
      this.reshaped();
    });
    this.fields.teams.select.addEventListener("change", () => this.reshaped());
    // A zero-sum table needs negative points: keep the box ticked while zero-sum is.
    this.fields.zero_sum.input.addEventListener("change", () => {
      if (this.fields.zero_sum.input.checked) this.fields.negatives.input.checked = true;
    });
  }

  /** Put settings read before (the same game drawn again) back in the own table's fields. */
  fill(settings) {
    const f = this.fields;
    f.teams.select.value = String(settings.teams || 0);
    f.zero_sum.input.checked = Boolean(settings.zero_sum);
    f.negatives.input.checked = settings.negatives !== false;
    f.lowest_wins.input.checked = Boolean(settings.lowest_wins);
    f.target.input.value = settings.target ? String(settings.target) : "";
    f.planned_rounds.input.value = settings.planned_rounds ? String(settings.planned_rounds) : "";
    f.table_rules.input.value = settings.table_rules || "";
  }

  /** Show the names typed so far in the first dealer's list (as many as the seats). */
  names(names) {
    const select = this.fields.first_dealer && this.fields.first_dealer.select;
    if (!select) return;
    const count = this.seats();
    const chosen = Number(select.value) < count ? select.value : "0";
    while (select.options.length > count) select.lastElementChild.remove();
    while (select.options.length < count) {
      select.append(h("option", { value: String(select.options.length) }));
    }
    [...select.options].forEach((option, seat) => {
      option.textContent = names[seat] || t("player_n", { n: seat + 1 });
    });
    select.value = chosen;
  }

  /** {value: the create body's settings} or {error: a message}. */
  read() {
    const settings = { first_dealer: Number(this.fields.first_dealer.select.value) };
    if (this.game === "own_table") {
      const f = this.fields;
      settings.teams = Number(f.teams.select.value);
      settings.zero_sum = f.zero_sum.input.checked;
      settings.negatives = f.negatives.input.checked;
      settings.lowest_wins = f.lowest_wins.input.checked;
      const target = wholeNumber(f.target.input, "own_target");
      if (target === undefined) return { error: t("error_own_target") };
      settings.target = target;
      const planned = wholeNumber(f.planned_rounds.input, "planned_rounds");
      if (planned === undefined) return { error: t("error_planned_rounds") };
      settings.planned_rounds = planned;
      settings.table_rules = f.table_rules.input.value.trim();
    } else if (this.game === "asszorti") {
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
 * planned deals and kontra, move an own table's target and planned rounds, and the
 * first dealer before round 1. */
export class HostSettings {
  constructor(table) {
    this.table = table;
    this.element = h("details", { class: "card settings", id: "host-settings", hidden: true });
    this.shape = null; // what the form was built for; rebuilt when that changes
    this.dirty = false; // typed into and not saved yet: a live redraw keeps it
    this.fields = {};
    this.note = h("p", { class: "note", id: "settings-note", role: "status" });
    this.names = new PlayerNames(table);
  }

  draw() {
    const { match, entry } = this.table;
    const known = match && GAMES.includes(match.game); // the games this card knows
    if (!known || !entry || entry.role !== "host") {
      this.element.hidden = true;
      return;
    }
    this.element.hidden = false;
    const ended = match.status === "ended"; // its settings are final; its names are not
    const shape = `${match.game}:${match.round_count === 0}:${ended}`;
    if (shape !== this.shape) {
      this.shape = shape;
      this.dirty = false;
      this.build(match, ended);
    }
    if (!ended) seatOptions(this.fields.host_seat.select, this.table.names()); // renamed, perhaps
    if (!this.dirty && !ended) this.fill(match.settings, match.host_seat);
    this.names.draw(match);
  }

  build(match, ended) {
    const open = this.element.open;
    const summary = h("summary", {}, t(ended ? "names_title" : "settings_title"));
    if (ended) {
      clear(this.element).append(summary, this.names.element);
      this.element.open = open;
      return;
    }
    const game = match.game;
    this.fields = {};
    if (game === "alkort") {
      this.fields.target = numberField("host-target", t("setting_target"), "target", null);
    } else if (game === "own_table") {
      this.fields.own_target = numberField(
        "host-target",
        t("setting_own_target"),
        "own_target",
        null,
        t("no_limit"),
      );
      this.fields.planned_rounds = numberField(
        "host-planned-rounds",
        t("setting_planned_rounds"),
        "planned_rounds",
        null,
        t("no_limit"),
      );
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
    this.fields.host_seat = hostSeatField("host-settings-seat", this.table.names(), match.host_seat);
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
    clear(this.element).append(summary, form, this.note, this.names.element);
    this.element.open = open;
  }

  fill(settings, hostSeat) {
    const { target, planned_deals: planned, kontra, first_dealer: dealer } = this.fields;
    this.fields.host_seat.select.value = Number.isInteger(hostSeat) ? String(hostSeat) : "";
    if (target) target.input.value = String(settings.target);
    if (planned) {
      planned.input.value = settings.planned_deals === null ? "" : String(settings.planned_deals);
    }
    if (kontra) kontra.input.checked = Boolean(settings.kontra);
    if (dealer) dealer.select.value = String(settings.first_dealer);
    const { own_target: own, planned_rounds: rounds } = this.fields;
    if (own) own.input.value = settings.target === null ? "" : String(settings.target);
    if (rounds) {
      rounds.input.value = settings.planned_rounds === null ? "" : String(settings.planned_rounds);
    }
  }

  /** The PATCH body: the settings that differ from the match's and the host's seat if
   * it changed, or {error}. */
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
    const { own_target: own, planned_rounds: rounds } = this.fields;
    if (own) {
      const value = wholeNumber(own.input, "own_target");
      if (value === undefined) return { error: t("error_own_target") };
      if (value !== now.target) changed.target = value; // null: no target
    }
    if (rounds) {
      const value = wholeNumber(rounds.input, "planned_rounds");
      if (value === undefined) return { error: t("error_planned_rounds") };
      if (value !== now.planned_rounds) changed.planned_rounds = value;
    }
    if (kontra && kontra.input.checked !== now.kontra) changed.kontra = kontra.input.checked;
    if (dealer && Number(dealer.select.value) !== now.first_dealer) {
      changed.first_dealer = Number(dealer.select.value);
    }
    const body = Object.keys(changed).length ? { settings: changed } : {};
    const seat = chosenSeat(this.fields.host_seat.select);
    if (seat !== (this.table.match.host_seat ?? null)) body.host_seat = seat; // null: none
    return { value: body };
  }

  say(text, kind) {
    // A refusal is an alert (its role set before its words), in view at its button.
    this.note.setAttribute("role", kind === "error" ? "alert" : "status");
    this.note.textContent = text;
    this.note.className = `note ${kind}`;
    if (kind === "error") this.note.scrollIntoView({ block: "nearest" });
  }

  async save(button) {
    const changes = this.changes();
    if (changes.error) return this.say(changes.error, "error");
    if (!Object.keys(changes.value).length) return this.say(t("settings_unchanged"), "");
    const table = this.table;
    const before = table.match.status;
    button.disabled = true;
    try {
      const { data: match, etag } = await call("PATCH", `/v1/matches/${encodeURIComponent(table.id)}`, {
        token: table.token,
        body: changes.value,
      });
      this.dirty = false;
      await table.caughtUp(etag);
      if (match.status === "decided") {
        const names = winnerNames(table.match, table.sheet).join(", ");
        this.say(t("settings_decided", { names }), "decided");
      } else if (before === "decided") {
        this.say(t("settings_reopened"), "reopened");
      } else {
        this.say(t("saved"), "");
      }
    } catch (error) {
      this.say(problemText(error), "error"); // the detail, then the code's hint
    } finally {
      button.disabled = false;
    }
  }
}
