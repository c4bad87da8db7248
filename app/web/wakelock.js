// Keep the screen awake while a match is in play (Screen Wake Lock API): a toggle,
// remembered on the device and on by default. The browser drops the lock whenever the
// page is hidden, so it is asked for again when the page comes back.
import { h } from "./dom.js";
import { t } from "./i18n.js";

const KEY = "squarescores.wakeLock";

function supported() {
  return Boolean(navigator.wakeLock && typeof navigator.wakeLock.request === "function");
}

function remembered() {
  return localStorage.getItem(KEY) !== "off";
}

export class ScreenAwake {
  constructor() {
    this.playing = false;
    this.closed = false;
    this.sentinel = null;
    this.asking = false;
    this.input = h("input", { type: "checkbox", id: "wake-lock", checked: remembered() });
    this.input.addEventListener("change", () => {
      localStorage.setItem(KEY, this.input.checked ? "on" : "off");
      this.sync();
    });
    this.element = h("label", { class: "wake-lock", hidden: true }, this.input, h("span", {}, t("keep_awake")));
    this.onVisible = () => this.sync();
    document.addEventListener("visibilitychange", this.onVisible);
  }

  /** Whether the match is still in play (the lock is held only then). */
  setPlaying(playing) {
    this.playing = playing;
    this.element.hidden = !supported() || !playing;
    this.sync();
  }

  get wanted() {
    return supported() && !this.closed && this.playing && this.input.checked && document.visibilityState === "visible";
  }

  async sync() {
    if (!this.wanted) {
      const sentinel = this.sentinel;
      this.sentinel = null;
      if (sentinel) sentinel.release().catch(() => {});
      return;
    }
    if (this.sentinel || this.asking) return;
    this.asking = true;
    try {
      const sentinel = await navigator.wakeLock.request("screen");
      sentinel.addEventListener("release", () => {
        if (this.sentinel === sentinel) this.sentinel = null;
      });
      this.sentinel = sentinel;
    } catch {
      // Refused (battery saver, page hidden meanwhile): the screen sleeps as usual.
    } finally {
      this.asking = false;
    }
    if (!this.wanted) this.sync(); // switched off or ended while the request ran
  }

  close() {
    this.closed = true;
    document.removeEventListener("visibilitychange", this.onVisible);
    this.sync();
  }
}
