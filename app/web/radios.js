// A row of buttons that behaves as one radio group, as the WAI-ARIA radio group pattern
// asks: one Tab stop (the checked button, else the first), so Tab leaves the group;
// the arrow keys move within it, wrapping, and choose as they move; Home and End.
const STEPS = new Map([
  ["ArrowRight", 1],
  ["ArrowDown", 1],
  ["ArrowLeft", -1],
  ["ArrowUp", -1],
]);

/** Keys on `buttons` (role="radio", aria-checked); `choose(button)` checks one and says
 * so. Returns `rove()`, to call after the checked or a disabled button changed. */
export function radioKeys(buttons, choose) {
  const usable = () => buttons.filter((button) => !button.disabled && !button.hidden);
  const rove = () => {
    // While the whole form is disabled (a save on its way), keep the stop it will want.
    const live = usable().length ? usable() : buttons;
    const stop = live.find((button) => button.getAttribute("aria-checked") === "true") || live[0];
    for (const button of buttons) button.tabIndex = button === stop ? 0 : -1;
  };
  for (const button of buttons) {
    button.addEventListener("keydown", (event) => {
      if (event.altKey || event.ctrlKey || event.metaKey) return;
      const live = usable();
      const at = live.indexOf(button);
      let next = null;
      if (STEPS.has(event.key)) next = live[(at + STEPS.get(event.key) + live.length) % live.length];
      else if (event.key === "Home") next = live[0];
      else if (event.key === "End") next = live[live.length - 1];
      if (!next) return;
      event.preventDefault();
      next.focus();
      choose(next);
    });
  }
  rove();
  return rove;
}
