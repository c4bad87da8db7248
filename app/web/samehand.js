// The same hand from two phones. Each phone enters a round against the sheet it shows
// (If-Match), so when two send one hand at once the server stores the first and
// refuses the second (412). The phone refused, or one whose sheet moved on while it held
// an entry it had not sent, shows at its form what was stored meanwhile and by whom,
// beside its own entry: dropping its entry is the default, adding it as the next round
// an explicit choice. The outbox card says the same of a round that waited offline.
import { call } from "./api.js";
import { h } from "./dom.js";
import { language, t } from "./i18n.js";
import { byText, inputText } from "./history.js";

// A clash is about the few rounds entered while one phone was busy with its entry.
const LOOK_BACK = 20;

/** A round's input as one string, its keys in order (two phones' JSON may differ). */
function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    // (A field left out and the same field null are the same: the API may write either.)
    return `{${Object.keys(value)
      .filter((key) => value[key] !== null && value[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value);
}

/** Whether two round inputs are the same round (a hand's kontra "none" is its default). */
export function sameInput(a, b) {
  const plain = (input) => {
    if (!input || input.type !== "asszorti_hand") return input;
    const { kontra = "none", ...rest } = input;
    return { ...rest, kontra };
  };
  return Boolean(a && b) && canonical(plain(a)) === canonical(plain(b));
}

/** The rounds stored after round `after`, as GET …/rounds reads them (input, entered_by). */
export async function storedAfter(matchId, token, after) {
  const path = `/v1/matches/${encodeURIComponent(matchId)}/rounds?after=${after}&limit=${LOOK_BACK}`;
  const { data } = await call("GET", path, { token });
  return data.items;
}

/** "Hand 7", "Deal 7", "Round 7": the entry card's own title for round `n`. */
export function roundTitle(game, n) {
  return t({ alkort: "enter_deal", own_table: "enter_own_round" }[game] || "enter_hand", { n });
}

/** The same title inside a sentence ("add mine as hand 8"). */
function inSentence(title) {
  return title.toLocaleLowerCase(language());
}

/**
 * The notice at a form whose entry clashed: what was stored meanwhile (`rounds`, or only
 * their `numbers` when they could not be read), by whom, and the entry beside it.
 * @param {{game: string, names: string[], teams: string[], hostSeat: number | null, numbers: number[],
 *          rounds: object[] | null, body: object | null, next: number,
 *          drop: Function, add: Function}} clash `next`: the number the entry would get
 */
export function clashNodes(clash) {
  const { game, names, teams, body, hostSeat } = clash;
  const lines = [];
  if (clash.rounds) {
    for (const round of clash.rounds) {
      const what = inputText(round.input, names, teams);
      lines.push(
        h(
          "p",
          { class: "clash-stored", dataset: { round: String(round.number) } },
          t("clash_stored", { round: roundTitle(game, round.number), name: byText(round.entered_by, names, hostSeat), what }),
        ),
      );
    }
  } else {
    for (const n of clash.numbers) {
      lines.push(h("p", { class: "clash-stored", dataset: { round: String(n) } }, t("clash_stored_unknown", { round: roundTitle(game, n) })));
    }
  }
  const same = Boolean(body && clash.rounds && clash.rounds.some((round) => sameInput(round.input, body)));
  if (same) lines.push(h("p", { class: "clash-same" }, t("clash_same")));
  else if (body) lines.push(h("p", { class: "clash-yours" }, t("clash_yours", { what: inputText(body, names, teams) })));
  const next = inSentence(roundTitle(game, clash.next));
  const drop = h("button", { type: "button", class: "primary clash-drop", onclick: () => clash.drop() }, t("clash_drop"));
  const add = h(
    "button",
    { type: "button", class: "clash-add", onclick: () => clash.add() },
    t(body ? "clash_add" : "clash_keep", { round: next }),
  );
  return [...lines, h("div", { class: "actions" }, drop, add)];
}

/** The outbox card's line for a round refused as stale (412): the stored round that looks
 * the same as `body`, else what was stored meanwhile; "" when nothing was. */
export function conflictText({ game, names, rounds, body, hostSeat }) {
  const same = rounds.find((round) => sameInput(round.input, body));
  if (same) {
    return t("outbox_same", { round: roundTitle(game, same.number), name: byText(same.entered_by, names, hostSeat) });
  }
  if (!rounds.length) return "";
  const list = rounds.map((round) => `${roundTitle(game, round.number)} (${byText(round.entered_by, names, hostSeat)})`);
  return t("outbox_stored", { list: list.join(", ") });
}
