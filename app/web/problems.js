// A refused request, for people: the problem's detail as the server wrote it, then a
// hint in the page's language keyed by the problem's `code` (docs/client-guide.md#errors).
import { ApiError, NetworkError } from "./api.js";
import { t } from "./i18n.js";

/** The translated hint for a problem code, or "" when there is none. */
export function hintFor(code) {
  if (!code) return "";
  const key = `hint_${code}`;
  const text = t(key);
  return text === key ? "" : text;
}

/** The detail (or a generic line), followed by the code's hint. */
export function problemText(error) {
  if (error instanceof ApiError) {
    const detail =
      error.problem && error.problem.detail ? error.problem.detail : t("error_http", { status: error.status });
    const hint = hintFor(error.code);
    return hint ? `${detail} ${hint}` : detail;
  }
  if (error instanceof NetworkError) return t("error_network");
  return String(error && error.message ? error.message : error);
}

/** The same for a problem kept in the outbox: {status, code, detail}. */
export function storedProblemText(problem) {
  if (!problem) return "";
  const detail = problem.detail || t("error_http", { status: problem.status });
  const hint = hintFor(problem.code);
  return hint ? `${detail} ${hint}` : detail;
}
