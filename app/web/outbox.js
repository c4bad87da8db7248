// Rounds on their way to the server, kept in localStorage so none is lost or counted twice.
//
// A new round is written here, with its Idempotency-Key and the match's ETag as the page
// showed it (If-Match), *before* it is sent. An answer lost on the way (the connection
// dropped, the page was reloaded or closed) leaves it here, and it is sent again, in
// order, with the same key: on the 'online' event, when a table is opened, after the
// sheet is read again, and on a timer while the server cannot be reached. The server
// replays the first answer for a key it has seen, so the round is stored once.
//
// An item's state:
//   "sending"  first attempt in flight (not shown; left over after a reload: resent)
//   "pending"  waiting for the connection
//   "conflict" 412: the sheet changed while it waited; the page reads it again and shows
//              it, with the stored round that looks the same; the user drops the round
//              (first choice) or adds it as the next one (against that sheet)
//   "refused"  any other 4xx (409 decided/ended, 401 revoked link, 422, ...): shown with
//              the problem; the user tries again or drops it
// The queue stops at the first item that is not sent, so the rounds keep their order.
import { ApiError, call, newKey } from "./api.js";

const STORAGE_KEY = "squarescores.outbox";
const RETRY_MS = [5000, 10000, 20000, 30000];

function readAll() {
  try {
    const value = JSON.parse(localStorage.getItem(STORAGE_KEY) || "{}");
    return value && typeof value === "object" && !Array.isArray(value) ? value : {};
  } catch {
    return {};
  }
}

function writeAll(all) {
  for (const [id, items] of Object.entries(all)) if (!items.length) delete all[id];
  localStorage.setItem(STORAGE_KEY, JSON.stringify(all));
}

function problemOf(error) {
  const problem = error.problem || {};
  return { status: error.status, code: problem.code || null, detail: problem.detail || null };
}

/** Whether a failed send may simply be tried again later with the same key. */
function transient(error) {
  return !(error instanceof ApiError) || error.status >= 500 || error.status === 429;
}

export class Outbox {
  /**
   * @param {string} matchId
   * @param {{token: () => string, version: () => number | null,
   *          changed: () => void, sent: (round: object) => void,
   *          reread: () => Promise<void>}} hooks `reread` reads the match and its
   *   sheet again and shows them: `version()` is then the server's
   */
  constructor(matchId, hooks) {
    this.id = matchId;
    this.hooks = hooks;
    this.flushing = null;
    this.timer = null;
    this.failures = 0;
    this.stopped = true;
    this.inflight = new Set(); // keys being sent by this page right now
    this.settling = new Set(); // held items the user confirmed, on their way back
    this.onOnline = () => this.flush();
  }

  start() {
    this.stopped = false;
    // Left "sending" by an earlier page (reloaded or closed before the answer): its
    // answer never arrived here, so it waits to be sent again, with the same key.
    for (const item of this.items()) {
      if (item.state === "sending" && !this.inflight.has(item.key)) this.update(item.key, { state: "pending" });
    }
    window.addEventListener("online", this.onOnline);
    return this.flush();
  }

  stop() {
    this.stopped = true;
    window.removeEventListener("online", this.onOnline);
    clearTimeout(this.timer);
  }

  /** This match's items, oldest first. */
  items() {
    return (readAll()[this.id] || []).slice();
  }

  /** Items the user should see: everything but a first attempt still in flight. */
  shown() {
    return this.items().filter((item) => item.state !== "sending");
  }

  update(key, fields) {
    const all = readAll();
    const items = all[this.id] || [];
    const item = items.find((each) => each.key === key);
    if (item) Object.assign(item, fields);
    all[this.id] = items;
    writeAll(all);
    return item || null;
  }

  remove(key) {
    const all = readAll();
    all[this.id] = (all[this.id] || []).filter((item) => item.key !== key);
    writeAll(all);
  }

  /**
   * Keep a new round and send it. Answers {sent: round}, {pending: item} (offline, or
   * waiting behind earlier items), or throws the ApiError of a refusal (the item is then
   * dropped: the form that sent it still holds what was typed). `after`: the last round
   * of the sheet it was entered on (a conflict card names what was stored after it).
   */
  async add(body, version, after = null) {
    const item = {
      key: newKey(),
      body,
      after,
      ifMatch: version === null || version === undefined ? null : `"v${version}"`,
      at: Date.now(),
      state: "sending",
      problem: null,
    };
    const waiting = this.items().length > 0;
    const all = readAll();
    all[this.id] = [...(all[this.id] || []), { ...item, state: waiting || !navigator.onLine ? "pending" : "sending" }];
    writeAll(all);
    if (waiting || !navigator.onLine) {
      this.hooks.changed();
      if (navigator.onLine) this.flush();
      return { pending: item };
    }
    try {
      const { data: round, etag } = await this.send(item);
      if (this.items().length) this.flush();
      return { sent: round, etag };
    } catch (error) {
      if (transient(error)) {
        this.update(item.key, { state: "pending" });
        this.hooks.changed();
        this.later();
        return { pending: item };
      }
      this.remove(item.key);
      if (this.items().length) this.flush();
      throw error;
    }
  }

  /** One POST with the item's key; on success the item goes, and items that were
   * entered on the same view of the sheet now expect the version this one made.
   * Answers {data: the round, etag}. */
  async send(item) {
    this.inflight.add(item.key);
    let answer;
    try {
      answer = await call("POST", `/v1/matches/${encodeURIComponent(this.id)}/rounds`, {
        token: this.hooks.token(),
        body: item.body,
        key: item.key,
        ifMatch: item.ifMatch || undefined,
      });
    } finally {
      this.inflight.delete(item.key);
    }
    const { data, etag } = answer;
    const all = readAll();
    const items = (all[this.id] || []).filter((each) => each.key !== item.key);
    if (etag && item.ifMatch) {
      for (const each of items) if (each.ifMatch === item.ifMatch) each.ifMatch = etag;
    }
    all[this.id] = items;
    writeAll(all);
    this.failures = 0;
    this.hooks.sent(data, etag);
    return answer;
  }

  /** Send what waits, oldest first, stopping at the first item that is not sent. */
  flush() {
    if (this.flushing) return this.flushing;
    // (.finally, not a try/finally inside: with nothing to send the body ends at once,
    // and must not clear `flushing` before it is even set.)
    this.flushing = this.sendWaiting().finally(() => {
      this.flushing = null;
    });
    return this.flushing;
  }

  async sendWaiting() {
    while (!this.stopped && navigator.onLine) {
      const item = this.items()[0];
      if (!item || item.state === "conflict" || item.state === "refused") return;
      if (this.inflight.has(item.key)) return; // add() is sending it; it flushes after
      try {
        await this.send(item);
      } catch (error) {
        if (transient(error)) {
          this.update(item.key, { state: "pending" });
          this.later();
        } else {
          const state = error.status === 412 ? "conflict" : "refused";
          this.update(item.key, { state, problem: problemOf(error) });
          // The sheet on screen is not the server's: show what changed meanwhile.
          if (state === "conflict") this.hooks.reread().catch(() => {});
        }
        return;
      } finally {
        this.hooks.changed();
      }
    }
  }

  /** Try again after a while (the server is unreachable, or busy). */
  later() {
    clearTimeout(this.timer);
    if (this.stopped) return;
    const delay = RETRY_MS[Math.min(this.failures, RETRY_MS.length - 1)];
    this.failures += 1;
    this.timer = setTimeout(() => this.flush(), delay);
  }

  /** The user settled a held item: send it again against the sheet as it is now, read
   * again first (the one on screen may be the one the 412 refused: sending its version
   * would only be refused again). A held item's key was answered with a refusal (a 409
   * is kept with its key and would only be replayed), so it goes with a new key: no
   * round was stored under the old one. A second tap while this runs does nothing. */
  async retry(key) {
    if (this.settling.has(key)) return;
    this.settling.add(key);
    try {
      await this.hooks.reread();
    } finally {
      this.settling.delete(key);
    }
    const held = this.items().find((item) => item.key === key);
    if (!held || (held.state !== "conflict" && held.state !== "refused")) return;
    const version = this.hooks.version();
    this.update(key, {
      key: newKey(),
      state: "pending",
      problem: null,
      ifMatch: version === null || version === undefined ? null : `"v${version}"`,
    });
    this.hooks.changed();
    return this.flush();
  }

  discard(key) {
    this.remove(key);
    this.hooks.changed();
    return this.flush();
  }
}
