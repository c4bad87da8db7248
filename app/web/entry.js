// Entering and correcting rounds on an open table (app.js's Table owns one RoundEntry):
//
// - Asszorti: the hand as the table speaks it (hand.js, with the match's preview),
//   or the amounts the table worked out itself;
// - Alkort: the deal by tapping tricks (tricks.js), or the deal's points;
// - an own table: the round's points, one per seat or per team (own.js);
// - whose deal it is (the match's next_dealer, the sheet rows' dealer), moved on past the
//   rounds still waiting to be sent, which the sheet shows as pending rows (pending.js);
// - a round opened from the sheet (history.js): its history, and "Correct this round",
//   which turns these cards into the correction of that round (PUT with If-Match);
// - new rounds go through the outbox (outbox.js): kept on the device until the server
//   has them, sent once with their Idempotency-Key; the waiting ones are shown here;
// - the same hand from two phones (samehand.js): a form holds the sheet it was begun
//   on (its anchor), so rounds stored meanwhile by another phone stop it at that number
//   with a notice, instead of it moving on with an entry it did not send;
// - a refusal is said at the card whose button caused it (app.js's showError `near`).
import { ApiError, api, call } from "./api.js";
import { clear, h } from "./dom.js";
import { t } from "./i18n.js";
import { HandForm } from "./hand.js";
import { OwnPointsForm } from "./own.js";
import { RoundPanel, inputText } from "./history.js";
import { Outbox } from "./outbox.js";
import { held, pendingRows } from "./pending.js";
import { storedProblemText } from "./problems.js";
import { clashNodes, conflictText, storedAfter } from "./samehand.js";
import { TrickTapper } from "./tricks.js";

const ALKORT_POINTS = [1, 5, 6, 7, 8, 9];
// The points buttons stay off this long after the answer: a double tap is one deal.
const POINTS_HOLD_MS = 1500;
// A points button enters a deal in one tap: a tap this soon after another phone's deal
// showed up was meant for the sheet before it. (A form is filled in over seconds: its
// first touch is its anchor.)
const SETTLE_MS = 1500;
const GAMES = ["asszorti", "alkort", "own_table"];

export class RoundEntry {
  /**
   * @param {object} table app.js's Table (id, token, match, sheet, names(), canWrite,
   *   draw(), refresh())
   * @param {{showError: Function, clearMessage: Function}} ui the page's message line
   *   (showError(error, near) says it just after the element `near`, in view)
   */
  constructor(table, ui) {
    this.table = table;
    this.ui = ui;
    this.game = null; // the game the cards were built for
    this.editing = null; // {number, ifMatch}: the round being corrected
    this.locked = false; // the link was re-issued: nothing more can be written with it
    this.started = false;
    this.busy = false;
    this.landed = []; // rounds the server took, until the sheet read back shows them
    this.mine = new Set(); // numbers of the rounds this page stored
    // The sheet a new round's entry was begun on: {after, shown, card}, set by the first
    // touch of a card, dropped once the entry is sent or dropped. `after` is the server's
    // last round then, `shown` the title's number less one (the queued rounds counted).
    this.anchor = null;
    this.seen = null; // {after, before, at}: the last round drawn, and when another's came
    this.clash = null; // {card, body, numbers, rounds}: the notice shown at `card`
    this.notice = h("section", { class: "same-hand", id: "same-hand", role: "alert", hidden: true });
    this.conflicts = new Map(); // a held outbox item's key -> the rounds stored after it
    this.outbox = new Outbox(table.id, {
      token: () => this.table.token,
      version: () => (this.table.match ? this.table.match.version : null),
      changed: () => this.drawQueued(),
      sent: (round, etag) => {
        this.mine.add(round.number);
        this.landed = [...this.landed.filter((each) => each.number !== round.number), round].sort(
          (a, b) => a.number - b.number,
        );
        this.table.caughtUp(etag).catch(() => {});
      },
      reread: () => this.table.refresh(),
    });
    this.panel = new RoundPanel(table, { correct: (round, etag) => this.edit(round, etag) });
    this.outboxCard = h("section", { class: "card outbox", id: "outbox", hidden: true });
    // Two places of their own in the table view (app.js puts them there once): `under`
    // the sheet, the outbox and the opened round; `box`, the entry cards. A redraw
    // updates them in place: moving a field someone is typing in would take its focus.
    this.under = h("div", { class: "round-extras" }, this.outboxCard, this.panel.element);
    this.box = h("div", { class: "round-entry" });
    this.lockedNote = h("p", { class: "card note error", id: "locked-note" }, t("revoked_note"));
    this.title = h("h2", {});
    this.dealer = h("p", { class: "dealer", id: "dealer-line" });
    this.cancel = h("button", { type: "button", class: "link", id: "cancel-edit", hidden: true }, t("cancel_edit"));
    this.cancel.addEventListener("click", () => this.stopEditing());
    this.onNetwork = () => this.drawOutbox();
  }

  // ---- lifecycle (app.js: start() once the table is read, stop() when it closes) ----

  start() {
    if (this.started) return;
    this.started = true;
    window.addEventListener("offline", this.onNetwork);
    window.addEventListener("online", this.onNetwork);
    this.outbox.start().catch(() => {});
  }

  stop() {
    this.started = false;
    window.removeEventListener("offline", this.onNetwork);
    window.removeEventListener("online", this.onNetwork);
    this.outbox.stop();
    // A preview on its way would still ask the server after the page moved on.
    if (this.hand) this.hand.preview.drop();
    if (this.own) this.own.preview.drop();
  }

  /** The stream said this link was re-issued: no more writes from this page. */
  lock() {
    this.locked = true;
    this.editing = null;
    this.outbox.stop();
    this.table.draw();
  }

  // ---- the cards under the sheet ----

  build(game) {
    if (this.game === game) return;
    this.game = game;
    if (game === "own_table") {
      this.own = new OwnPointsForm({
        columns: () => this.table.sheet.teams || this.table.sheet.columns,
        names: () => this.table.sheet.columns,
        zeroSum: () => Boolean(this.table.match.settings.zero_sum),
        score: (body) => this.preview(body),
      });
      this.saveOwn = h("button", { type: "submit", class: "primary", id: "add-own" }, t("add_round"));
      this.main = this.formCard("own-round", this.own, this.saveOwn, { novalidate: true });
      this.alt = null; // one card
    } else if (game === "asszorti") {
      this.hand = new HandForm({ names: () => this.table.names(), score: (body) => this.preview(body) });
      this.saveHand = h("button", { type: "submit", class: "primary", id: "add-hand" }, t("add_hand"));
      this.main = this.formCard("hand", this.hand, this.saveHand);
      this.alt = this.amountsForm();
    } else {
      this.tapper = new TrickTapper({
        teams: () => this.table.sheet.columns,
        labels: () => this.table.sheet.teams || this.table.sheet.columns,
        score: (body) => this.preview(body),
        changed: () => {
          this.saveDeal.disabled = !this.tapper.read() || this.busy;
        },
      });
      this.saveDeal = h("button", { type: "button", class: "primary", id: "add-deal", disabled: true }, t("add_deal"));
      this.saveDeal.addEventListener("click", () => {
        const read = this.tapper.read();
        if (read) this.save(read.body, () => this.tapper.reset(), this.main);
      });
      this.main = h(
        "section",
        { class: "card entry", id: "tricks" },
        h("div", { class: "panel-head" }, this.title, this.cancel),
        this.dealer,
        this.tapper.element,
        h("div", { class: "actions" }, this.saveDeal),
      );
      this.alt = this.pointsCard();
      this.pointsBox = this.alt;
    }
    for (const card of [this.main, this.alt]) if (card) this.watch(card);
  }

  /** The first touch of a card begins an entry: it is anchored to the sheet shown then. */
  watch(card) {
    const touched = (event) => {
      if (this.editing || this.anchor || event.target.closest(".same-hand")) return;
      const after = this.after();
      const seen = this.seen;
      const sudden = card === this.pointsBox && seen && seen.after === after && Date.now() - seen.at < SETTLE_MS;
      const begun = sudden ? seen.before : after;
      this.anchor = { after: begun, shown: begun + this.queued(), card };
    };
    card.addEventListener("input", touched, true);
    card.addEventListener("click", touched, true);
  }

  /** What `body` would score if entered next, by this match's own settings and players
   * (the calculator's defaults would let a table without kontra double, say). */
  preview(body) {
    return api.scoreMatchRound(this.table.id, this.table.token, body);
  }

  /** The card of a form that enters a round (`form.read()` gives {body} or {missing}). */
  formCard(id, form, button, { novalidate = false } = {}) {
    const card = h(
      "form",
      { class: "card entry", id, novalidate },
      h("div", { class: "panel-head" }, this.title, this.cancel),
      this.dealer,
      form.element,
      h("div", { class: "actions" }, button),
    );
    card.addEventListener("submit", (event) => {
      event.preventDefault();
      const read = form.read();
      if (!read.body) return this.ui.showError(read.missing, this.placeOf(card));
      this.save(read.body, () => form.reset(), card);
    });
    return card;
  }

  /** The table was read again: show the cards it calls for, leaving them in place. */
  draw() {
    const cards = this.cards();
    const shown = [...this.box.children];
    if (shown.length !== cards.length || shown.some((card, index) => card !== cards[index])) {
      this.box.replaceChildren(...cards);
    }
    this.drawOutbox();
    this.panel.follow();
    if (this.started && !this.locked && this.outbox.items().some((item) => item.state === "pending")) {
      this.outbox.flush().catch(() => {});
    }
  }

  /** The cards for a player or the host (none for other games). */
  cards() {
    const match = this.table.match;
    if (!match || !this.table.canWrite || !GAMES.includes(match.game)) return [];
    if (match.status === "ended") {
      this.editing = null;
      this.closeClash();
      return [];
    }
    if (this.locked) {
      this.closeClash();
      return [this.lockedNote];
    }
    this.build(match.game);
    if (this.editing && !this.table.sheet.rows.some((row) => row.number === this.editing.number)) {
      this.editing = null; // the round was removed meanwhile
    }
    if (match.status !== "in_progress" && !this.editing) {
      this.closeClash();
      return [];
    }
    this.noteStrangers();
    this.checkClash();
    this.drawHeader();
    if (this.hand) {
      this.hand.draw(match);
      this.table.names().forEach((name, seat) => {
        this.amountLabels[seat].textContent = name;
        this.amounts[seat].setAttribute("aria-label", t("amount_for", { name }));
      });
    }
    if (this.tapper) {
      this.drawPoints();
    }
    if (this.own) this.own.draw();
    this.setBusy(this.busy); // (draws the taps too)
    return [this.main, this.alt].filter(Boolean);
  }

  drawHeader() {
    const match = this.table.match;
    const names = this.table.names();
    if (this.editing) {
      const row = this.table.sheet.rows.find((each) => each.number === this.editing.number);
      this.title.textContent = t("correct_round", { n: this.editing.number });
      this.dealer.textContent = row ? t("dealt_by", { name: names[row.dealer] }) : "";
    } else {
      const n = this.shownNumber();
      const key = { alkort: "enter_deal", own_table: "enter_own_round" }[match.game] || "enter_hand";
      this.title.textContent = t(key, { n });
      this.dealer.textContent = t("deals_now", { name: names[this.dealerOf(n)] });
    }
    this.dealer.dataset.dealer = String(this.editing ? "" : this.dealerOf(this.shownNumber()));
    this.cancel.hidden = !this.editing;
    this.main.classList.toggle("editing", Boolean(this.editing));
    if (this.alt) this.alt.classList.toggle("editing", Boolean(this.editing));
    const label = this.editing ? t("save_correction") : null;
    if (this.saveHand) this.saveHand.textContent = label || t("add_hand");
    if (this.saveDeal) this.saveDeal.textContent = label || t("add_deal");
    if (this.saveAmounts) this.saveAmounts.textContent = label || t("add_round");
    if (this.saveOwn) this.saveOwn.textContent = label || t("add_round");
  }

  // ---- rounds not on the server's sheet yet: the form counts them as played ----

  /** The last round the server has, as far as this page knows (a sent round counts
   * before the sheet is read back). */
  after() {
    const match = this.table.match;
    this.landed = this.landed.filter((round) => round.number > match.round_count);
    return Math.max(match.round_count, ...this.landed.map((round) => round.number));
  }

  /** The outbox's rounds that are going to be sent (a refused one waits for the user). */
  queued() {
    if (!this.table.canWrite || this.locked) return 0;
    return this.outbox.items().filter((item) => !held(item)).length;
  }

  /** Whose deal it is once the queued and just-sent rounds are played: the deal passes
   * one seat on per round, at every game. */
  nextDealer() {
    const match = this.table.match;
    const ahead = this.after() - match.round_count + this.queued();
    return (match.next_dealer + ahead) % match.players.length;
  }

  /** Who deals round `n` (the deal passes one seat on per round, at every game). */
  dealerOf(n) {
    const match = this.table.match;
    const seats = match.players.length;
    return (((match.next_dealer + n - 1 - match.round_count) % seats) + seats) % seats;
  }

  /** The number the entry cards' title shows: while a clash is shown, the one its entry
   * was begun for (the form never moves on holding an entry it did not send). */
  shownNumber() {
    return (this.clash && this.anchor ? this.anchor.shown : this.after() + this.queued()) + 1;
  }

  // ---- the same hand from two phones (samehand.js) ----

  /** The rounds another phone stored since this entry was begun. */
  strangers() {
    if (!this.anchor) return [];
    const numbers = [];
    for (let n = this.anchor.after + 1; n <= this.table.match.round_count; n += 1) {
      if (!this.mine.has(n)) numbers.push(n);
    }
    return numbers;
  }

  /** Remember when a round from another phone was first drawn (see SETTLE_MS). */
  noteStrangers() {
    const after = this.after();
    const seen = this.seen;
    if (seen && after > seen.after) {
      let theirs = false;
      for (let n = seen.after + 1; n <= after; n += 1) if (!this.mine.has(n)) theirs = true;
      this.seen = theirs ? { after, before: seen.after, at: Date.now() } : { ...seen, after };
    } else if (!seen || after !== seen.after) {
      this.seen = { after, before: after, at: 0 };
    }
  }

  /** Whether `card` holds anything typed or chosen. */
  entered(card) {
    if (card === this.main) {
      if (this.hand) {
        const form = this.hand;
        return [form.declarer, form.contract, form.trumps].some((group) => group.value !== null) || form.tricks.some((input) => input.value.trim() !== "");
      }
      if (this.tapper) return this.tapper.tricks.length > 0;
      if (this.own) return this.own.inputs.some((input) => input.value.trim() !== "");
    }
    if (card === this.alt && this.amounts) return this.amounts.some((input) => input.value.trim() !== "");
    return false;
  }

  /** The round `card` holds, when it is complete; null otherwise. */
  readCard(card) {
    let read = null;
    if (card === this.main) read = (this.hand || this.tapper || this.own).read();
    else if (card === this.alt && this.amounts) read = { body: this.amountsBody() };
    return (read && read.body) || null;
  }

  resetCard(card) {
    if (card === this.main) (this.hand || this.tapper || this.own).reset();
    else if (card === this.alt && this.amounts) this.resetAmounts();
  }

  /** The sheet moved on under an entry begun before: stop the form there, with the notice.
   * (A save in flight says so itself, once its answer is in.) */
  checkClash() {
    if (!this.anchor || this.clash || this.editing || this.busy) return;
    if (this.after() < this.anchor.after) {
      // Rounds were undone meanwhile: the entry is for the number the sheet now offers.
      this.anchor = { ...this.anchor, after: this.after(), shown: this.after() + this.queued() };
    }
    const numbers = this.strangers();
    if (!numbers.length) return;
    const card = this.anchor.card;
    if (!this.entered(card)) {
      this.anchor = null; // nothing entered yet: the form simply follows the sheet
      return;
    }
    this.openClash(card, this.readCard(card), numbers);
  }

  /** Show at `card` what was stored meanwhile, by whom, and its own entry `body`. */
  async openClash(card, body, numbers) {
    const clash = { card, body, numbers, rounds: null };
    this.clash = clash;
    this.drawHeader();
    try {
      const rounds = await storedAfter(this.table.id, this.table.token, this.anchor.after);
      clash.rounds = rounds.filter((round) => !this.mine.has(round.number));
      if (!clash.rounds.length) clash.rounds = null;
    } catch {
      // what was stored cannot be read now: its numbers say enough to decide
    }
    if (this.clash === clash) this.drawClash();
  }

  /** The notice, in view and announced (role=alert) each time it is drawn. */
  drawClash() {
    const clash = this.clash;
    if (!clash) return;
    clash.card.append(this.notice);
    this.notice.replaceChildren(
      ...clashNodes({
        game: this.table.match.game,
        names: this.table.names(),
        hostSeat: this.table.match.host_seat,
        teams: this.table.sheet.columns,
        numbers: clash.numbers,
        rounds: clash.rounds,
        body: clash.body,
        next: this.after() + this.queued() + 1,
        drop: () => this.dropEntry(),
        add: () => this.addEntry(),
      }),
    );
    this.notice.hidden = false;
    this.notice.scrollIntoView({ block: "center" });
  }

  closeClash() {
    this.clash = null;
    this.notice.hidden = true;
    this.notice.replaceChildren();
    this.notice.remove();
  }

  /** The default: the entry goes, and the form moves on to the next round. */
  dropEntry() {
    const { card } = this.clash;
    this.resetCard(card);
    this.closeClash();
    this.anchor = null;
    this.drawHeader();
    const first = card.querySelector("button:not([disabled]), input");
    if (first) first.focus({ preventScroll: true });
  }

  /** The explicit choice: the entry is the next round (sent at once when complete). */
  addEntry() {
    const { card, body } = this.clash;
    this.closeClash();
    this.anchor = { after: this.after(), shown: this.after() + this.queued(), card };
    this.drawHeader();
    if (body) this.save(body, () => this.resetCard(card), card);
  }

  /** Where a refusal of `card`'s button is said: just after its button row. */
  placeOf(card) {
    const actions = card.querySelector(":scope > .actions");
    if (actions) return actions;
    const own = [...card.children].filter((child) => child !== this.notice && child.id !== "message");
    return own[own.length - 1] || card;
  }

  /** The outbox changed: its card, the pending rows, and the form's number and dealer. */
  drawQueued() {
    this.drawOutbox(); // (and the pending rows)
    if (!this.table.match || !this.table.sheet) return;
    if (this.main) this.drawHeader();
    this.table.drawStatus();
  }

  /** The pending rows, after the sheet's own (app.js draws those). */
  drawPending() {
    const body = this.table.sheetBox.querySelector("#sheet tbody");
    if (!body) return;
    for (const tr of body.querySelectorAll("tr.pending-round")) tr.remove();
    const sheet = this.table.sheet;
    const after = this.after();
    const items = this.table.canWrite && !this.locked ? this.outbox.items() : [];
    const rows = pendingRows({
      landed: this.landed,
      items,
      after,
      columns: (sheet.teams || sheet.columns).length,
      names: this.table.names(),
      teams: sheet.columns,
    });
    body.append(...rows);
    const empty = this.table.sheetBox.querySelector(".no-rounds");
    if (empty) empty.hidden = rows.length > 0;
  }

  /** The plain amounts, one per seat (type one, the others follow as +2X / −X). */
  amountsForm() {
    const names = this.table.names();
    this.manual = new Set();
    this.amounts = names.map((name, seat) =>
      h("input", {
        // It takes a minus: no inputmode. "numeric" and "decimal" open keypads with no minus
        // key (iOS, Samsung's); a number field alone opens iOS's numbers-and-symbols
        // keyboard and Android's number pad, both with "-".
        type: "number",
        step: "1",
        name: `amount${seat}`,
        class: "amount",
        "aria-label": t("amount_for", { name }),
      }),
    );
    this.amountLabels = names.map((name) => h("span", {}, name));
    this.amounts.forEach((input, seat) => {
      input.addEventListener("input", () => {
        this.manual.add(seat);
        const value = Number(input.value);
        // One amount typed: fill the others in, a hand being +2X against -X, -X.
        if (this.manual.size === 1 && input.value !== "" && Number.isInteger(value) && value % 2 === 0) {
          this.amounts.forEach((other, index) => {
            if (index !== seat) other.value = String(-value / 2);
          });
        }
      });
    });
    this.saveAmounts = h("button", { type: "submit", class: "primary", id: "add-round" }, t("add_round"));
    const form = h(
      "form",
      { class: "card entry", id: "amounts" },
      h("h2", {}, t("or_amounts")),
      h("p", { class: "muted" }, t("amounts_hint")),
      h(
        "div",
        { class: "amounts" },
        names.map((name, seat) => h("label", { class: "field" }, this.amountLabels[seat], this.amounts[seat])),
      ),
      this.saveAmounts,
    );
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const body = this.amountsBody();
      if (!body) {
        this.ui.showError(t("error_amounts"), this.saveAmounts);
        return;
      }
      this.save(body, () => this.resetAmounts(), form);
    });
    return form;
  }

  /** The amounts round the fields hold; null unless each is a whole number. */
  amountsBody() {
    const amounts = this.amounts.map((input) => Number(input.value));
    if (this.amounts.some((input) => input.value.trim() === "") || !amounts.every(Number.isInteger)) return null;
    return { type: "asszorti_amounts", amounts };
  }

  resetAmounts() {
    for (const input of this.amounts) input.value = "";
    this.manual = new Set();
  }

  /** The deal's points, one tap each (the table scored the deal itself). */
  pointsCard() {
    this.pointRows = [0, 1].map((team) => {
      const name = h("span", { class: "team-name" });
      const buttons = ALKORT_POINTS.map((points) =>
        h(
          "button",
          {
            type: "button",
            class: "point",
            dataset: { team: String(team), points: String(points) },
            onclick: () => this.savePoints(team, points),
          },
          `+${points}`,
        ),
      );
      return { name, buttons, element: h("div", { class: "points-row" }, name, h("div", { class: "points" }, buttons)) };
    });
    const card = h(
      "div",
      { class: "card entry", id: "points" },
      h("h2", {}, t("or_points")),
      h("p", { class: "muted" }, t("points_hint")),
      this.pointRows.map((row) => row.element),
    );
    this.drawPoints();
    return card;
  }

  drawPoints() {
    const teams = this.table.sheet.columns;
    const labels = this.table.sheet.teams || teams;
    this.pointRows.forEach((row, team) => {
      row.name.textContent = labels[team];
      row.buttons.forEach((button) => {
        button.setAttribute("aria-label", t("points_for", { team: teams[team], points: button.dataset.points }));
      });
    });
  }

  /** One deal from a points button; taps until a moment after the answer are dropped. */
  async savePoints(team, points) {
    if (this.pointsHeld || this.busy) return;
    this.pointsHeld = true;
    try {
      await this.save({ type: "alkort_points", team, points }, () => {}, this.alt);
    } finally {
      this.holdPoints();
      setTimeout(() => {
        this.pointsHeld = false;
        this.holdPoints();
      }, POINTS_HOLD_MS);
    }
  }

  holdPoints() {
    for (const row of this.pointRows || []) for (const button of row.buttons) button.disabled = this.busy || this.pointsHeld;
  }

  // ---- saving: a new round (through the outbox) or a correction (PUT) ----

  /** Disable the cards' buttons while a save runs; after it (or after app.js's write(),
   * which disables every button under the controls) give each its own state back. */
  setBusy(busy) {
    this.busy = busy;
    for (const card of [this.main, this.alt]) {
      if (!card) continue;
      for (const button of card.querySelectorAll("button")) button.disabled = busy;
    }
    if (busy) return;
    if (this.hand) this.hand.constraints();
    if (this.tapper) {
      this.tapper.draw();
      this.saveDeal.disabled = !this.tapper.read();
    }
    if (this.pointsHeld) this.holdPoints();
  }

  /** Enter `body` from `card` (reset() empties the card once the round is kept). */
  async save(body, reset, card = this.main) {
    if (this.busy) return;
    this.ui.clearMessage();
    if (this.editing) return this.correct(body, reset, card);
    // The notice is shown: adding this entry after all is the notice's own choice.
    if (this.clash) return this.drawClash();
    if (!this.anchor) this.anchor = { after: this.after(), shown: this.after() + this.queued(), card };
    const stored = this.strangers();
    if (stored.length) return this.openClash(card, body, stored);
    this.setBusy(true);
    try {
      // Against the sheet this page shows: a round stored meanwhile on another phone
      // makes the server refuse this one (412) rather than store the hand twice.
      const outcome = await this.outbox.add(body, this.table.match.version, this.anchor.after);
      reset();
      this.anchor = null;
      if (outcome.sent) await this.table.caughtUp(outcome.etag);
      if (this.ui.saved) this.ui.saved(Boolean(outcome.sent), outcome.sent ? outcome.sent.number : null);
    } catch (error) {
      // Someone wrote meanwhile (412), or the match's state refused it (409): read the
      // sheet as it is now; what was typed stays in the form.
      if (error instanceof ApiError && [409, 412].includes(error.status)) {
        try {
          await this.table.refresh();
        } catch {
          // the refusal below says what went wrong
        }
      }
      const stored = error instanceof ApiError && error.status === 412 ? this.strangers() : [];
      if (stored.length) this.openClash(card, body, stored);
      else this.ui.showError(error, this.placeOf(card));
    } finally {
      this.setBusy(false);
    }
  }

  /** Open the cards on round `round.number`, filled in with what it holds. */
  edit(round, etag) {
    if (!this.table.canWrite || this.locked) return;
    this.build(this.table.match.game);
    this.closeClash();
    this.anchor = null;
    this.editing = { number: round.number, ifMatch: etag || `"v${this.table.match.version}"` };
    const input = round.input;
    if (this.hand) {
      this.hand.reset();
      this.resetAmounts();
      if (input.type === "asszorti_hand") this.hand.fill(input);
      else if (input.type === "asszorti_amounts") {
        input.amounts.forEach((amount, seat) => {
          this.amounts[seat].value = String(amount);
        });
        this.manual = new Set([0, 1, 2]);
      }
    }
    if (this.tapper) {
      if (input.type === "alkort_tricks") this.tapper.fill(input.tricks);
      else this.tapper.reset();
    }
    if (this.own) {
      this.own.draw();
      if (input.type === "own_points") this.own.fill(input.points);
      else this.own.reset();
    }
    this.ui.clearMessage();
    this.table.draw();
    this.main.scrollIntoView({ block: "start" });
  }

  stopEditing() {
    this.editing = null;
    this.resetForms();
    this.table.draw();
  }

  resetForms() {
    if (this.hand) {
      this.hand.reset();
      this.resetAmounts();
    }
    if (this.tapper) this.tapper.reset();
    if (this.own) this.own.reset();
  }

  async correct(body, reset, card = this.main) {
    const { number, ifMatch } = this.editing;
    this.setBusy(true);
    try {
      const { etag } = await call("PUT", `/v1/matches/${encodeURIComponent(this.table.id)}/rounds/${number}`, {
        token: this.table.token,
        body,
        ifMatch,
      });
      reset();
      this.editing = null;
      this.resetForms();
      await this.table.caughtUp(etag);
      if (this.ui.saved) this.ui.saved(true, number);
    } catch (error) {
      this.ui.showError(error, this.placeOf(card));
      if (error instanceof ApiError && error.status === 412) {
        // The sheet changed since the round was opened: show it as it is now; saving
        // again applies the correction to that.
        try {
          await this.table.refresh();
          if (this.editing) this.editing.ifMatch = `"v${this.table.match.version}"`;
        } catch {
          // the message already says what went wrong
        }
      }
    } finally {
      this.setBusy(false);
    }
  }

  // ---- the sheet: each round's number opens it ----

  decorate(box) {
    const names = this.table.names();
    const rows = new Map(this.table.sheet.rows.map((row) => [row.number, row]));
    for (const tr of box.querySelectorAll("tbody tr[data-round]")) {
      const number = Number(tr.dataset.round);
      const row = rows.get(number);
      const dealer = row ? names[row.dealer] : "";
      tr.dataset.dealer = row ? String(row.dealer) : "";
      tr.classList.toggle("open", this.panel.number === number);
      tr.classList.toggle("editing", Boolean(this.editing && this.editing.number === number));
      const th = tr.querySelector("th");
      th.replaceChildren(
        h(
          "button",
          {
            type: "button",
            class: "round-open",
            dataset: { round: String(number) },
            title: t("open_round", { n: number, name: dealer }),
            "aria-label": t("open_round", { n: number, name: dealer }),
            onclick: () => this.openRound(number),
          },
          String(number),
        ),
      );
    }
  }

  async openRound(number) {
    await this.panel.open(number);
    for (const tr of this.table.sheetBox.querySelectorAll("tbody tr[data-round]")) {
      tr.classList.toggle("open", Number(tr.dataset.round) === number);
    }
  }

  /** A held item sent again; a refusal of that is said at its button. */
  retryHeld(key, button) {
    this.outbox.retry(key).catch((error) => this.ui.showError(error, button.closest(".actions") || button));
  }

  /** What the outbox card says of a round refused as stale: the stored round that looks
   * the same, else what was stored after the sheet it was entered on (read once). */
  conflictLine(item) {
    if (typeof item.after !== "number") return "";
    const rounds = this.conflicts.get(item.key);
    if (rounds === undefined) {
      this.conflicts.set(item.key, null);
      storedAfter(this.table.id, this.table.token, item.after)
        .then((read) => {
          this.conflicts.set(item.key, read.filter((round) => !this.mine.has(round.number)));
          this.drawOutbox();
        })
        .catch(() => this.conflicts.delete(item.key));
      return "";
    }
    if (!rounds || !this.table.match) return "";
    const { game, host_seat: hostSeat } = this.table.match;
    return conflictText({ game, names: this.table.names(), hostSeat, rounds, body: item.body });
  }

  drawOutbox() {
    if (this.table.match && this.table.sheet) this.drawPending();
    const card = this.outboxCard;
    const items = this.table.canWrite ? this.outbox.shown() : [];
    const offline = !navigator.onLine && this.table.canWrite;
    card.hidden = !items.length && !offline;
    if (card.hidden) {
      clear(card);
      return;
    }
    const names = this.table.match ? this.table.names() : [];
    const teams = (this.table.sheet && this.table.sheet.columns) || [];
    const parts = [h("h2", {}, t("outbox_title", { n: items.length }))];
    if (offline) parts.push(h("p", { class: "note offline", id: "offline-note" }, t("offline_note")));
    if (items.length) {
      parts.push(
        h(
          "ul",
          { class: "outbox-items" },
          items.map((item) => {
            const state = {
              pending: t("outbox_pending"),
              conflict: `${t("outbox_conflict")} ${storedProblemText(item.problem)}`,
              refused: `${t("outbox_refused")} ${storedProblemText(item.problem)}`,
            }[item.state];
            const same = item.state === "conflict" ? this.conflictLine(item) : "";
            const conflict = item.state === "conflict";
            const buttons = [];
            if (item.state === "pending" && navigator.onLine) {
              buttons.push(
                h("button", { type: "button", class: "outbox-send", onclick: () => this.outbox.flush() }, t("outbox_send")),
              );
            }
            const discard = h(
              "button",
              { type: "button", class: `${conflict ? "primary" : "danger"} outbox-discard`, onclick: () => this.outbox.discard(item.key) },
              t("outbox_discard"),
            );
            // A round refused as stale most likely is already on the sheet: dropping it
            // comes first, adding it as one more round is the second choice.
            if (conflict) buttons.push(discard);
            if (conflict || item.state === "refused") {
              const retry = h(
                "button",
                { type: "button", class: `${conflict ? "" : "primary "}outbox-retry`, onclick: () => this.retryHeld(item.key, retry) },
                t(conflict ? "outbox_add_new" : "outbox_try_again"),
              );
              buttons.push(retry);
            }
            if (!conflict) buttons.push(discard);
            return h(
              "li",
              { class: `outbox-item ${item.state}`, dataset: { key: item.key, state: item.state } },
              h("span", { class: "outbox-input" }, inputText(item.body, names, teams)),
              h("span", { class: "outbox-state" }, state),
              same ? h("span", { class: "outbox-same" }, same) : null,
              h("div", { class: "actions" }, buttons),
            );
          }),
        ),
      );
    }
    clear(card).append(...parts);
  }
}
