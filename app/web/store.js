// The tables this device knows: match id -> {token, role, game, label, links?, saved}.
const KEY = "squarescores.matches";

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

export function getEntry(id) {
  return readAll()[id] || null;
}

export function saveEntry(id, fields) {
  const all = readAll();
  all[id] = { ...(all[id] || {}), ...fields, saved: Date.now() };
  writeAll(all);
  return all[id];
}

export function forget(id) {
  const all = readAll();
  delete all[id];
  writeAll(all);
}

export function entries() {
  return Object.entries(readAll())
    .map(([id, entry]) => ({ id, ...entry }))
    .sort((a, b) => (b.saved || 0) - (a.saved || 0));
}
