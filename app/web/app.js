// SquareScores web page: start a table, open one from a join link, follow its sheet live.
import { api, ApiError, takeFirstMe, takeFirstReads, versionOf } from "./api.js";
import { clear, h } from "./dom.js";
import { language, preferredLanguage, setLanguage, t } from "./i18n.js";
import { addKey, dropKey, getEntry, saveEntry, takeRecovery, unknownKeys } from "./store.js";
import { EndGame, winnerNames } from "./endgame.js";
import { linksCard, recoveryStep } from "./links.js";
import { recoverCard } from "./recover.js";
import { HostSettings, StartSettings, chosenSeat, hostSeatField, seatOptions } from "./settings.js";
import { RoundEntry } from "./entry.js";
import { labelled } from "./teams.js";
import { problemNodes } from "./problems.js";
import { askFirst, dismissAsk } from "./confirm.js";
import { keepNewMatch, summaryOf, tableList } from "./tables.js";
import { ScreenAwake } from "./wakelock.js";
import { BottomBar } from "./bottom-bar.js";
import { keepRead, lastRead } from "./lastread.js";
import { cellNodes, owedLabel, owedNote } from "./owed.js";
import { SheetChart, decorateSheet } from "./chart.js";
import { CHANGES, applyEvent } from "./events.js";

const view = document.getElementById("view");
const message = document.getElementById("message");
// Where the message line lives when no control caused it: under the page's header.
const messageHome = document.createComment("message");
message.before(messageHome);
const RECONNECT_MS = 3000;
// How long a phone waits for the stream to bring its own write before reading the match.
const OWN_EVENT_MS = 3000;

let current = null; // the open table's controller, closed when the route changes

// ---- messages --------------------------------------------------------------

/** Say a refusal (role=alert). `near`: the control, or its row, that caused it: the
 * message goes just after it and is scrolled into view; without it, at the top. */
function showError(error, near = null) {
  // The page's own sentence and hint; the server's detail on a smaller line below.
  message.replaceChildren(...problemNodes(error));
  message.className = "message error";
  if (near && near.isConnected) near.after(message);
  else messageHome.after(message);
  message.hidden = false;
  if (near && near.isConnected) message.scrollIntoView({ block: "center" });
}

function clearMessage() {
  message.hidden = true;
  message.textContent = "";
}

// ---- routing ---------------------------------------------------------------

// (table-prefetch.js reads a table's address too, to begin its reads early.)
function parseRoute() {
  const hash = location.hash.replace(/^#/, "") || "/";
  const [path, query = ""] = hash.split("?");
  const match = /^\/m\/([A-Za-z0-9_-]{1,64})(\/links)?$/.exec(path);
  if (match) {
    return { name: match[2] ? "links" : "match", id: match[1], params: new URLSearchParams(query) };
  }
  return { name: "home" };
}

function route() {
  if (current) current.close();
  current = null;
  clearMessage();
  dismissAsk();
  const r = parseRoute();
  if (r.name === "match" || r.name === "links") {
    const token = r.params.get("t");
    if (token) {
      // A join link: keep the token on this device, beside any stronger key it holds,
      // and take it out of the address bar.
      addKey(r.id, token);
      history.replaceState(null, "", `${location.pathname}${location.search}#/m/${r.id}`);
    }
    if (r.name === "links") return renderLinks(r.id);
    current = new Table(r.id);
    return current.open();
  }
  return renderHome();
}

// ---- home: start a table, the tables this device knows ------------------------

function renderHome() {
  clear(view);
  view.append(startForm(), tableList(renderHome));
}

function startForm() {
  const names = h("div", { class: "fields" });
  const teams = h("div", { class: "fields" });
  const rules = new StartSettings(() => drawFields()); // an own table's players or teams changed
  // Whose phone starts the table: usually a player's, who types their own name first,
  // so the first seat is chosen; it shows the name as typed, and the host changes it
  // here or later in the table's settings ("I only keep score": no seat).
  const seat = hostSeatField("host-seat", [], null); // its players once the names are drawn
  const select = h(
    "select",
    { id: "game", name: "game" },
    h("option", { value: "asszorti" }, t("table_game_asszorti")),
    h("option", { value: "alkort" }, t("table_game_alkort")),
    h("option", { value: "own_table" }, t("table_game_own_table")),
  );
  // The game's name alone fits the select on a phone; its players are said under it.
  const hint = h("span", { class: "field-hint", id: "game-hint" });
  const typed = (box) => [...box.querySelectorAll("input")].map((input) => input.value);
  const drawSeat = () =>
    seatOptions(
      seat.select,
      typed(names).map((name, n) => name.trim() || t("player_n", { n: n + 1 })),
    );
  const drawNames = () => {
    hint.textContent = t(`game_hint_${select.value}`);
    rules.draw(select.value, typed(names));
    drawFields();
  };
  // The name fields (as many as the game's seats) and the team-name fields.
  const drawFields = () => {
    const count = rules.seats();
    const old = typed(names);
    const oldTeams = typed(teams);
    clear(names);
    for (let seat = 0; seat < count; seat += 1) {
      names.append(
        h(
          "label",
          { class: "field" },
          h("span", {}, t("player_n", { n: seat + 1 })),
          h("input", {
            name: `player${seat}`,
            class: "player-name",
            maxlength: "40",
            autocomplete: "off",
            required: true,
            value: old[seat] || "",
          }),
        ),
      );
    }
    clear(teams);
    for (let team = 0; team < rules.teams(); team += 1) {
      teams.append(
        h(
          "label",
          { class: "field" },
          h("span", {}, t("team_n", { n: team + 1 })),
          h("input", {
            name: `team${team}`,
            class: "team-name",
            maxlength: "40",
            value: oldTeams[team] || "",
          }),
        ),
      );
    }
    rules.names(typed(names).map((name) => name.trim()));
    drawSeat();
  };
  select.addEventListener("change", drawNames);
  names.addEventListener("input", () => {
    rules.names([...names.querySelectorAll("input")].map((input) => input.value.trim()));
    drawSeat();
  });
  drawNames();
  seat.select.value = "0"; // the first seat, until the host says otherwise
  const button = h("button", { type: "submit", class: "primary", id: "create" }, t("create"));
  const form = h(
    "form",
    { class: "card", id: "start" },
    h("h1", {}, t("start_title")),
    h("label", { class: "field" }, h("span", {}, t("game")), select, hint),
    names,
    seat.field,
    teams,
    rules.element,
    button,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearMessage();
    const players = [...names.querySelectorAll("input")].map((input) => input.value.trim());
    if (players.some((name) => !name)) return showError(t("error_names"), button);
    const settings = rules.read();
    if (settings.error) return showError(settings.error, button);
    const body = { game: select.value, players, settings: settings.value, host_seat: chosenSeat(seat.select) };
    if (rules.teams() > 0) {
      const teamNames = [...teams.querySelectorAll("input")].map((input) => input.value.trim());
      if (teamNames.every(Boolean)) body.team_names = teamNames;
    }
    button.disabled = true;
    button.textContent = t("creating");
    try {
      const match = await api.createMatch(body);
      keepNewMatch(match);
      location.hash = `#/m/${match.id}/links`;
    } catch (error) {
      showError(error, button);
      button.disabled = false;
      button.textContent = t("create");
    }
  });
  return form;
}

// ---- join links (host, links.js) ----------------------------------------------

function renderLinks(id) {
  const entry = getEntry(id);
  clear(view);
  const players = entry && entry.players ? entry.players : null;
  const recovery = takeRecovery(id); // right after the start: a step of its own, first
  view.append(
    ...(recovery ? [recoveryStep(recovery)] : []),
    linksCard(id, entry, players) || h("p", { class: "card" }, t("no_token")),
    h("p", {}, h("a", { href: `#/m/${id}`, class: "button primary", id: "open-sheet" }, t("open_sheet"))),
  );
}

// ---- a table: its sheet, live, and the write controls --------------------------

/** A name over a column of the sheet: it wraps between words only and is cut short
 * after two lines; the full name is its title, and a tap shows it whole (then
 * `toggled`: the sheet may have grown wider). */
function columnHead(name, toggled) {
  const text = h("span", { class: "col-name" }, name);
  const th = h("th", { scope: "col", title: name }, text);
  th.addEventListener("click", () => {
    text.classList.toggle("full");
    toggled();
  });
  return th;
}

class Table {
  constructor(id) {
    this.id = id;
    this.entry = getEntry(id);
    this.match = null;
    this.sheet = null;
    this.source = null;
    this.retry = null;
    this.closed = false;
    this.refreshing = null;
    this.again = false;
    this.awaited = []; // {version, resolve}: own writes waiting for their event (caughtUp)
    this.finished = false; // the link refused: no stream to wait for
    this.wasLive = false; // the stream has opened once: the next open is a reconnection
    this.onOffline = () => this.reconnect({ now: false });
    this.onOnline = () => this.reconnect({ now: true });
    this.onResize = () => this.fitSheet();
    this.root = h("div", { class: "table-view" });
    this.status = h("p", { class: "status" });
    this.who = h("p", { class: "you-are", id: "you-are" }); // whose phone this is
    // A race to a target: the target over the sheet, and a move of it said on every phone.
    this.target = h("p", { class: "sheet-target", id: "sheet-target", hidden: true });
    this.targetNote = h("p", { class: "target-note", id: "target-note", role: "status" });
    this.shownTarget = undefined; // the target last drawn (undefined: nothing drawn yet)
    // (Its box is as wide as the wider of its two words: app.css, .live.)
    const words = { on: t("live_on"), off: t("live_off") };
    this.live = h("span", { class: "live off", id: "live", dataset: words }, t("live_off"));
    this.sheetBox = h("div", { class: "sheet-box" });
    this.chart = new SheetChart(); // the running totals as a chart (chart.js)
    this.rulesBox = h("section", { class: "card own-rules", id: "own-rules", hidden: true });
    this.controls = h("div", { class: "controls" });
    this.endgame = new EndGame(this); // result card, CSV and Print (endgame.js)
    this.hostSettings = new HostSettings(this); // the host's settings card (settings.js)
    const saved = (sent, number) => this.saved(sent, number);
    this.rounds = new RoundEntry(this, { showError, clearMessage, saved }); // entry.js
    this.awake = new ScreenAwake(); // keep the screen on while in play (wakelock.js)
    this.bottomBar = new BottomBar({ form: () => this.rounds.box.querySelector(".card.entry") }); // bottom-bar.js
  }

  get token() {
    return this.entry && this.entry.token;
  }

  async open() {
    clear(view);
    if (!this.token) {
      view.append(
        h("p", { class: "card" }, t("no_token")),
        recoverCard(this.id, route),
        h("p", {}, h("a", { href: "#/" }, t("back_home"))),
      );
      return;
    }
    this.root.append(
      h("nav", { class: "crumbs" }, h("a", { href: "#/" }, t("back_home")), this.live, this.awake.element),
      this.who,
      this.status,
      this.target,
      this.targetNote,
      this.endgame.rematchBox, // an ended match's rematch, told at the top (endgame.js)
      this.sheetBox,
      this.rulesBox, // an own table's rules, as the group wrote them
      this.rounds.under, // the outbox and an opened round (entry.js)
      this.chart.element,
      this.endgame.result,
      this.rounds.box, // the entry cards (entry.js)
      this.controls,
      this.endgame.tools,
      this.hostSettings.element,
      this.bottomBar.element,
    );
    // Until the table is first drawn only the crumbs and the status line show, the
    // status saying "Loading…": what the first draw adds comes below them, so nothing
    // already on screen moves (no layout shift).
    this.root.classList.add("unread");
    this.status.append(h("span", { class: "muted" }, t("loading")));
    view.append(this.root);
    try {
      await this.learnRoles();
      await this.refresh();
    } catch (error) {
      if (this.hostKeyRefused(error)) return;
      if (error instanceof ApiError || !this.showLastRead()) {
        showError(error);
        return;
      }
    }
    if (this.closed) return;
    if (this.entry.role === "host") {
      this.root.append(linksCard(this.id, this.entry, this.names(), { collapsed: true }));
    }
    if (this.entry.role !== "host") this.root.append(recoverCard(this.id, route));
    window.addEventListener("offline", this.onOffline);
    window.addEventListener("online", this.onOnline);
    window.addEventListener("resize", this.onResize);
    this.rounds.start(); // sends what waits in the outbox
    this.connect();
  }

  /** Ask /me the role of each key opened from a link, while none is the host's; a key
   * the server refuses (re-issued since) is dropped, and the next strongest acts. */
  async learnRoles() {
    for (const key of unknownKeys(this.entry)) {
      try {
        const me = await (takeFirstMe(this.id, key.token) || api.me(this.id, key.token));
        this.entry = addKey(this.id, key.token, me.role, me.seat);
      } catch (error) {
        if (!(error instanceof ApiError && error.status === 401) || this.entry.keys.length < 2) throw error;
        this.entry = dropKey(this.id, key.token);
      }
      if (this.entry.role === "host") return;
    }
  }

  close() {
    this.closed = true;
    window.removeEventListener("offline", this.onOffline);
    window.removeEventListener("online", this.onOnline);
    window.removeEventListener("resize", this.onResize);
    this.rounds.stop();
    if (this.source) this.source.close();
    this.source = null;
    clearTimeout(this.retry);
    this.awake.close();
    this.bottomBar.close();
  }

  // Re-read the match and its sheet; calls while one runs are folded into one more.
  async refresh() {
    if (this.refreshing) {
      this.again = true;
      return this.refreshing;
    }
    this.refreshing = (async () => {
      let tries = 0;
      do {
        this.again = false;
        const [match, sheet, sheetVersion] = await (takeFirstReads(this.id, this.token) ||
          api.readTable(this.id, this.token));
        if (this.closed) return;
        // A change between the two reads: read both again (events after the match's
        // version would not bring the sheet the change it missed).
        if (sheetVersion !== match.version && ++tries < 3) {
          this.again = true;
          continue;
        }
        // A live event may have brought a newer match while this read travelled.
        if (!this.match || match.version >= this.match.version) this.show(match, sheet);
      } while (this.again && !this.closed);
    })();
    try {
      await this.refreshing;
    } finally {
      this.refreshing = null;
    }
  }

  /** The match and its sheet, as read or as a live event left them: kept and drawn. */
  show(match, sheet) {
    this.match = match;
    // Teams as the page labels them (teams.js); every view reads them from here.
    this.sheet = labelled(match, sheet);
    this.entry = saveEntry(this.id, summaryOf(match)); // for "Your tables"
    keepRead(this.id, match, sheet);
    this.draw();
    for (const waiter of this.awaited) if (waiter.version <= match.version) waiter.resolve(true);
    this.awaited = this.awaited.filter((waiter) => waiter.version > match.version);
  }

  /**
   * After this phone's own write, answered with `etag`: the stream brings its event and
   * redraws the page, as on every other phone. The match and sheet are read only when
   * no stream is open, or its event has not come within OWN_EVENT_MS.
   */
  async caughtUp(etag) {
    const version = versionOf(etag);
    if (this.match && version !== null && this.match.version >= version) {
      // Its event came first, and was drawn while the write was still the form's own.
      this.draw();
      return;
    }
    const open = this.source && this.source.readyState === EventSource.OPEN;
    if (version === null) return this.refresh();
    if (!open) {
      // A read already under way (the outbox's, for this same write) may do.
      if (this.refreshing) await this.refreshing;
      if (!this.closed && !(this.match && this.match.version >= version)) await this.refresh();
      return;
    }
    const arrived = await new Promise((resolve) => {
      this.awaited.push({ version, resolve });
      setTimeout(() => resolve(false), OWN_EVENT_MS);
    });
    if (!arrived && !this.closed) await this.refresh();
  }

  /** A live event: drawn from its own data; the match and sheet are read again only
   * when it cannot be applied (a version skipped, a kind this page does not know). */
  changed(message) {
    let event = null;
    try {
      event = JSON.parse(message.data);
    } catch {
      // not an event this page can read: read the match again
    }
    // (Applied even while a read travels: refresh keeps whichever is newer.)
    const applied = this.match ? applyEvent(this.match, this.sheet, event) : null;
    if (!applied) this.refreshQuietly();
    else if (!applied.unchanged) this.show(applied.match, applied.sheet);
  }

  /** No network: the sheet as this phone last read it, with what waits to be sent; the
   * 'online' event reconnects, and the stream brings what it missed (reconnect).
   * Answers whether there was one. */
  showLastRead() {
    const kept = lastRead(this.id);
    if (!kept || this.closed) return false;
    this.match = kept.match;
    this.sheet = labelled(kept.match, kept.sheet);
    this.draw();
    return true;
  }

  refreshQuietly() {
    this.refresh().catch((error) => this.hostKeyRefused(error) || showError(error));
  }

  /** Whether `error` is the server refusing this phone's host key (replaced on another
   * phone, by a recovery or a re-issue): then it says so at once, stops following and
   * opens the recovery form at the top. */
  hostKeyRefused(error) {
    if (!(error instanceof ApiError && error.status === 401) || this.entry.role !== "host") return false;
    this.hostKeyReplaced();
    return true;
  }

  hostKeyReplaced() {
    this.stopStream({ finished: true });
    showError(t("host_key_replaced"));
    if (this.match) this.rounds.lock();
    else this.status.replaceChildren(); // not "Loading…": nothing will be read with this key
    const card = this.root.querySelector("#recover") || recoverCard(this.id, route);
    this.status.after(card); // near the top, under the message
    card.open = true;
    card.scrollIntoView({ block: "nearest" });
  }

  async connect() {
    if (this.closed) return;
    try {
      const { url } = await api.ticket(this.id, this.token);
      if (this.closed) return;
      // From the version this phone holds: the stream sends the changes it has not
      // seen (or a snapshot, when they are too many to replay), not the match again.
      // Past the end too: an ended match is still renamed, and its rematch starts.
      const held = this.match ? `&after=${this.match.version}` : "";
      const source = new EventSource(`${url}&past_end=true${held}`);
      this.source = source;
      const changed = (message) => this.changed(message);
      for (const kind of ["snapshot", ...CHANGES]) source.addEventListener(kind, changed);
      source.addEventListener("open", () => {
        // Back after a drop: what went wrong while it was down is over.
        if (this.wasLive) clearMessage();
        this.wasLive = true;
        this.setLive(true);
      });
      source.addEventListener("revoked", () => {
        if (this.entry.role === "host") return this.hostKeyReplaced();
        this.stopStream({ finished: true });
        showError(t("revoked"));
        this.rounds.lock();
      });
      source.addEventListener("resync", () => this.reconnect());
      // Closed at once: EventSource's own retry would bring back the ticket, which has
      // opened its one stream; reconnect() takes a new one.
      source.onerror = () => this.reconnect();
    } catch (error) {
      if (this.hostKeyRefused(error)) return;
      if (error instanceof ApiError && [401, 403, 404].includes(error.status)) {
        this.finished = true;
        showError(error);
        return;
      }
      this.reconnect();
    }
  }

  stopStream({ finished = false } = {}) {
    if (this.source) this.source.close();
    this.source = null;
    this.setLive(false);
    if (finished) this.finished = true;
    this.live.hidden = this.finished; // nothing more will come: no "reconnecting"
  }

  /** A new stream after a drop: in a while, or `now` (the connection came back). While
   * the phone is offline it only waits for the 'online' event. */
  reconnect({ now = false } = {}) {
    this.stopStream();
    if (this.closed || this.finished) return;
    clearTimeout(this.retry);
    if (!navigator.onLine) return;
    // The new stream resumes after the version this phone holds (connect): what the
    // drop missed comes as events, or as a snapshot that has the page read it again.
    this.retry = setTimeout(() => this.connect(), now ? 0 : RECONNECT_MS);
  }

  setLive(on) {
    this.live.className = on ? "live on" : "live off";
    this.live.textContent = on ? t("live_on") : t("live_off");
  }

  get canWrite() {
    return this.entry.role === "host" || this.entry.role === "player";
  }

  names() {
    return this.match.players.map((player) => player.name);
  }

  // ---- drawing ----

  draw() {
    this.drawWho();
    this.root.classList.remove("unread");
    this.drawStatus();
    this.drawTarget();
    this.drawSheet();
    this.chart.draw(this.match, this.sheet);
    this.drawRules();
    this.drawControls();
    this.rounds.draw();
    this.endgame.draw();
    this.hostSettings.draw();
    this.awake.setPlaying(this.match.status !== "ended");
    this.bottomBar.draw(this.sheet, { canEnter: Boolean(this.bottomBar.hooks.form()) });
    decorateSheet(this.root, this.match, this.sheet); // colours and the leader (chart.js)
    this.fitSheet();
  }

  /** A round went in (or was kept to send): say so and bring its row into view. */
  saved(sent, number = null) {
    this.bottomBar.say(t(sent ? "round_saved" : "round_saved_offline"));
    const rows = this.sheetBox.querySelectorAll("tbody tr[data-round], tbody tr.pending-round");
    const row = number ? this.sheetBox.querySelector(`tbody tr[data-round="${number}"]`) : rows[rows.length - 1];
    if (row) row.scrollIntoView({ block: "center" });
  }

  drawStatus() {
    const match = this.match;
    const names = this.names();
    const parts = [h("strong", {}, t(`status_${match.status}`)), " · ", t("round_count", { n: match.round_count })];
    if (match.status === "in_progress") {
      // (moved on past the rounds still waiting to be sent, as the entry form is)
      parts.push(" · ", t("next_dealer", { name: names[this.rounds.nextDealer()] }));
    }
    if (match.status !== "in_progress") {
      if (match.winner) {
        parts.push(" · ", t("winner", { names: winnerNames(match, this.sheet).join(", ") }));
      } else {
        parts.push(" · ", t("no_winner"));
      }
    }
    clear(this.status).append(...parts);
    this.status.className = `status ${match.status}`;
  }

  /** "You are Berta" on a player's phone; on the host's, "You are Anna (host)" when the
   * match names the host's seat, else "You are the host" (a viewer's phone says it is
   * watching, under the sheet). */
  drawWho() {
    const { role } = this.entry;
    const seat = role === "host" ? this.match.host_seat : this.entry.seat;
    const name = this.canWrite && Number.isInteger(seat) ? this.names()[seat] : undefined;
    let text = "";
    if (role === "host") text = name !== undefined ? t("you_are_host_seat", { name }) : t("you_are_host");
    else if (name !== undefined) text = t("you_are", { name });
    if (this.who.textContent !== text) this.who.textContent = text;
  }

  /** The target a side races to (Alkort; an own table with one), and, once it moves
   * after the phone has drawn it, a note in a status region (read out) saying so. */
  drawTarget() {
    const value = this.match.settings && this.match.settings.target;
    const goal = Number.isInteger(value) ? value : null;
    this.target.hidden = goal === null;
    this.target.textContent = goal === null ? "" : t("chart_target", { target: goal });
    if (Number.isInteger(this.shownTarget) && goal !== null && goal !== this.shownTarget) {
      this.targetNote.textContent = t("target_moved", { target: goal, was: this.shownTarget });
    }
    this.shownTarget = goal;
  }

  drawSheet() {
    const sheet = this.sheet;
    const head = h(
      "tr",
      {},
      h("th", { scope: "col" }, t("col_round")),
      (sheet.teams || sheet.columns).map((name) => columnHead(name, () => this.fitSheet())),
    );
    const body = h("tbody", {});
    for (const row of sheet.rows) {
      body.append(
        h(
          "tr",
          { dataset: { round: String(row.number) } },
          h("th", { scope: "row" }, String(row.number)),
          row.cells.map((cell, index) =>
            h(
              "td",
              { class: row.net && row.net[index] < 0 ? "loss" : undefined },
              cellNodes(cell, sheet.owed && row.net ? row.net[index] : null), // owed.js: an Asszorti hand's net
            ),
          ),
        ),
      );
    }
    const foot = h(
      "tfoot",
      {},
      h(
        "tr",
        { class: "totals" },
        h("th", { scope: "row" }, t("total")),
        sheet.totals.map((total) => h("td", {}, String(total))),
      ),
      sheet.owed
        ? h(
            "tr",
            { class: "owed" },
            h("th", { scope: "row" }, owedLabel()),
            sheet.owed.map((owed) => h("td", {}, String(owed))),
          )
        : null,
    );
    clear(this.sheetBox).append(
      h("table", { class: "sheet", id: "sheet" }, h("thead", {}, head), body, foot),
      ...(sheet.owed ? [owedNote()] : []),
    );
    if (!sheet.rows.length) this.sheetBox.append(h("p", { class: "muted no-rounds" }, t("no_rounds")));
    this.rounds.decorate(this.sheetBox); // entry.js: a round's number opens it
  }

  /** Whether the sheet is wider than its box (app.css .sheet-box.wide): then the box
   * scrolls, sideways and down; otherwise the page does, and the column names stick
   * to the top of the screen. Measured before the browser paints, so nothing jumps. */
  fitSheet() {
    const box = this.sheetBox;
    // (a wide box is at most the screen less the bar at its bottom: read down to its last
    // round, it still shows its column names)
    box.style.setProperty("--below", `${this.bottomBar.element.offsetHeight}px`);
    // The table's own width, whatever the box does: one layout, and a box that stays
    // wide is never made a plain one in between.
    const table = box.querySelector("#sheet");
    box.classList.toggle("wide", Boolean(table) && table.offsetWidth > box.clientWidth + 1);
  }

  /** An own table's rules (settings.table_rules): as text, its line breaks kept by CSS.
   * Drawn once and updated in place (a live redraw leaves a selection in it alone). */
  drawRules() {
    const text = (this.match.settings && this.match.settings.table_rules) || "";
    this.rulesBox.hidden = !text;
    if (!this.rulesText) {
      this.rulesText = h("p", { class: "table-rules", id: "table-rules" });
      this.rulesBox.append(h("h2", {}, t("own_rules_title")), this.rulesText);
    }
    if (this.rulesText.textContent !== text) this.rulesText.textContent = text;
  }

  drawControls() {
    clear(this.controls);
    const match = this.match;
    // A viewer link is the tablet in the middle of the table: a big sheet, nothing to write.
    this.root.classList.toggle("viewer-mode", !this.canWrite);
    if (!this.canWrite) {
      this.controls.append(h("p", { class: "muted", id: "viewer-note" }, t("viewer_note")));
      return;
    }
    if (match.status === "ended") return;
    const actions = h("div", { class: "actions" });
    if (match.round_count > 0) {
      actions.append(
        h(
          "button",
          { type: "button", id: "undo", onclick: () => this.undo(match.round_count) },
          t("undo", { n: match.round_count }),
        ),
      );
    }
    actions.append(h("button", { type: "button", id: "end", class: "danger", onclick: () => this.end() }, t("end_match")));
    this.controls.append(actions);
  }

  /** End the match, once the player says yes (as Undo; a live redraw cannot lose the question). */
  async end() {
    const yes = await askFirst({ question: t("end_question"), yes: t("end_match") });
    if (!yes || this.closed) return;
    this.write(() => api.endMatch(this.id, this.token));
  }

  /** The last round off the sheet, once the player says yes (a stray tap would lose it). */
  async undo(number) {
    const yes = await askFirst({ question: t("undo_question", { n: number }), yes: t("undo", { n: number }) });
    if (!yes || this.closed) return;
    this.write(() => api.deleteRound(this.id, this.token, number));
  }

  /** `action` answers {data, etag}; a 409 (the match moved on) reads it as it now is. */
  async write(action) {
    clearMessage();
    for (const button of this.controls.querySelectorAll("button")) button.disabled = true;
    let etag = null;
    try {
      ({ etag } = await action());
    } catch (error) {
      showError(error, this.controls);
      if (!(error instanceof ApiError && error.status === 409)) {
        for (const button of this.controls.querySelectorAll("button")) button.disabled = false;
        return;
      }
    }
    try {
      await (etag ? this.caughtUp(etag) : this.refresh());
    } catch (error) {
      showError(error, this.controls);
    }
  }
}

// ---- start ------------------------------------------------------------------

async function start() {
  const select = document.getElementById("lang");
  await setLanguage(preferredLanguage());
  select.value = language();
  select.addEventListener("change", async () => {
    await setLanguage(select.value, { remember: true });
    route();
  });
  window.addEventListener("hashchange", route);
  route();
  // The service worker keeps the page's shell, so it opens with no network (sw.js);
  // registered once the page has loaded, so its caching never delays the first screen.
  const register = () => navigator.serviceWorker.register("/sw.js").catch(() => {});
  if (!("serviceWorker" in navigator)) return;
  if (document.readyState === "complete") register();
  else window.addEventListener("load", register, { once: true });
}

start().catch(showError);
