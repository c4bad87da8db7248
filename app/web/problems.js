// A refused request, for people: a sentence in the page's language keyed by the
// problem's `code` (or, for a 422, by the field its `errors[].loc` names), a full stop,
// then the code's hint. The server's `detail` is English and for developers: it is
// shown only as a smaller second line (docs/client-guide.md#errors).
import { ApiError, NetworkError } from "./api.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";

/** The translation of key, or "" when the page has none. */
function known(key, vars) {
  const text = t(key, vars);
  return text === key ? "" : text;
}

/** The translated hint for a problem code, or "" when there is none. */
export function hintFor(code) {
  return code ? known(`hint_${code}`) : "";
}

/** The field a 422 is about, as the page has a sentence for it: the innermost named
 * part of the first `loc` that has one (["body", "tricks", 1] is "tricks"). */
function fieldSentence(problem) {
  for (const error of (problem && problem.errors) || []) {
    const names = (error.loc || []).slice(1).filter((part) => typeof part === "string");
    for (const name of names.reverse()) {
      const text = known(`problem_field_${name}`);
      if (text) return text;
    }
  }
  return "";
}

function sentenceFor(status, problem) {
  const code = problem && problem.code;
  const sentence =
    (code === "validation_error" && fieldSentence(problem)) ||
    (code && known(`problem_${code}`)) ||
    t("error_http", { status });
  const hint = hintFor(code);
  const ended = /[.!?…]$/.test(sentence) ? sentence : `${sentence}.`;
  return hint ? `${ended} ${hint}` : ended;
}

/** {text, detail}: the page's own sentence and hint, and the server's detail ("" if none). */
export function problemParts(error) {
  if (error instanceof ApiError) {
    const problem = error.problem || {};
    return { text: sentenceFor(error.status, problem), detail: problem.detail || "" };
  }
  if (error instanceof NetworkError) return { text: t("error_network"), detail: "" };
  return { text: String(error && error.message ? error.message : error), detail: "" };
}

/** The sentence and hint as one string (where a line of text is all there is room for). */
export function problemText(error) {
  return problemParts(error).text;
}

/** The same for a problem kept in the outbox: {status, code, detail}. */
export function storedProblemText(problem) {
  if (!problem) return "";
  return sentenceFor(problem.status, problem);
}

/** Nodes to show: the sentence, then the server's detail on a smaller line of its own. */
export function problemNodes(error) {
  if (typeof error === "string") return [h("span", { class: "problem-text" }, error)];
  const { text, detail } = problemParts(error);
  const nodes = [h("span", { class: "problem-text" }, text)];
  if (detail) nodes.push(h("small", { class: "problem-detail", lang: "en" }, t("problem_detail", { detail })));
  return nodes;
}
