// Strings: one catalogue per language, chosen from the browser's language and switchable. The
// shell's catalogue (i18n/<lang>.js) is here; each game adds its own with addCatalogue when its
// module loads (games/index.js), so that a room loads only its game's strings.
import en from "./i18n/en.js";

export const LANGUAGES = { en: "English", fr: "Français", ja: "日本語" };
// Each catalogue: how to load a language, and its loads by language (a promise each, so that a
// second caller waits for a load in flight rather than finding the language taken and going on
// without its strings: a room's first messages told in English on a French phone).
const catalogue = (load) => ({ load, loads: new Map([["en", Promise.resolve()]]) });
const catalogues = new Map([["shell", catalogue((lang) => import(`./i18n/${lang}.js`))]]);
const merged = { en: { ...en } }; // language -> every loaded catalogue's strings
let current = "en";

async function fill(lang) {
  merged[lang] ??= {};
  const loads = [...catalogues.values()].map((c) => {
    if (!c.loads.has(lang)) {
      c.loads.set(lang, c.load(lang).then((module) => Object.assign(merged[lang], module.default)));
    }
    return c.loads.get(lang);
  });
  await Promise.all(loads);
}

// A game's strings: `english` at once, `load(lang)` -> its module for the current language (and
// any chosen later). Once a name (a second call changes nothing).
export async function addCatalogue(name, english, load) {
  if (!catalogues.has(name)) {
    catalogues.set(name, catalogue(load));
    Object.assign(merged.en, english);
  }
  await fill(current);
}

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
  await fill(lang);
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
  const text = merged[current][key] ?? merged.en[key] ?? key;
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
