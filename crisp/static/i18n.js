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

// French elision before a name that starts with a vowel: "de Ana" -> "d’Ana", "que Ana" ->
// "qu’Ana" (and le/la, ne, je, me, te, se, ce, lorsque, puisque, jusque).
const ELIDE = /(^|[\s(«\u00a0])(de|que|lorsque|puisque|jusque|le|la|ne|je|me|te|se|ce) $/i;
const VOWEL = /^[aeiouyàâäéèêëîïôöùûüœæ]/i;

export function t(key, vars = {}) {
  const text = loaded[current][key] ?? en[key] ?? key;
  let out = "";
  let last = 0;
  for (const match of text.matchAll(/\{(\w+)\}/g)) {
    out += text.slice(last, match.index);
    last = match.index + match[0].length;
    const name = match[1];
    const value = name in vars ? String(vars[name]) : match[0];
    if (current === "fr" && VOWEL.test(value)) {
      out = out.replace(ELIDE, (_, before, word) => `${before}${word.slice(0, -1)}’`);
    }
    out += value;
  }
  return out + text.slice(last);
}

// Sentences one after the other: a space between them, none in Japanese.
export function sentences(...parts) {
  return parts.filter(Boolean).join(current === "ja" ? "" : " ");
}

const RANKS = { A: "A", T: "10", J: "J", Q: "Q", K: "K" };
const COURTS = { fr: { J: "V", Q: "D", K: "R" } }; // Valet, Dame, Roi
const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };

// "7H" -> "7♥", "QS" -> "Q♠" (in French "D♠"); used for labels and text faces.
export function cardName(code) {
  const rank = COURTS[current]?.[code[0]] || RANKS[code[0]] || code[0];
  return rank + SUITS[code[1]];
}

export function isRed(code) {
  return code[1] === "H" || code[1] === "D";
}
