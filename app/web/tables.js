// "Your tables" on the start screen: each table this phone knows, by its game, players,
// when it was last played and how it stands. What the list shows is kept in the store
// (store.js) whenever the phone opens a table; the start screen then asks the API again
// for the ones not looked at lately, one after another, so a slow phone is not flooded.
import { api } from "./api.js";
import { askFirst } from "./confirm.js";
import { h } from "./dom.js";
import { language, t } from "./i18n.js";
import { addKey, entries, forget, getEntry, rememberRecovery, saveEntry } from "./store.js";
import { teamNames } from "./teams.js";

const STALE_MS = 5 * 60 * 1000;
const REFRESH_AT_MOST = 8; // per visit of the start screen

let visit = 0; // a newer start screen stops the older one's refresh

/** A match this phone just started (created, or a rematch): its host key, its recovery
 * code for the links screen (once), its join links and what the list shows of it. */
export function keepNewMatch(match) {
  addKey(match.id, match.tokens.host, "host");
  rememberRecovery(match.id, match.tokens.recovery);
  saveEntry(match.id, { ...summaryOf(match), links: match.tokens.links });
}

/** What the list shows of a match, to keep in the store; a winning team is named as
 * the table's page names it (teams.js). */
export function summaryOf(match) {
  const names = match.players.map((player) => player.name);
  let winner = null;
  if (match.winner) {
    const team = match.winner.team;
    if (team !== null && team !== undefined) {
      winner = [(teamNames(match) || [])[team] ?? names.join(", ")];
    } else {
      winner = (match.winner.seats || []).map((seat) => names[seat]);
    }
  }
  return {
    game: match.game,
    label: names.join(", "),
    players: names,
    status: match.status,
    winner,
    rounds: match.round_count,
    played: match.updated_at,
    checked: Date.now(),
  };
}

function when(iso) {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return null;
  const text = new Intl.DateTimeFormat(language(), { dateStyle: "medium", timeStyle: "short" }).format(date);
  return h("time", { datetime: date.toISOString(), class: "table-played" }, t("table_played", { date: text }));
}

function stateText(entry) {
  if (!entry.status) return null;
  const parts = [t(`status_${entry.status}`)];
  if (entry.status !== "in_progress") {
    if (entry.winner && entry.winner.length) parts.push(t("winner", { names: entry.winner.join(", ") }));
    else if (entry.status === "ended") parts.push(t("no_winner"));
  }
  return parts.join(" · ");
}

function item(entry, redraw) {
  const game = entry.game ? t(`table_game_${entry.game}`) : entry.id;
  const players = entry.players ? entry.players.join(", ") : entry.label || "";
  const meta = [stateText(entry), entry.rounds !== undefined ? t("round_count", { n: entry.rounds }) : null, t(`role_${entry.role || "unknown"}`)]
    .filter(Boolean)
    .join(" · ");
  const forgetButton = h("button", { type: "button", class: "link forget" }, t("forget"));
  forgetButton.addEventListener("click", async () => {
    const host = entry.keys.some((key) => key.role === "host");
    const yes = await askFirst({
      question: t("forget_question", { name: players || game }),
      warning: host ? t("forget_host_warning") : null,
      yes: t("forget"),
    });
    if (!yes) return;
    forget(entry.id);
    redraw();
  });
  return h(
    "li",
    { class: `table-item ${entry.status || "unknown"}`, dataset: { id: entry.id } },
    h("a", { href: `#/m/${entry.id}`, class: "table-game" }, game),
    players ? h("span", { class: "table-players" }, players) : null,
    h("span", { class: "table-meta muted" }, meta),
    entry.played ? when(entry.played) : null,
    forgetButton,
  );
}

function lastPlayed(entry) {
  const played = entry.played ? Date.parse(entry.played) : NaN;
  return Number.isNaN(played) ? entry.saved || 0 : played;
}

/** The "Your tables" card; `redraw` draws the start screen again (after a Forget). */
export function tableList(redraw) {
  const known = entries().sort((a, b) => lastPlayed(b) - lastPlayed(a));
  const list = h("ul", { class: "tables", id: "tables" }, known.map((entry) => item(entry, redraw)));
  visit += 1;
  refreshLazily(list, known, visit, redraw);
  return h(
    "section",
    { class: "card" },
    h("h2", {}, t("your_tables")),
    known.length ? list : h("p", { class: "muted" }, t("no_tables")),
  );
}

/** Ask the API about the tables not looked at lately, one at a time, each redrawn in
 * place; an ended table is not asked again once its end is known. */
async function refreshLazily(list, known, mine, redraw) {
  const due = known
    .filter((entry) => entry.token && !(entry.status === "ended" && entry.checked))
    .filter((entry) => !entry.checked || Date.now() - entry.checked > STALE_MS)
    .slice(0, REFRESH_AT_MOST);
  for (const entry of due) {
    if (mine !== visit || !navigator.onLine) return;
    try {
      const match = await api.getMatch(entry.id, entry.token);
      if (!getEntry(entry.id)) continue; // forgotten meanwhile
      const fresh = saveEntry(entry.id, summaryOf(match));
      const old = list.querySelector(`li[data-id="${CSS.escape(entry.id)}"]`);
      if (mine === visit && old) old.replaceWith(item({ id: entry.id, ...fresh }, redraw));
    } catch {
      // Offline, or the key no longer works: the list keeps what it knew.
    }
  }
}
