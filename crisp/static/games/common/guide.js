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
  }
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
