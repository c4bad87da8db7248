// An Asszorti hand as the table speaks it (`asszorti_hand`, docs/rules.md): the declarer,
// the contract, the trumps, each player's tricks (two typed, the third follows), the
// kontra ladder as far as the table went, and the arrivázs. While it is being entered,
// the match's preview (POST /v1/matches/{id}/score, by the table's own settings) shows
// what the hand will score.
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { Preview } from "./preview.js";
import { radioKeys } from "./radios.js";

export const CONTRACTS = ["3", "2", "1", "hand"];
export const TRUMPS = ["hearts", "diamonds", "clubs", "spades", "none"];
export const KONTRA = ["none", "kontra", "rekontra", "szubkontra", "hirskontra", "mordkontra"];
const TRICKS = 11;

/** A box's tricks as a number when it holds a whole number from 0 to 11, else null. */
function wholeTricks(text) {
  const value = text.trim() === "" ? NaN : Number(text);
  return Number.isInteger(value) && value >= 0 && value <= TRICKS ? value : null;
}

/** A signed amount as the table says it: +18, −9, 0. */
export function signed(value) {
  if (value > 0) return `+${value}`;
  if (value < 0) return `−${-value}`;
  return "0";
}

export function contractText(contract) {
  return contract === "hand" ? t("contract_hand") : t("contract_n", { n: contract });
}

/** One line for an `asszorti_hand` input: "Berta: 1 in diamonds, tricks 2–7–2, kontra". */
export function handText(input, names) {
  const parts = [
    t("hand_line", {
      name: names[input.declarer] ?? input.declarer,
      contract: contractText(input.contract),
      trumps: t(`trumps_${input.trumps}`),
    }),
    t("tricks_line", { tricks: input.tricks.join("–") }),
  ];
  if (input.kontra && input.kontra !== "none") parts.push(t(`kontra_${input.kontra}`));
  const arrivazs = input.arrivazs;
  if (arrivazs) {
    let text = t(arrivazs.won ? "arrivazs_line_won" : "arrivazs_line_lost");
    if (arrivazs.idegen) text += ` (${t("arrivazs_idegen")})`;
    if (arrivazs.kontra && arrivazs.kontra !== "none") text += `, ${t(`kontra_${arrivazs.kontra}`)}`;
    parts.push(text);
  }
  return parts.join(", ");
}

/** A row of toggle buttons that behaves as a radio group (radios.js: one Tab stop, arrows). */
function choices(field, options, changed) {
  let value = null;
  const buttons = options.map(({ value: each, label }) =>
    h(
      "button",
      { type: "button", class: "choice", role: "radio", "aria-checked": "false", dataset: { field, value: each } },
      label,
    ),
  );
  let rove = () => {};
  const set = (next) => {
    value = next === null || next === undefined ? null : String(next);
    for (const button of buttons) {
      const on = button.dataset.value === value;
      button.setAttribute("aria-checked", on ? "true" : "false");
      button.classList.toggle("on", on);
    }
    rove();
  };
  const choose = (button) => {
    set(button.dataset.value);
    changed();
  };
  for (const button of buttons) button.addEventListener("click", () => choose(button));
  rove = radioKeys(buttons, choose);
  const labelId = `${field}-label`;
  return {
    element: (label) =>
      h(
        "div",
        { class: "group", dataset: { group: field } },
        h("span", { class: "group-label", id: labelId }, label),
        h("div", { class: "choices", role: "radiogroup", "aria-labelledby": labelId }, buttons),
      ),
    get value() {
      return value;
    },
    set,
    buttons,
    disable(each, disabled) {
      const button = buttons.find((b) => b.dataset.value === each);
      if (button) button.disabled = disabled;
      rove();
    },
  };
}

/** The hand's fields; `element` goes into the entry card, `read()` gives the body. */
export class HandForm {
  /** @param {{names: () => string[], score: (body: object) => Promise<object>, changed: () => void}} hooks */
  constructor(hooks) {
    this.hooks = hooks;
    this.typed = new Set(); // the seats whose tricks were typed (not filled in)
    this.auto = null; // the seat whose tricks follow from the other two
    this.kontraAllowed = true;
    const changed = () => this.changed();
    const names = hooks.names();
    this.declarer = choices(
      "declarer",
      names.map((name, seat) => ({ value: String(seat), label: name })),
      changed,
    );
    this.contract = choices(
      "contract",
      CONTRACTS.map((contract) => ({ value: contract, label: contractText(contract) })),
      changed,
    );
    this.trumps = choices(
      "trumps",
      TRUMPS.map((trumps) => ({ value: trumps, label: t(`trumps_${trumps}`) })),
      changed,
    );
    this.tricks = names.map((name, seat) => {
      const input = h("input", {
        type: "number",
        inputmode: "numeric",
        min: "0",
        max: String(TRICKS),
        step: "1",
        name: `tricks${seat}`,
        class: "tricks",
        "aria-label": t("tricks_for", { name }),
      });
      input.addEventListener("input", () => this.typedTricks(seat));
      return input;
    });
    this.trickLabels = names.map((name) => h("span", {}, name));
    this.kontra = choices("kontra", KONTRA.map((level) => ({ value: level, label: t(`kontra_${level}`) })), changed);
    this.announced = h("input", { type: "checkbox", name: "arrivazs", id: "arrivazs" });
    this.announced.addEventListener("change", changed);
    this.won = choices(
      "arrivazs_won",
      [
        { value: "won", label: t("arrivazs_won") },
        { value: "lost", label: t("arrivazs_lost") },
      ],
      changed,
    );
    this.kind = choices(
      "arrivazs_kind",
      [
        { value: "own", label: t("arrivazs_own") },
        { value: "idegen", label: t("arrivazs_idegen") },
      ],
      changed,
    );
    this.arrivazsKontra = choices(
      "arrivazs_kontra",
      KONTRA.map((level) => ({ value: level, label: t(`kontra_${level}`) })),
      changed,
    );
    this.kontraBox = this.kontra.element(t("kontra_ladder"));
    this.arrivazsKontraBox = this.arrivazsKontra.element(t("arrivazs_kontra"));
    this.arrivazsBox = h(
      "div",
      { class: "arrivazs-box", hidden: true },
      this.won.element(t("arrivazs_result")),
      this.kind.element(t("arrivazs_kind")),
      this.arrivazsKontraBox,
    );
    this.preview = new Preview("hand-preview", hooks.score, (score, body) => this.previewNodes(score, body));
    this.element = h(
      "div",
      { class: "hand-fields" },
      this.declarer.element(t("declarer")),
      this.contract.element(t("contract")),
      this.trumps.element(t("trumps")),
      h(
        "div",
        { class: "group" },
        h("span", { class: "group-label" }, t("tricks_taken")),
        h(
          "div",
          { class: "amounts" },
          this.tricks.map((input, seat) => h("label", { class: "tricks-field" }, this.trickLabels[seat], input)),
        ),
      ),
      this.kontraBox,
      h("label", { class: "check" }, this.announced, h("span", {}, t("arrivazs_announced"))),
      this.arrivazsBox,
      this.preview.element,
    );
    this.reset();
  }

  /** Follow the match: renamed players, a table without kontra. */
  draw(match) {
    const names = match.players.map((player) => player.name);
    names.forEach((name, seat) => {
      if (this.declarer.buttons[seat].textContent !== name) this.declarer.buttons[seat].textContent = name;
      if (this.trickLabels[seat].textContent !== name) {
        this.trickLabels[seat].textContent = name;
        this.tricks[seat].setAttribute("aria-label", t("tricks_for", { name }));
      }
    });
    const allowed = match.settings.kontra !== false;
    if (allowed !== this.kontraAllowed) {
      this.kontraAllowed = allowed;
      this.kontraBox.hidden = !allowed;
      this.arrivazsKontraBox.hidden = !allowed;
      if (!allowed) {
        this.kontra.set("none");
        this.arrivazsKontra.set("none");
      }
      this.changed();
    }
  }

  reset() {
    this.declarer.set(null);
    this.contract.set(null);
    this.trumps.set(null);
    for (const input of this.tricks) {
      input.value = "";
      input.classList.remove("auto");
    }
    this.typed = new Set();
    this.auto = null;
    this.kontra.set("none");
    this.announced.checked = false;
    this.won.set(null);
    this.kind.set("own");
    this.arrivazsKontra.set("none");
    this.changed();
  }

  /** Show a stored hand (to correct it). */
  fill(input) {
    this.reset();
    this.declarer.set(input.declarer);
    this.contract.set(input.contract);
    this.trumps.set(input.trumps);
    input.tricks.forEach((value, seat) => {
      this.tricks[seat].value = String(value);
    });
    this.typed = new Set([0, 1]);
    this.auto = 2;
    this.tricks[2].classList.add("auto");
    this.kontra.set(input.kontra || "none");
    if (input.arrivazs) {
      this.announced.checked = true;
      this.won.set(input.arrivazs.won ? "won" : "lost");
      this.kind.set(input.arrivazs.idegen ? "idegen" : "own");
      this.arrivazsKontra.set(input.arrivazs.kontra || "none");
    }
    this.changed();
  }

  /** Tricks were typed for `seat`. Once two boxes hold typed whole numbers, the third
   * (if untyped) follows; typing over it makes it typed too and never rewrites the
   * others: three typed boxes that do not add up are said so by read(). */
  typedTricks(seat) {
    const input = this.tricks[seat];
    input.classList.remove("auto");
    if (this.auto === seat) this.auto = null;
    this.typed.delete(seat);
    if (input.value.trim() !== "") this.typed.add(seat);
    if (this.typed.size === 2) {
      const [a, b] = [...this.typed];
      const other = [0, 1, 2].find((each) => !this.typed.has(each));
      const values = [a, b].map((each) => wholeTricks(this.tricks[each].value));
      const left = TRICKS - values[0] - values[1];
      this.auto = other;
      this.tricks[other].value = values.every((value) => value !== null) && left >= 0 ? String(left) : "";
      this.tricks[other].classList.add("auto");
    } else if (this.auto !== null && this.typed.size < 2) {
      this.tricks[this.auto].value = "";
      this.tricks[this.auto].classList.remove("auto");
      this.auto = null;
    }
    this.changed();
  }

  changed() {
    this.constraints();
    if (this.hooks.changed) this.hooks.changed();
    this.schedulePreview();
  }

  /** Enable what can be chosen: an idegen arrivázs only in a trump game, and only won. */
  constraints() {
    for (const button of this.element.querySelectorAll("button")) button.disabled = false;
    const trumpless = this.trumps.value === "none";
    const lost = this.won.value === "lost";
    this.kind.disable("idegen", trumpless || lost);
    if ((trumpless || lost) && this.kind.value === "idegen") this.kind.set("own");
    this.arrivazsBox.hidden = !this.announced.checked;
  }

  /** {body} when the hand is complete, else {missing: what to fill in next}. */
  read() {
    if (this.declarer.value === null) return { missing: t("missing_declarer") };
    if (this.contract.value === null) return { missing: t("missing_contract") };
    if (this.trumps.value === null) return { missing: t("missing_trumps") };
    const texts = this.tricks.map((input) => input.value.trim()).filter((text) => text !== "");
    const numbers = texts.map(Number);
    if (!numbers.every(Number.isInteger)) return { missing: t("tricks_not_whole") };
    if (numbers.some((n) => n < 0 || n > TRICKS)) return { missing: t("tricks_out_of_range") };
    const sum = numbers.reduce((a, b) => a + b, 0);
    if (numbers.length < 3) return { missing: t(sum > TRICKS ? "tricks_too_many" : "missing_tricks", { sum }) };
    if (sum !== TRICKS) return { missing: t("tricks_sum", { sum }) };
    const tricks = numbers;
    const body = {
      type: "asszorti_hand",
      declarer: Number(this.declarer.value),
      contract: this.contract.value,
      trumps: this.trumps.value,
      tricks,
      kontra: this.kontraAllowed ? this.kontra.value : "none",
    };
    if (this.announced.checked) {
      if (this.won.value === null) return { missing: t("missing_arrivazs") };
      body.arrivazs = {
        won: this.won.value === "won",
        idegen: this.kind.value === "idegen",
        kontra: this.kontraAllowed ? this.arrivazsKontra.value : "none",
      };
    }
    return { body };
  }

  schedulePreview() {
    const read = this.read();
    if (read.body) this.preview.ask(read.body);
    else this.preview.say(h("p", { class: "muted" }, read.missing));
  }

  /** What the match makes of the hand: each player's net, the game and the arrivázs. */
  previewNodes(score, body) {
    const names = this.hooks.names();
    const order = [body.declarer, ...[0, 1, 2].filter((seat) => seat !== body.declarer)];
    const breakdown = score.breakdown || {};
    return [
      h("p", { class: "preview-title" }, t("preview_title")),
      h(
        "ul",
        { class: "nets" },
        order.map((seat) =>
          h(
            "li",
            { class: score.net[seat] < 0 ? "net loss" : "net", dataset: { seat: String(seat) } },
            h("span", { class: "who" }, names[seat]),
            " ",
            h("strong", {}, signed(score.net[seat])),
          ),
        ),
      ),
      h(
        "p",
        { class: "muted breakdown" },
        t(breakdown.declarer_won ? "preview_won" : "preview_lost", { value: Math.abs(breakdown.basic_game) }),
        breakdown.arrivazs ? ` · ${t("preview_arrivazs", { value: signed(breakdown.arrivazs) })}` : "",
      ),
    ];
  }
}
