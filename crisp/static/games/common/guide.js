// "How to play" in 60 s, an overlay inside the app, and its small card illustrations. Loaded
// lazily by a game's feed.js (not part of the first load); each game's guide.js says the words
// (its own catalogue). The first-game tips are games/common/guideline.js and each game's hint.js.
import { html } from "../../shell/html.js";
import { patch } from "../../shell/morph.js";
import { feedStyle } from "./feedline.js";

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

// A game's How to play, in its words.
export function gameGuide(words) {
  return { howto: () => openHowto(words) };
}
