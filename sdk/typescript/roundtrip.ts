// Round-trips real responses through the runtime models openapi-generator's
// typescript-fetch generates on its default flags (generated/typescript-fetch): each
// case's raw JSON goes through `XFromJSON` and back through `XToJSON`, and what comes
// back is compared with what went in. tests/sdk/test_typescript_clients.py captures the
// responses from a live server and checks the report this prints.
//
//   node roundtrip.js <cases.json>   (a list of {"name", "schema", "raw"})
//
// For each case it prints `diffs`, the places where the JSON that comes back differs
// from the raw (a key lost or added, a value changed), and `phantoms`, the properties
// the parsed model holds as `undefined`: the model claims a field the JSON does not
// have, as a union merged into one interface does.

import { readFileSync } from "node:fs";

import * as m from "./generated/typescript-fetch/models";

type Codec = { fromJSON: (json: any) => unknown; toJSON: (value: any) => unknown };

function codec(fromJSON: (json: any) => unknown, toJSON: (value: any) => unknown): Codec {
  return { fromJSON, toJSON };
}

// Every response body the service sends, and the unions inside them.
const CODECS: Record<string, Codec> = {
  GameList: codec(m.GameListFromJSON, m.GameListToJSON),
  ScoreRead: codec(m.ScoreReadFromJSON, m.ScoreReadToJSON),
  MatchCreated: codec(m.MatchCreatedFromJSON, m.MatchCreatedToJSON),
  MatchRead: codec(m.MatchReadFromJSON, m.MatchReadToJSON),
  RoundRead: codec(m.RoundReadFromJSON, m.RoundReadToJSON),
  RoundList: codec(m.RoundListFromJSON, m.RoundListToJSON),
  RoundHistory: codec(m.RoundHistoryFromJSON, m.RoundHistoryToJSON),
  SheetRead: codec(m.SheetReadFromJSON, m.SheetReadToJSON),
  TokenOwner: codec(m.TokenOwnerFromJSON, m.TokenOwnerToJSON),
  IssuedToken: codec(m.IssuedTokenFromJSON, m.IssuedTokenToJSON),
  MatchHistory: codec(m.MatchHistoryFromJSON, m.MatchHistoryToJSON),
  StreamTicket: codec(m.StreamTicketFromJSON, m.StreamTicketToJSON),
  Problem: codec(m.ProblemFromJSON, m.ProblemToJSON),
  MatchEvent: codec(m.MatchEventFromJSON, m.MatchEventToJSON),
  GameSettings: codec(m.GameSettingsFromJSON, m.GameSettingsToJSON),
  Breakdown: codec(m.BreakdownFromJSON, m.BreakdownToJSON),
  RoundInputRead: codec(m.RoundInputReadFromJSON, m.RoundInputReadToJSON),
};

// The unions in reads are unions, told apart by their tag: these compile only while
// typescript-fetch makes GameSettings and Breakdown discriminated unions (from a oneOf
// with a discriminator), not one interface that merges their members' fields.
function targetOf(settings: m.GameSettings): number | null {
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
function pointsOf(breakdown: m.Breakdown): number | null {
  switch (breakdown.game) {
    case "asszorti":
      return breakdown.basicGame;
    case "alkort":
      return breakdown.points;
    case "own_table":
      return breakdown.sum;
    default: {
      const unknown: never = breakdown;
      return unknown;
    }
  }
}
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Path = (string | number)[];

interface Diff {
  path: Path;
  raw?: Json; // absent: a key added on the way back
  back?: Json; // absent: a key lost on the way back
}

function isObject(value: unknown): value is { [key: string]: Json } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function diff(raw: Json, back: Json, path: Path, found: Diff[]): void {
  if (Array.isArray(raw) && Array.isArray(back)) {
    if (raw.length !== back.length) found.push({ path, raw, back });
    else raw.forEach((item, i) => diff(item, back[i] as Json, [...path, i], found));
  } else if (isObject(raw) && isObject(back)) {
    for (const key of new Set([...Object.keys(raw), ...Object.keys(back)])) {
      const where = [...path, key];
      if (!(key in back)) found.push({ path: where, raw: raw[key] as Json });
      else if (!(key in raw)) found.push({ path: where, back: back[key] as Json });
      else diff(raw[key] as Json, back[key] as Json, where, found);
    }
  } else if (raw !== back) {
    found.push({ path, raw, back });
  }
}

/** The properties a parsed model holds as `undefined` (Dates are values, not objects). */
function phantoms(value: unknown, path: Path, found: Path[]): void {
  if (Array.isArray(value)) value.forEach((item, i) => phantoms(item, [...path, i], found));
  else if (typeof value === "object" && value !== null && !(value instanceof Date)) {
    for (const [key, inner] of Object.entries(value)) {
      if (inner === undefined) found.push([...path, key]);
      else phantoms(inner, [...path, key], found);
    }
  }
}

interface Case {
  name: string;
  schema: string;
  raw: Json;
}

const cases = JSON.parse(readFileSync(process.argv[2] ?? "cases.json", "utf8")) as Case[];
const report = cases.map(({ name, schema, raw }) => {
  const pair = CODECS[schema];
  if (pair === undefined) throw new Error(`no codec for ${schema} (${name})`);
  const parsed = pair.fromJSON(raw);
  // What a client would send back: the model written out as JSON text, then read.
  const back = JSON.parse(JSON.stringify(pair.toJSON(parsed))) as Json;
  const diffs: Diff[] = [];
  diff(raw, back, [], diffs);
  const missing: Path[] = [];
  phantoms(parsed, [], missing);
  return { name, schema, diffs, phantoms: missing };
});
console.log(JSON.stringify(report));
