// A strict type-check of the TypeScript types generated from openapi/openapi.json.
//
// generated/types.ts is written by `npx openapi-typescript ../../openapi/openapi.json
// -o generated/types.ts` and never committed. This file compiles under
// `tsc --noEmit --strict` only if the document names its unions (RoundInput /
// RoundInputRead, MatchCreate, GameSettings, Breakdown) over named models, keeps a
// request side (`X`) and a read side (`XRead`) where they differ, types the game,
// round type and deal kind as enums, gives problem+json errors the Problem type, and
// makes nullable fields `T | null`. Every `@ts-expect-error` below is a line that
// must NOT compile, so a schema that degrades into `any`/`unknown` blobs, or a union
// that loses its members, fails the check.

import type { components, operations } from "./generated/types";

type Schemas = components["schemas"];

/** Compiles only when A and B are the same type (not merely assignable). */
type Equals<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function assertType<_T extends true>(): void {}

// --- Round bodies: RoundInput (sent) and RoundInputRead (read back) -----------

type RoundInput = Schemas["RoundInput"];
type RoundInputRead = Schemas["RoundInputRead"];

// createRound, replaceRound and scoreRound all take the named union.
assertType<
  Equals<operations["createRound"]["requestBody"]["content"]["application/json"], RoundInput>
>();
assertType<
  Equals<operations["replaceRound"]["requestBody"]["content"]["application/json"], RoundInput>
>();
assertType<
  Equals<operations["scoreRound"]["requestBody"]["content"]["application/json"], RoundInput>
>();
assertType<
  Equals<
    RoundInput,
    | Schemas["AsszortiHand"]
    | Schemas["AsszortiAmounts"]
    | Schemas["AlkortTricks"]
    | Schemas["AlkortPoints"]
    | Schemas["OwnTablePoints"]
  >
>();
// Only the hand differs between the sides; the others are one schema each.
assertType<
  Equals<
    RoundInputRead,
    | Schemas["AsszortiHandRead"]
    | Schemas["AsszortiAmounts"]
    | Schemas["AlkortTricks"]
    | Schemas["AlkortPoints"]
    | Schemas["OwnTablePoints"]
  >
>();
// The tags of both unions are exactly the RoundType enum.
assertType<
  Equals<
    Schemas["RoundType"],
    "asszorti_hand" | "asszorti_amounts" | "alkort_tricks" | "alkort_points" | "own_points"
  >
>();
assertType<Equals<RoundInput["type"], Schemas["RoundType"]>>();
assertType<Equals<RoundInputRead["type"], Schemas["RoundType"]>>();
// A stored round carries the read-side union; a removed one's revision carries null.
assertType<Equals<Schemas["RoundRead"]["input"], RoundInputRead>>();
assertType<Equals<Schemas["RoundRevisionRead"]["input"], RoundInputRead | null>>();
// The read side of a hand always has `arrivazs` (null when none was announced).
assertType<Equals<Schemas["AsszortiHandRead"]["arrivazs"], Schemas["ArrivazsRead"] | null>>();
assertType<Equals<Schemas["AsszortiHandRead"]["kontra"], Schemas["Kontra"]>>();

/** Narrowing on `type` gives each member's own fields; `never` proves exhaustiveness. */
function describeRound(body: RoundInput): string {
  switch (body.type) {
    case "asszorti_hand": {
      const contract: "3" | "2" | "1" | "hand" = body.contract;
      const arrivazs: boolean | undefined = body.arrivazs?.won;
      return `seat ${body.declarer} plays ${contract} in ${body.trumps}, arrivazs ${arrivazs}`;
    }
    case "asszorti_amounts":
      return `amounts ${body.amounts.join(",")}`;
    case "alkort_tricks":
      return `tricks ${body.tricks.length}`;
    case "alkort_points":
      return `team ${body.team} scores ${body.points}`;
    case "own_points":
      return `points ${body.points.join(",")}`;
    default: {
      const unreachable: never = body;
      return unreachable;
    }
  }
}

/** The same over what a round reads back: no optional fields to default. */
function describeStoredRound(input: RoundInputRead): string {
  switch (input.type) {
    case "asszorti_hand": {
      const kontra: Schemas["Kontra"] = input.kontra;
      const arrivazs: Schemas["ArrivazsRead"] | null = input.arrivazs;
      const idegen: boolean = arrivazs === null ? false : arrivazs.idegen;
      return `seat ${input.declarer} (${kontra}), idegen ${idegen}`;
    }
    case "asszorti_amounts":
    case "alkort_tricks":
    case "alkort_points":
    case "own_points":
      return describeRound(input);
    default: {
      const unreachable: never = input;
      return unreachable;
    }
  }
}

/** What a round read back is can be sent again (e.g. to replaceRound) as it is. */
function resend(input: RoundInputRead): RoundInput {
  return input;
}

const hand: RoundInput = {
  type: "asszorti_hand",
  declarer: 1,
  contract: "1",
  trumps: "diamonds",
  tricks: [2, 7, 2],
  kontra: "none",
  arrivazs: { won: true, idegen: false, kontra: "none" },
};
const points: RoundInput = { type: "alkort_points", team: 0, points: 6 };
describeRound(hand);
describeRound(points);
describeStoredRound({ ...hand, arrivazs: null, kontra: "kontra" });
resend({ type: "asszorti_amounts", amounts: [2, -1, -1] });

// @ts-expect-error -- a member's fields under another member's tag do not type-check
const mixed: RoundInput = { type: "alkort_points", amounts: [18, -9, -9] };
// @ts-expect-error -- an unknown round type is not a RoundInput
const unknownType: RoundInput = { type: "poker_hand", amounts: [1, -1, 0] };
// @ts-expect-error -- contract is an enum, not any string
const badContract: Schemas["AsszortiHand"]["contract"] = "4";
// @ts-expect-error -- a read hand always has `arrivazs`: a read without it is not a read
const readWithoutArrivazs: Schemas["AsszortiHandRead"] = {
  type: "asszorti_hand",
  declarer: 0,
  contract: "3",
  trumps: "clubs",
  tricks: [6, 3, 2],
  kontra: "none",
};

// --- Matches: MatchCreate (sent, tagged by `game`) and GameSettings (read) ----

type MatchCreate = Schemas["MatchCreate"];
assertType<
  Equals<operations["createMatch"]["requestBody"]["content"]["application/json"], MatchCreate>
>();
assertType<
  Equals<
    MatchCreate,
    Schemas["AsszortiMatchCreate"] | Schemas["AlkortMatchCreate"] | Schemas["OwnTableMatchCreate"]
  >
>();
assertType<Equals<MatchCreate["game"], Schemas["GameName"]>>();
assertType<Equals<Schemas["AlkortMatchCreate"]["settings"], Schemas["AlkortSettings"] | undefined>>();

const alkortMatch: MatchCreate = {
  game: "alkort",
  players: ["Anna", "Bela", "Cili", "Dani"],
  settings: { first_dealer: 0, target: 15 },
};
const alkortWithKontra: MatchCreate = {
  game: "alkort",
  players: ["Anna", "Bela", "Cili", "Dani"],
  // @ts-expect-error -- `game` picks the member: an Alkort match has no kontra setting
  settings: { first_dealer: 0, target: 11, kontra: true },
};

type GameSettings = Schemas["GameSettings"];
assertType<Equals<Schemas["MatchRead"]["settings"], GameSettings>>();
assertType<Equals<Schemas["MatchCreated"]["settings"], GameSettings>>();
assertType<
  Equals<
    GameSettings,
    Schemas["AsszortiSettingsRead"] | Schemas["AlkortSettingsRead"] | Schemas["OwnTableSettingsRead"]
  >
>();
assertType<Equals<Schemas["OwnTableSettingsRead"]["target"], number | null>>();
assertType<Equals<Schemas["OwnTableSettingsRead"]["table_rules"], string>>();
assertType<Equals<Schemas["AlkortSettingsRead"]["target"], number>>();
assertType<Equals<Schemas["AsszortiSettingsRead"]["planned_deals"], number | null>>();

/** The settings union narrows on its tag, `game`; `never` proves exhaustiveness. */
function targetOf(settings: GameSettings): number | null {
  switch (settings.game) {
    case "asszorti":
      return null;
    case "alkort":
    case "own_table":
      return settings.target;
    default: {
      const unknown: never = settings;
      return unknown;
    }
  }
}
assertType<Equals<GameSettings["game"], Schemas["GameName"]>>();
function unnarrowedTarget(settings: GameSettings): number {
  // @ts-expect-error -- only Alkort settings have a target: narrow first
  return settings.target;
}
// @ts-expect-error -- the read side always has planned_deals (null: no limit)
const settingsWithoutDeals: Schemas["AsszortiSettingsRead"] = { first_dealer: 0, kontra: true };

// --- Breakdown: a union of named models tagged by `game`, not a free-form object

type Breakdown = Schemas["Breakdown"];
assertType<Equals<Schemas["RoundResult"]["breakdown"], Breakdown>>();
assertType<Equals<Schemas["ScoreRead"]["breakdown"], Breakdown>>();
assertType<
  Equals<
    Breakdown,
    Schemas["AsszortiBreakdown"] | Schemas["AlkortBreakdown"] | Schemas["OwnTableBreakdown"]
  >
>();
assertType<Equals<Schemas["DealKind"], "plain" | "muk" | "stroke">>();
assertType<Equals<Schemas["AlkortBreakdown"]["kind"], Schemas["DealKind"]>>();
assertType<Equals<Schemas["AlkortBreakdown"]["run"], number | null>>();
assertType<Equals<Schemas["AsszortiBreakdown"]["basic_game"], number | null>>();
assertType<Equals<Schemas["AsszortiBreakdown"]["manual"], boolean>>();

function describeBreakdown(breakdown: Breakdown): string {
  switch (breakdown.game) {
    case "alkort": {
      const run = breakdown.run === null ? "" : ` run of ${breakdown.run}`;
      return `${breakdown.kind}${run}: team ${breakdown.team} +${breakdown.points}`;
    }
    case "own_table":
      return `points adding up to ${breakdown.sum}`;
    case "asszorti":
      if (breakdown.manual) return "scored by the table";
      return `basic game ${breakdown.basic_game}, arrivazs ${breakdown.arrivazs}`;
    default: {
      const unknown: never = breakdown;
      return unknown;
    }
  }
}
assertType<Equals<Breakdown["game"], Schemas["GameName"]>>();
function unnarrowedKind(breakdown: Breakdown): string {
  // @ts-expect-error -- `kind` is only on AlkortBreakdown: narrow first
  return breakdown.kind;
}
function unknownPart(breakdown: Schemas["AsszortiBreakdown"]): unknown {
  // @ts-expect-error -- no field outside the model: it is not a Record<string, unknown>
  return breakdown.bonus;
}
// @ts-expect-error -- the deal kind is an enum
const slam: Schemas["AlkortBreakdown"]["kind"] = "slam";

// --- The tags on reads are enums ----------------------------------------------

assertType<Equals<Schemas["GameName"], "asszorti" | "alkort" | "own_table">>();
assertType<Equals<Schemas["MatchRead"]["game"], Schemas["GameName"]>>();
assertType<Equals<Schemas["MatchCreated"]["game"], Schemas["GameName"]>>();
assertType<Equals<Schemas["GameRead"]["name"], Schemas["GameName"]>>();
assertType<Equals<Schemas["GameRead"]["round_types"], Schemas["RoundType"][]>>();
assertType<Equals<Schemas["RoundRead"]["type"], Schemas["RoundType"]>>();
assertType<Equals<Schemas["RoundRevisionRead"]["type"], Schemas["RoundType"] | null>>();
// @ts-expect-error -- the game is a GameName, not any string
const poker: Schemas["MatchRead"]["game"] = "poker";
// @ts-expect-error -- a round's type is a RoundType, not any string
const pokerHand: Schemas["RoundRead"]["type"] = "poker_hand";

// --- Conditional reads, and the sheet as CSV ----------------------------------

type GetMatch = operations["getMatch"];
const ifNoneMatch: NonNullable<GetMatch["parameters"]["header"]> = { "If-None-Match": '"v7"' };
function etagOf(headers: GetMatch["responses"][200]["headers"]): string | undefined {
  // @ts-expect-error -- the ETag is a string, not unknown
  const asNumber: number | undefined = headers.ETag;
  void asNumber;
  return headers.ETag;
}
// A 304 has no body.
assertType<Equals<NonNullable<GetMatch["responses"][304]["content"]>, never>>();

type SheetCsv = operations["getSheetCsv"];
const csvIfNoneMatch: NonNullable<SheetCsv["parameters"]["header"]> = { "If-None-Match": '"v7"' };
assertType<Equals<SheetCsv["responses"][200]["content"]["text/csv"], string>>();
assertType<
  Equals<SheetCsv["responses"][404]["content"]["application/problem+json"], Schemas["Problem"]>
>();
// @ts-expect-error -- the CSV route has no JSON body
type SheetCsvJson = SheetCsv["responses"][200]["content"]["application/json"];
// getSheet answers JSON, or CSV when asked with Accept: text/csv.
assertType<
  Equals<operations["getSheet"]["responses"][200]["content"]["application/json"], Schemas["SheetRead"]>
>();
assertType<Equals<operations["getSheet"]["responses"][200]["content"]["text/csv"], string>>();

// --- Errors: application/problem+json is the Problem model ------------------

type Problem = Schemas["Problem"];
type RoundConflict = operations["createRound"]["responses"][409]["content"]["application/problem+json"];
type RoundInvalid = operations["createRound"]["responses"][422]["content"]["application/problem+json"];
assertType<Equals<RoundConflict, Problem>>();
assertType<Equals<RoundInvalid, Problem>>();
assertType<Equals<Problem["code"], string>>();
assertType<Equals<Problem["status"], number>>();

function problemMessage(problem: RoundInvalid): string {
  const fields = (problem.errors ?? []).map((error) => `${error.loc.join(".")}: ${error.message}`);
  return `${problem.status} ${problem.code}: ${problem.detail} ${fields.join("; ")}`;
}
problemMessage({
  type: "about:blank",
  title: "Unprocessable Content",
  status: 422,
  detail: "the amounts must sum to zero",
  code: "validation_error",
  errors: [{ loc: ["body", "amounts"], message: "must sum to zero" }],
});
// @ts-expect-error -- `code` is required on every problem
const noCode: Problem = { type: "about:blank", title: "Conflict", status: 409, detail: "ended" };

// --- Nullable fields are `T | null` and must be narrowed ---------------------

type RoundResult = Schemas["RoundResult"];
assertType<Equals<RoundResult["net"], number[] | null>>();
assertType<Equals<Schemas["MatchRead"]["owed"], number[] | null>>();
assertType<Equals<Schemas["MatchRead"]["winner"], Schemas["WinnerRead"] | null>>();
assertType<Equals<Schemas["MatchRead"]["ended_at"], string | null>>();

function netSum(result: RoundResult): number {
  // @ts-expect-error -- `net` may be null (Alkort): it cannot be used unchecked
  const unchecked: number[] = result.net;
  void unchecked;
  return result.net === null ? 0 : result.net.reduce((a, b) => a + b, 0);
}

function winnerLabel(match: Schemas["MatchRead"]): string {
  if (match.winner === null) return "undecided";
  if (match.winner.team != null) return `team ${match.winner.team}`;
  return `seats ${(match.winner.seats ?? []).join(",")}`;
}

export {
  describeRound,
  describeStoredRound,
  resend,
  targetOf,
  unnarrowedTarget,
  describeBreakdown,
  unnarrowedKind,
  unknownPart,
  etagOf,
  netSum,
  problemMessage,
  winnerLabel,
  mixed,
  unknownType,
  badContract,
  readWithoutArrivazs,
  alkortMatch,
  alkortWithKontra,
  settingsWithoutDeals,
  slam,
  poker,
  pokerHand,
  ifNoneMatch,
  csvIfNoneMatch,
  noCode,
};
export type { SheetCsvJson };

// --- The live stream: each event's data is a MatchEvent ------------------------

type MatchEvent = Schemas["MatchEvent"];
/** Narrowing on `kind` gives each event its own fields; `never` proves exhaustiveness. */
function onMatchEvent(event: MatchEvent): number | null {
  switch (event.kind) {
    case "snapshot":
    case "match_updated":
    case "ended":
      return event.match.version;
    case "round_entered":
    case "round_corrected":
      return event.round.number;
    case "round_removed":
      return event.number;
    case "token_reissued": {
      const role: Schemas["TokenRole"] = event.role;
      void role;
      return event.seat;
    }
    case "resync":
    case "revoked":
      return event.version;
    default: {
      const unknown: never = event;
      return unknown;
    }
  }
}
void onMatchEvent;
// @ts-expect-error: a resync carries no match
const resyncMatch: Schemas["ResyncEvent"]["match"] = null;
void resyncMatch;
// @ts-expect-error: not an event kind
const badKind: MatchEvent["kind"] = "round_deleted";
void badKind;

// --- On openapi-typescript's default flags, what a client may leave out is optional --

// The README's own bodies: `kontra` left out, `arrivazs: {"won": false}`, no settings.
const readmeHand: Schemas["AsszortiHand"] = {
  type: "asszorti_hand",
  declarer: 1,
  contract: "1",
  trumps: "diamonds",
  tricks: [2, 7, 2],
  arrivazs: { won: false },
};
const noSettings: Schemas["AsszortiSettings"] = {};
// A read settings object is always whole: leaving a field out does not compile.
// @ts-expect-error: `kontra` is always sent, so it is required on the read side
const partialRead: Schemas["AsszortiSettingsRead"] = { first_dealer: 0, planned_deals: null };
void readmeHand;
void noSettings;
void partialRead;
