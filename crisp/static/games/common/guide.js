// The first-game guide (issue 20, finding 2): a short, skippable card on the table that says what
// to do now, what the card you hold does, what the crisp window is while you wait for it (with
// its countdown), remembered per device (localStorage) once skipped or once a game is over; and
// "How to play" in 60 s, an overlay inside the app. Loaded lazily by a game's feed.js (not part of
// the first load); each game's guide.js says the words (its own catalogue).
import { html } from "../../shell/html.js";
import { patch } from "../../shell/morph.js";
import { feedStyle, guideDone } from "./feedline.js";

const KEY = (game) => `crisp.guide.${game}`;

function remember(game) {
  try {
    localStorage.setItem(KEY(game), "done");
  } catch {
    /* storage full or refused: the guide just goes for this page */
  }
}

// One game's guide on this page: `words` = {labels(), howto()} from the game's guide.js.
export class Guide {
  constructor(game, words) {
    this.game = game;
    this.words = words;
    this.tip = null; // {say(seconds) -> text, until: performance.now() ms or null}
    this.off = guideDone(game);
    this.host = null;
    this.timer = null;
    this.placing = 0;
    feedStyle();
    // a language switch (the page's lang changes) tells the tip again in the new language
    new MutationObserver(() => this.render()).observe(document.documentElement, { attributes: true, attributeFilter: ["lang"] });
  }

  // A new tip: `say(seconds)` makes its text in the current language (seconds: what is left of
  // `inSeconds`, counted down on this phone's clock), or null to show none.
  show(say, inSeconds = null) {
    if (this.off) return;
    this.tip = say ? { say, until: inSeconds == null ? null : performance.now() + inSeconds * 1000 } : null;
    this.render();
    clearInterval(this.timer);
    if (this.tip?.until != null) this.timer = setInterval(() => this.render(), 250);
  }

  finish() {
    this.off = true;
    remember(this.game);
    clearInterval(this.timer);
    this.host?.remove();
    this.host = null;
    this.watch?.disconnect();
    window.removeEventListener("resize", this.onResize);
  }

  // Where the guide goes: over the table, never over a card of the hand, a table card one may tap
  // or a move (each screen lays them out differently: the place is measured, not assumed). Runs
  // at each change of the page (throttled to a frame) while the guide shows.
  replace() {
    if (this.placing || this.off) return;
    this.placing = requestAnimationFrame(() => {
      this.placing = 0;
      if (this.host && !this.host.hidden) place(this.host);
    });
  }

  render() {
    if (this.off) return;
    if (!this.host) {
      this.host = document.createElement("aside");
      this.host.className = "guide";
      this.host.dataset.test = "guide";
      this.host.setAttribute("aria-live", "polite");
      this.host.addEventListener("click", (ev) => {
        const act = ev.target.closest("[data-guide]")?.dataset.guide;
        if (act === "skip") this.finish();
        if (act === "howto") openHowto(this.words);
      });
      document.body.append(this.host);
      this.watch = new MutationObserver((records) => {
        if (records.some((r) => !this.host?.contains(r.target))) this.replace();
      });
      this.watch.observe(document.body, { subtree: true, childList: true, attributes: true,
        attributeFilter: ["class", "disabled", "hidden", "aria-disabled"] });
      this.onResize = () => this.replace();
      window.addEventListener("resize", this.onResize);
    }
    const tip = this.tip;
    if (!tip) {
      this.host.hidden = true;
      return;
    }
    const left = tip.until == null ? null : Math.max(0, Math.ceil((tip.until - performance.now()) / 1000));
    if (left === 0) clearInterval(this.timer);
    const l = this.words.labels();
    this.host.hidden = false;
    patch(this.host, html`<p data-test="guide-text">${tip.say(left)}</p>
      <div class="guide-actions"><button type="button" data-guide="howto" data-test="guide-howto">${l.howto}</button>
      <button type="button" data-guide="skip" data-test="guide-skip">${l.skip}</button></div>`);
    place(this.host);
  }
}

// What the guide must leave uncovered: the hand, the table cards one may tap, the moves, the header.
const AVOID = '[data-test="hand"] button, [data-test="actions"] button, header.top button, header.top select, '
  + 'main button[data-test="card"]:not([disabled]):not([aria-disabled="true"])';
const GAP = 4;

function overlap(a, b) {
  const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
  const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
  return w > 0 && h > 0 ? w * h : 0;
}

// Puts `box` (fixed) at the first place, from the top, where it covers nothing of AVOID: under
// the header, as wide as it may be, else narrower; centred, at a side, or beside a thing to
// avoid; if no place is free, where it covers least.
function place(box) {
  const vw = window.innerWidth;
  const vh = window.innerHeight;
  const rects = [...document.querySelectorAll(AVOID)]
    .filter((el) => el.getClientRects().length && !box.contains(el))
    .map((el) => el.getBoundingClientRect())
    .filter((r) => r.width && r.height);
  const head = document.querySelector("header.top")?.getBoundingClientRect();
  const top = Math.max(GAP, head && head.bottom < vh / 2 ? head.bottom + GAP : GAP);
  const widths = [...new Set([560, 420, 320, 260, 220, 200, 180].map((w) => Math.min(w, vw - 2 * GAP)))];
  let best = null;
  for (const w of widths) {
    Object.assign(box.style, { width: `${w}px`, left: "0px", right: "auto", top: `${top}px`, margin: "0" });
    const h = box.getBoundingClientRect().height;
    const xs = [...new Set([Math.round((vw - w) / 2), GAP, vw - w - GAP,
      ...rects.flatMap((a) => [Math.ceil(a.right) + GAP, Math.floor(a.left) - w - GAP])])]
      .filter((x) => x >= GAP && x + w <= vw - GAP);
    for (let y = top; y + h <= vh - GAP || y === top; y += GAP) {
      for (const x of xs) {
        const r = { left: x - GAP, right: x + w + GAP, top: y - GAP, bottom: y + h + GAP };
        const cover = rects.reduce((sum, a) => sum + overlap(a, r), 0);
        if (!best || cover < best.cover) best = { x, y, w, cover };
        if (!cover) return set(box, best);
      }
    }
  }
  set(box, best);
}

function set(box, at) {
  if (!at) return;
  Object.assign(box.style, { width: `${at.w}px`, left: `${at.x}px`, right: "auto", top: `${at.y}px`, margin: "0" });
}

// "How to play": an overlay in the page (Escape or Close closes it; the full rules are a link).
export function openHowto(words) {
  feedStyle();
  document.querySelector(".howto")?.remove();
  const box = document.createElement("div");
  box.className = "howto";
  box.dataset.test = "howto";
  box.setAttribute("role", "dialog");
  box.setAttribute("aria-modal", "true");
  const l = words.labels();
  box.setAttribute("aria-label", l.title);
  const close = () => {
    box.remove();
    document.removeEventListener("keydown", onKey);
  };
  const onKey = (ev) => ev.key === "Escape" && close();
  document.addEventListener("keydown", onKey);
  box.addEventListener("click", (ev) => {
    if (ev.target === box || ev.target.closest("[data-howto=close]")) close();
  });
  patch(box, html`<div><button type="button" class="close" data-howto="close" data-test="howto-close">${l.close}</button>
    <h2>${l.title}</h2>${words.howto()}
    <p><a href="${l.rulesHref}" target="_blank" rel="noopener">${l.rules}</a></p></div>`);
  document.body.append(box);
  box.querySelector("[data-howto=close]").focus();
}

// A small card for the illustrations: its face (or a back) as text.
export function mini(face, red = false) {
  return face == null ? html`<span class="mini back" aria-hidden="true"></span>`
    : html`<span class="${red ? "mini red" : "mini"}">${face}</span>`;
}

// A game's guide, made on first use and kept for the page: start() and howto() of one game.
export function gameGuide(game, words) {
  let guide = null;
  const start = () => (guide ??= new Guide(game, words));
  return { start, howto: () => openHowto(words) };
}
