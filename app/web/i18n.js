// Strings come from ./i18n/{lang}.json beside this module (same keys in every language),
// so they share its versioned, cached-for-good URL.
export const LANGUAGES = ["en", "hu", "fr", "ru"];
const STORAGE_KEY = "squarescores.lang";

let current = "en";
let strings = {};

export function preferredLanguage() {
  const saved = localStorage.getItem(STORAGE_KEY);
  if (LANGUAGES.includes(saved)) return saved;
  for (const tag of navigator.languages || [navigator.language || "en"]) {
    const base = String(tag).toLowerCase().split("-")[0];
    if (LANGUAGES.includes(base)) return base;
  }
  return "en";
}

export async function setLanguage(lang, { remember = false } = {}) {
  if (!LANGUAGES.includes(lang)) lang = "en";
  const response = await fetch(new URL(`./i18n/${lang}.json`, import.meta.url));
  strings = await response.json();
  current = lang;
  document.documentElement.lang = lang;
  if (remember) localStorage.setItem(STORAGE_KEY, lang);
  for (const el of document.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
}

export function language() {
  return current;
}

// French sets a narrow no-break space before : ; ? ! so the mark never starts a line.
const FRENCH_SPACE = / ([:;?!])/g;

/** The string for key, with {name} placeholders filled in (as text, never markup). */
export function t(key, vars = {}) {
  let template = Object.hasOwn(strings, key) ? strings[key] : key;
  if (current === "fr") template = template.replace(FRENCH_SPACE, "\u202f$1");
  return template.replace(/\{(\w+)\}/g, (whole, name) =>
    Object.hasOwn(vars, name) ? String(vars[name]) : whole,
  );
}
