// The little of Node that play.ts and roundtrip.ts use. @types/node is not a dependency:
// everything else they use is the web platform (fetch, URL, EventSource's types), as in a
// browser.

declare const process: { argv: string[]; exitCode?: number };

declare module "node:fs" {
  export function readFileSync(path: string, encoding: "utf8"): string;
}
