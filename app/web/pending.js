// Rounds the server does not have yet, shown on the sheet at once as rows marked pending:
// the outbox's items (outbox.js) and rounds just sent whose real rows the page has not
// read back yet (so a sent round never leaves a gap before its real row arrives).
//
// A pending row shows what was entered, not a score: the cells depend on the rules and,
// for Asszorti, on the sheet before it; the server scores the round when it arrives.
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { inputText } from "./history.js";
import { storedProblemText } from "./problems.js";

const HELD = new Set(["conflict", "refused"]);

/** Whether an outbox item waits for the user (refused): it will not become a round as is. */
export function held(item) {
  return HELD.has(item.state);
}

/**
 * The rows after the sheet's last: `landed` rounds ({number, input}) first, then the
 * outbox's `items`, numbered on from `after` (a held item gets no number: it is not
 * going to be the next round).
 */
export function pendingRows({ landed, items, after, columns, names, teams }) {
  const rows = [];
  let number = after;
  const row = ({ key, state, label, input, problem }) => {
    const refused = HELD.has(state);
    if (!refused) number += 1;
    const text = refused ? `${t(state === "conflict" ? "outbox_conflict" : "outbox_refused")} ${storedProblemText(problem)}` : label;
    return h(
      "tr",
      { class: `pending-round ${refused ? "held" : "waiting"}`, dataset: { pending: key, state } },
      h("th", { scope: "row" }, refused ? "!" : String(number)),
      h(
        "td",
        { colspan: String(columns) },
        h("span", { class: "pending-input" }, inputText(input, names, teams)),
        h("span", { class: "pending-state" }, text),
      ),
    );
  };
  for (const round of landed) {
    number = round.number - 1;
    rows.push(row({ key: `round-${round.number}`, state: "sent", label: t("pending_sent"), input: round.input }));
  }
  for (const item of items) {
    rows.push(row({ key: item.key, state: item.state, label: t("pending_waiting"), input: item.body, problem: item.problem }));
  }
  return rows;
}
