// The public API, same origin. Tokens travel only in the Authorization header.

export class ApiError extends Error {
  constructor(status, problem) {
    super((problem && (problem.detail || problem.title)) || `HTTP ${status}`);
    this.status = status;
    this.problem = problem;
    this.code = problem && problem.code;
  }
}

export class NetworkError extends Error {}

/** A fresh Idempotency-Key (crypto.randomUUID needs a secure context; this does not). */
export function newKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

export async function request(method, path, options = {}) {
  return (await call(method, path, options)).data;
}

/** request(), answering {data, etag}; `key`: this Idempotency-Key (kept by the caller
 * for a retry), `ifMatch`: the match's ETag as last seen ("v7" quoted). */
export async function call(method, path, { token, body, idempotent = false, key, ifMatch } = {}) {
  const headers = { Accept: "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (key) headers["Idempotency-Key"] = key;
  else if (idempotent) headers["Idempotency-Key"] = newKey();
  if (ifMatch) headers["If-Match"] = ifMatch;
  return answerOf(
    fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: "no-store",
      credentials: "omit",
    }),
  );
}

/** {data, etag} of a fetch's answer; an ApiError for a refusal, a NetworkError for none. */
async function answerOf(fetching) {
  let response;
  try {
    response = await fetching;
  } catch (error) {
    throw new NetworkError(String(error));
  }
  const etag = response.headers.get("ETag");
  if (response.status === 204) return { data: null, etag };
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) throw new ApiError(response.status, data);
  return { data, etag };
}

/** The match version an ETag names ("v7", or W/"v7" once compressed); null for none. */
export function versionOf(etag) {
  const found = /"v(\d+)/.exec(etag || "");
  return found ? Number(found[1]) : null;
}

/** [match, sheet, the sheet's version] as table-prefetch.js asked for them while the page
 * arrived, once, if they were for match `id` with `token`; null otherwise (the caller
 * reads them itself, readTable). */
export function takeFirstReads(id, token) {
  const begun = self.firstReads;
  self.firstReads = null; // taken, or too late: table-prefetch.js then asks for nothing
  if (!begun || begun.id !== id || begun.token !== token) return null;
  return tableOf(Promise.all([begun.match, begun.sheet].map((answer) => answerOf(answer))));
}

async function tableOf(reading) {
  const [match, sheet] = await reading;
  return [match.data, sheet.data, versionOf(sheet.etag)];
}

/** The /me answer table-prefetch.js asked for a join link, once, if it was for match `id`
 * with `token`; null otherwise. The match and the sheet stay for takeFirstReads. */
export function takeFirstMe(id, token) {
  const begun = self.firstReads;
  if (!begun || !begun.me || begun.id !== id || begun.token !== token) return null;
  const answer = begun.me;
  begun.me = null;
  return answerOf(answer).then((answered) => answered.data);
}

const m = (id) => `/v1/matches/${encodeURIComponent(id)}`;

export const api = {
  createMatch: (body) => request("POST", "/v1/matches", { body, idempotent: true }),
  getMatch: (id, token) => request("GET", m(id), { token }),
  /** [match, sheet, the sheet's version], read at once (takeFirstReads' shape). */
  readTable: (id, token) =>
    tableOf(Promise.all([call("GET", m(id), { token }), call("GET", `${m(id)}/sheet`, { token })])),
  createRound: (id, token, body) =>
    request("POST", `${m(id)}/rounds`, { token, body, idempotent: true }),
  /** Undo: {data: null, etag} (the ETag of the version it made). */
  deleteRound: (id, token, n) => call("DELETE", `${m(id)}/rounds/${n}`, { token }),
  /** What entering `body` next would score, by the match's own settings; stores nothing. */
  scoreMatchRound: (id, token, body) => request("POST", `${m(id)}/score`, { token, body }),
  /** {data: the ended match, etag}. */
  endMatch: (id, token) => call("POST", `${m(id)}/end`, { token, idempotent: true }),
  ticket: (id, token) => request("POST", `${m(id)}/events/tickets`, { token }),
  /** A new host token for the recovery code (no bearer token): {token, recovery, ...}.
   * `key`: the Idempotency-Key, kept by the caller so that a retry gets the same answer. */
  recover: (id, code, key) =>
    request("POST", `${m(id)}/recover`, { body: { recovery_code: code }, key }),
  /** A token of the match's rematch for this token's own role and seat:
   * {match_id, role, seat, token, link}. */
  takeRematchSeat: (id, token) => request("POST", `${m(id)}/rematch/seat`, { token }),
  /** The match's current recovery code, for the host key: {recovery_code}. */
  recoveryCode: (id, token) => request("GET", `${m(id)}/recovery`, { token }),
  /** Whom the token stands for: {role: "host" | "player" | "viewer", seat}. */
  me: (id, token) => request("GET", `${m(id)}/me`, { token }),
};
