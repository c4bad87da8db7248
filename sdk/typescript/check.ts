// A strict type-check of the TypeScript types generated from openapi/openapi.json.
//
// generated/types.ts is written by `npx openapi-typescript ../../openapi/openapi.json
// -o generated/types.ts` and never committed. This file compiles under
// `tsc --noEmit --strict` only if the round body is a discriminated union of
// named schemas, the problem+json error body is the Problem type, and nullable
// fields are `T | null`: every `@ts-expect-error` below is a line that must NOT
// compile, so a schema that degrades into `any`/`unknown` blobs fails the check.

import type { components, operations } from "./generated/types";

type Schemas = components["schemas"];

/** Compiles only when A and B are the same type (not merely assignable). */
type Equals<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function assertType<_T extends true>(): void {}

// --- The round body: a union discriminated by `type` -------------------------

type RoundBody =
  operations["createRound"]["requestBody"]["content"]["application/json"];

assertType<
  Equals<
    RoundBody,
    | Schemas["AsszortiHand"]
    | Schemas["AsszortiAmounts"]
    | Schemas["AlkortTricks"]
    | Schemas["AlkortPoints"]
  >
>();
assertType<
  Equals<RoundBody["type"], "asszorti_hand" | "asszorti_amounts" | "alkort_tricks" | "alkort_points">
>();
// The stored input of a round is the same union.
assertType<Equals<Schemas["RoundRead"]["input"], RoundBody>>();

/** Narrowing on `type` gives each member's own fields; `never` proves exhaustiveness. */
function describeRound(body: RoundBody): string {
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
    default: {
      const unreachable: never = body;
      return unreachable;
    }
  }
}

const hand: RoundBody = {
  type: "asszorti_hand",
  declarer: 1,
  contract: "1",
  trumps: "diamonds",
  tricks: [2, 7, 2],
  kontra: "none",
  arrivazs: { won: true, idegen: false, kontra: "none" },
};
const points: RoundBody = { type: "alkort_points", team: 0, points: 6 };
describeRound(hand);
describeRound(points);

// @ts-expect-error -- a member's fields under another member's tag do not type-check
const mixed: RoundBody = { type: "alkort_points", amounts: [18, -9, -9] };
// @ts-expect-error -- an unknown round type is not a RoundBody
const unknownType: RoundBody = { type: "poker_hand", amounts: [1, -1, 0] };
// @ts-expect-error -- contract is an enum, not any string
const badContract: Schemas["AsszortiHand"]["contract"] = "4";

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

export { describeRound, netSum, problemMessage, winnerLabel, mixed, unknownType, badContract, noCode };
