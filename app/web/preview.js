// A round's preview while it is typed: what the match makes of the body (scoreMatchRound,
// through the entry's `score` hook), asked a moment after the last change so typing does
// not send a request per key; an answer to an older body is dropped.
import { NetworkError } from "./api.js";
import { clear, h } from "./dom.js";
import { t } from "./i18n.js";
import { problemNodes } from "./problems.js";

const PREVIEW_MS = 250;

/** What a preview shows when its score could not be had: offline, or why it was refused. */
export function previewFailed(error) {
  return error instanceof NetworkError
    ? h("p", { class: "muted" }, t("preview_offline"))
    : h("p", { class: "preview-error" }, problemNodes(error));
}

export class Preview {
  /**
   * @param {string} id the element's id
   * @param {(body: object) => Promise<object>} score the match's score of a body
   * @param {(score: object, body: object) => Node[]} render what to show of an answer
   */
  constructor(id, score, render) {
    this.score = score;
    this.render = render;
    this.seq = 0; // the latest body asked for
    this.timer = null;
    this.element = h("div", { class: "preview", id, "aria-live": "polite" });
  }

  /** Preview `body` once typing pauses. */
  ask(body) {
    this.drop();
    const seq = this.seq;
    this.element.classList.add("busy");
    this.timer = setTimeout(() => this.run(seq, body), PREVIEW_MS);
  }

  /** Show `children` (nothing: empty) instead of a preview, dropping any on its way. */
  say(...children) {
    this.drop();
    this.element.classList.remove("busy");
    clear(this.element).append(...children);
  }

  drop() {
    clearTimeout(this.timer);
    this.seq += 1;
  }

  async run(seq, body) {
    let score;
    try {
      score = await this.score(body);
    } catch (error) {
      if (seq !== this.seq) return;
      this.show(previewFailed(error));
      return;
    }
    if (seq !== this.seq) return; // typed on meanwhile: a newer preview is coming
    this.show(...this.render(score, body));
  }

  show(...children) {
    this.element.classList.remove("busy");
    clear(this.element).append(...children);
  }
}
