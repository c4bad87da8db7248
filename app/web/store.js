// The tables this device knows: match id -> {keys, token, role, seat, game, label, links?, saved},
// and what "Your tables" shows of each (tables.js summaryOf: players, status, winner, rounds,
// played, checked).
//
// A phone may hold several keys for one match (the host who also opened a viewer link,
// a player handed the host's link): `keys` keeps each one, [{token, role, seat}], role
// null until /me tells it. The page acts with the strongest (host > player > viewer),
// written beside them as `token`, `role` and `seat`, so opening a weaker link never
// takes a stronger key away.
import { forgetRead } from "./lastread.js";

const KEY = "squarescores.matches"; // table-prefetch.js reads it too, before the modules
const RANK = { host: 3, player: 2, viewer: 1 };

function rank(key) {
  return RANK[key.role] || 0;
}

function readAll() {
  try {
    const value = JSON.parse(localStorage.getItem(KEY) || "{}");
    return value && typeof value === "object" ? value : {};
  } catch {
    return {};
  }
}

function writeAll(all) {
  localStorage.setItem(KEY, JSON.stringify(all));
}

/** The entry's keys; an entry kept before there were several has its one token. */
function keysOf(entry) {
  if (Array.isArray(entry.keys)) return entry.keys;
  return entry.token ? [{ token: entry.token, role: entry.role || null, seat: entry.seat }] : [];
}

/** The entry with `token`, `role` and `seat` of its strongest key (the latest on a tie). */
function settle(entry) {
  const keys = keysOf(entry);
  let best = null;
  for (const key of keys) if (!best || rank(key) >= rank(best)) best = key;
  return {
    ...entry,
    keys,
    token: best ? best.token : null,
    role: best ? best.role : null,
    seat: best && best.seat !== undefined ? best.seat : null,
  };
}

function update(id, change) {
  const all = readAll();
  const entry = settle(all[id] || {});
  all[id] = settle({ ...change(entry), saved: Date.now() });
  writeAll(all);
  return all[id];
}

export function getEntry(id) {
  const entry = readAll()[id];
  return entry ? settle(entry) : null;
}

// A new table's recovery code: shown once on its links screen, never stored.
const recoveries = new Map();

export function rememberRecovery(id, code) {
  recoveries.set(id, code);
}

/** The recovery code a table was just started with, once; null after that. */
export function takeRecovery(id) {
  const code = recoveries.get(id) || null;
  recoveries.delete(id);
  return code;
}

/** Keep what the page learned of a table (game, label, links); keys go through addKey. */
export function saveEntry(id, fields) {
  return update(id, (entry) => ({ ...entry, ...fields }));
}

/** Keep a key for the match; a role given (or learned later) is set on it. */
export function addKey(id, token, role = null, seat = null) {
  return update(id, (entry) => {
    const keys = entry.keys.filter((key) => key.token !== token);
    const known = entry.keys.find((key) => key.token === token);
    const kept = { token, role: role || (known && known.role) || null, seat: seat ?? (known && known.seat) ?? null };
    return { ...entry, keys: [...keys, kept] };
  });
}

/** A key the server no longer takes (re-issued or recovered): the next strongest acts. */
export function dropKey(id, token) {
  return update(id, (entry) => ({ ...entry, keys: entry.keys.filter((key) => key.token !== token) }));
}

/** Keys whose role is not known yet, worth asking /me about: only while the phone
 * holds no host key (none could make it stronger). */
export function unknownKeys(entry) {
  if (!entry || entry.keys.some((key) => key.role === "host")) return [];
  return entry.keys.filter((key) => !key.role);
}

export function forget(id) {
  const all = readAll();
  delete all[id];
  writeAll(all);
  forgetRead(id);
}

export function entries() {
  return Object.entries(readAll())
    .map(([id, entry]) => ({ id, ...settle(entry) }))
    .sort((a, b) => (b.saved || 0) - (a.saved || 0));
}
