// Strings: one catalogue per language, chosen from the browser's language and switchable.
import en from "./i18n/en.js";

export const LANGUAGES = { en: "English", fr: "Français", ja: "日本語" };
const loaded = { en };
let current = "en";

export function pickLanguage() {
  const saved = localStorage.getItem("crisp.lang");
  if (saved && LANGUAGES[saved]) return saved;
  for (const tag of navigator.languages || [navigator.language || "en"]) {
    const base = String(tag).slice(0, 2).toLowerCase();
    if (LANGUAGES[base]) return base;
  }
  return "en";
}

export async function setLanguage(lang) {
  if (!LANGUAGES[lang]) lang = "en";
  if (!loaded[lang]) loaded[lang] = (await import(`./i18n/${lang}.js`)).default;
  current = lang;
  document.documentElement.lang = lang;
  localStorage.setItem("crisp.lang", lang);
}

export function language() {
  return current;
}

export function t(key, vars = {}) {
  const text = loaded[current][key] ?? en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => (name in vars ? String(vars[name]) : `{${name}}`));
}

const RANKS = { A: "A", T: "10", J: "J", Q: "Q", K: "K" };
const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };

// "7H" -> "7♥"; used for labels and faces.
export function cardName(code) {
  return (RANKS[code[0]] || code[0]) + SUITS[code[1]];
}

export function isRed(code) {
  return code[1] === "H" || code[1] === "D";
}
