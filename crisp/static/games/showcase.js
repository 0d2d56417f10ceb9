// The front door's picture of each game: a few of its own cards, drawn by its own modules (Crisp's
// with its card art). Loaded after the home page is drawn (not part of a room link's first load);
// it fills each [data-showcase="<game>"] of the page.
import { html } from "../shell/html.js";
import { patch } from "../shell/morph.js";
import { faceMarkup as crispFace } from "./crisp/cardfallback.js";
import { hydrateSoon } from "./crisp/cards.js";
import { faceMarkup as crispsFace } from "./crisps/cards.js";

const CARDS = {
  // three face-down cards, two of them looked at: a low card and a Queen
  crisp: () => html`<span class="card up">${crispFace("3H")}</span><span class="card down"></span><span class="card up">${crispFace("QS")}</span>`,
  // a run beaten by a Crisp
  crisps: () => html`${["4", "5", "6", "X"].map((rank) => html`<span class="cs-card up">${crispsFace(rank)}</span>`)}`,
};

export function showcase(root) {
  for (const el of root.querySelectorAll("[data-showcase]")) {
    const cards = CARDS[el.dataset.showcase];
    if (cards && !el.childElementCount) patch(el, cards());
  }
  hydrateSoon(root);
}
