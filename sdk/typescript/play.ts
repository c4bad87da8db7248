// Plays a match of one game through the client @hey-api/openapi-ts generates on its
// default flags (generated/hey-api), against a live server, while two EventSource streams
// follow it, and prints what happened as one JSON object. tests/sdk/test_typescript_clients.py
// runs it once per game and checks that summary.
//
//   node play.js <base URL of the API> <asszorti | alkort | own_table>

import { EventSource } from "eventsource"; // the standard EventSource, for Node; a browser has its own

import {
  createMatch,
  createRound,
  deleteRound,
  endMatch,
  getMatch,
  reissueToken,
  replaceRound,
  updateMatch,
  type Breakdown,
  type MatchCreate,
  type Problem,
  type RoundInput,
} from "./generated/hey-api";

// From here to the end of follow() is the TypeScript example in docs/client-guide.md,
// "Follow a match live", character for character (a test holds the two the same).
import { createStreamTicket, type MatchEvent, type MatchRead } from "./generated/hey-api";

// EventSource hands a named event only to the listeners of its name: listen to every
// kind. A kind added to MatchEvent does not compile until it is listed here.
const KINDS: Record<MatchEvent["kind"], null> = {
  snapshot: null,
  round_entered: null,
  round_corrected: null,
  round_removed: null,
  match_updated: null,
  token_reissued: null,
  ended: null,
  resync: null,
  revoked: null,
};

/** Follow a match, redrawing it after each change, until it ends or this token is
 * re-issued; returns that last event. */
export async function follow(
  api: string,
  matchId: string,
  token: string,
  redraw: (match: MatchRead, event: MatchEvent) => void,
): Promise<MatchEvent> {
  let after: number | null = null; // the last version seen: a new stream resumes there
  for (;;) {
    // EventSource cannot send the token: a short-lived ticket in the URL opens the stream.
    const { data: ticket, error } = await createStreamTicket({
      baseUrl: api,
      auth: token,
      path: { match_id: matchId },
    });
    if (ticket === undefined) throw new Error(`no stream ticket: ${error.code}`);
    const url = new URL(ticket.url, api);
    if (after !== null) url.searchParams.set("after", String(after));
    const last = await new Promise<MatchEvent | null>((resolve) => {
      const events = new EventSource(url);
      const onEvent = (message: MessageEvent<string>): void => {
        const event = JSON.parse(message.data) as MatchEvent;
        after = event.version;
        switch (event.kind) {
          case "snapshot":
          case "round_entered":
          case "round_corrected":
          case "round_removed":
          case "match_updated":
          case "token_reissued":
            redraw(event.match, event);
            return;
          case "ended":
            redraw(event.match, event);
            break;
          case "revoked": // this token was re-issued: it follows nothing any more
            break;
          case "resync": // fell behind: start again from a snapshot
            after = null;
            events.close();
            resolve(null);
            return;
          default: {
            const unknown: never = event;
            return unknown;
          }
        }
        events.close();
        resolve(event);
      };
      for (const kind of Object.keys(KINDS)) events.addEventListener(kind, onEvent);
      // A ticket opens one stream: EventSource's own reconnection, with the same ticket,
      // would be refused. A dropped stream is closed, and a new ticket resumes it.
      events.onerror = () => {
        events.close();
        resolve(null);
      };
    });
    if (last !== null) return last;
  }
}

// ---- The match -----------------------------------------------------------------------

type GameName = MatchCreate["game"];

/** A game's match: its rounds, a correction of the last one, and a round entered and
 * removed again. */
interface Script {
  create: MatchCreate;
  rounds: RoundInput[];
  correction: RoundInput;
  removed: RoundInput;
}

const SCRIPTS: Record<GameName, Script> = {
  asszorti: {
    create: { game: "asszorti", players: ["Anna", "Berta", "Csaba"] },
    rounds: [
      {
        type: "asszorti_hand",
        declarer: 0,
        contract: "3",
        trumps: "clubs",
        tricks: [6, 3, 2],
        arrivazs: { won: true, idegen: true, kontra: "kontra" },
      },
      { type: "asszorti_amounts", amounts: [-20, 40, -20] },
    ],
    correction: { type: "asszorti_amounts", amounts: [-4, 8, -4] },
    removed: { type: "asszorti_amounts", amounts: [2, -1, -1] },
  },
  alkort: {
    create: {
      game: "alkort",
      players: ["Anna", "Bela", "Cili", "Dani"],
      team_names: ["Us", "Them"],
      settings: { target: 15 },
    },
    rounds: [
      { type: "alkort_tricks", tricks: [0, 0, 0, 0, 0, 1] },
      { type: "alkort_points", team: 1, points: 7 },
    ],
    correction: { type: "alkort_points", team: 1, points: 6 },
    removed: { type: "alkort_points", team: 0, points: 1 },
  },
  own_table: {
    create: {
      game: "own_table",
      players: ["Anna", "Bela", "Cili", "Dani"],
      settings: { teams: 2, zero_sum: true, table_rules: "Ulti, 4 hands" },
    },
    rounds: [
      { type: "own_points", points: [12, -12] },
      { type: "own_points", points: [-4, 4] },
    ],
    correction: { type: "own_points", points: [-2, 2] },
    removed: { type: "own_points", points: [1, -1] },
  },
};

/** The data of a generated call's answer, or an Error naming the problem it got. */
function ok<T>(result: { data?: T; error?: Problem; response?: Response }, what: string): T {
  if (result.data === undefined || result.error !== undefined) {
    throw new Error(`${what}: ${result.response?.status} ${JSON.stringify(result.error)}`);
  }
  return result.data;
}

/** How a match is decided, read from its settings (a union told apart by `game`). */
function decidedBy(match: MatchRead): string {
  const settings = match.settings;
  switch (settings.game) {
    case "asszorti":
      return settings.planned_deals === null ? "when ended" : `after ${settings.planned_deals} deals`;
    case "alkort":
      return `at ${settings.target}`;
    case "own_table":
      if (settings.target !== null) return `at ${settings.target}`;
      return settings.planned_rounds === null ? "when ended" : `after ${settings.planned_rounds} rounds`;
    default: {
      const unknown: never = settings;
      throw new Error(`unknown game: ${JSON.stringify(unknown)}`);
    }
  }
}

/** How a round was scored, read from its breakdown (a union told apart by `game`). */
function scored(breakdown: Breakdown): string {
  switch (breakdown.game) {
    case "asszorti":
      return breakdown.manual ? "amounts" : `basic game ${breakdown.basic_game}`;
    case "alkort":
      return `${breakdown.kind} of ${breakdown.points}`;
    case "own_table":
      return `sum ${breakdown.sum}`;
    default: {
      const unknown: never = breakdown;
      throw new Error(`unknown game: ${JSON.stringify(unknown)}`);
    }
  }
}

interface Seen {
  kind: MatchEvent["kind"];
  version: number;
  totals: number[] | null; // of the match the event carries
  round: number | null; // the round an event is about
  scored: string | null; // that round's breakdown
}

function seen(event: MatchEvent): Seen {
  const totals = "match" in event ? event.match.totals : null;
  const { kind, version } = event;
  switch (event.kind) {
    case "round_entered":
    case "round_corrected": {
      const round = event.round;
      return { kind, version, totals, round: round.number, scored: scored(round.result.breakdown) };
    }
    case "round_removed":
      return { kind, version, totals, round: event.number, scored: null };
    default:
      return { kind, version, totals, round: null, scored: null };
  }
}

/** Follow with one token: the events seen, a promise of the snapshot's arrival, and one
 * of the last event's kind. */
function follower(api: string, matchId: string, token: string) {
  const events: Seen[] = [];
  let opened!: () => void;
  const snapshot = new Promise<void>((resolve) => (opened = resolve));
  const done = follow(api, matchId, token, (_match, event) => {
    events.push(seen(event));
    if (event.kind === "snapshot") opened();
  }).then((last) => {
    if (last.kind === "revoked") events.push(seen(last)); // no match to redraw: not redrawn
    return last.kind;
  });
  return { events, snapshot, done };
}

async function play(api: string, game: GameName): Promise<object> {
  const script = SCRIPTS[game];
  const created = ok(await createMatch({ baseUrl: api, body: script.create }), "createMatch");
  const matchId = created.id;
  const host = created.tokens.host;
  const call = { baseUrl: api, auth: host, path: { match_id: matchId } };

  const hosted = follower(api, matchId, host);
  const viewed = follower(api, matchId, created.tokens.viewer);
  // Changes made before a stream opens come folded into its snapshot, not as events.
  // (A stream that fails to open fails the race instead of leaving it waiting.)
  await Promise.race([Promise.all([hosted.snapshot, viewed.snapshot]), hosted.done, viewed.done]);

  for (const body of script.rounds) ok(await createRound({ ...call, body }), "createRound");
  const last = script.rounds.length;
  ok(
    await replaceRound({ ...call, path: { match_id: matchId, number: last }, body: script.correction }),
    "replaceRound",
  );
  ok(await createRound({ ...call, body: script.removed }), "createRound");
  const removal = await deleteRound({ ...call, path: { match_id: matchId, number: last + 1 } });
  if (removal.response?.status !== 204) throw new Error(`deleteRound: ${removal.response?.status}`);
  const renamed = created.players.map((player) => player.name);
  renamed[0] = `${renamed[0]} B.`;
  ok(await updateMatch({ ...call, body: { players: renamed } }), "updateMatch");
  // The viewers' token is replaced: the viewer's stream is told so and closes.
  ok(await reissueToken({ ...call, body: { role: "viewer" } }), "reissueToken");
  const ended = ok(await endMatch(call), "endMatch");
  const [hostLast, viewerLast] = await Promise.all([hosted.done, viewed.done]);
  const match: MatchRead = ok(await getMatch(call), "getMatch");

  return {
    game: match.game,
    status: match.status,
    ended_status: ended.status,
    ended_by: match.ended_by,
    players: match.players.map((player) => player.name),
    decided: decidedBy(match),
    round_count: match.round_count,
    version: match.version,
    totals: match.totals,
    owed: match.owed,
    net: match.net,
    winner: match.winner,
    host: { last: hostLast, events: hosted.events },
    viewer: { last: viewerLast, events: viewed.events },
  };
}

const [api, game] = process.argv.slice(2);
if (api === undefined || !(game === "asszorti" || game === "alkort" || game === "own_table")) {
  throw new Error("usage: node play.js <base URL> <asszorti | alkort | own_table>");
}
play(api, game).then(
  (summary) => console.log(JSON.stringify(summary)),
  (error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  },
);
