// The open table's match and sheet as this phone last read them (one table only): a
// reload with no network shows them, with the rounds waiting to be sent, instead of an
// error. Nothing secret is in them (a match as read has no keys).
const KEY = "squarescores.lastread";

export function keepRead(id, match, sheet) {
  try {
    localStorage.setItem(KEY, JSON.stringify({ id, match, sheet }));
  } catch {
    // storage full or refused: the page works without it, only not from a reload offline
  }
}

/** {match, sheet} as last read for match `id`, or null. */
export function lastRead(id) {
  try {
    const kept = JSON.parse(localStorage.getItem(KEY) || "null");
    return kept && kept.id === id && kept.match && kept.sheet ? kept : null;
  } catch {
    return null;
  }
}

/** Forgotten on this phone: its last read goes too. */
export function forgetRead(id) {
  if (lastRead(id)) localStorage.removeItem(KEY);
}
