// Motion that explains, one message after the other (the controller awaits each): a play flies
// from its player to the trick face up (a played card is public: the trick shows it once the
// message is applied), a draw from the supply to both players face down. Under
// prefers-reduced-motion, or in a hidden tab, nothing moves.
import { patch } from "../../shell/morph.js";
import { faceMarkup } from "./cards.js";

const reduced = window.matchMedia("(prefers-reduced-motion: reduce)");
const MS = 260;

function box(selector) {
  const el = document.querySelector(selector);
  return el ? el.getBoundingClientRect() : null;
}

function spotOf(model, seat) {
  return seat === model.you.seat ? box('[data-test="hand"]') : box(`[data-test="seat"][data-seat="${seat}"]`);
}

// `rank`: the played card's face (null: a face-down card); `shift`: px to the right (a set's cards
// fly fanned, side by side).
function fly(from, to, delay = 0, rank = null, shift = 0) {
  if (!from || !to) return Promise.resolve();
  const el = document.createElement("div");
  el.className = `cs-card ${rank ? "up" : "down"} fly`;
  el.setAttribute("aria-hidden", "true");
  if (rank) {
    el.dataset.card = rank;
    patch(el, faceMarkup(rank));
  }
  const w = 40;
  const h = 56;
  Object.assign(el.style, {
    left: `${from.left + from.width / 2 - w / 2 + shift}px`, top: `${from.top + from.height / 2 - h / 2}px`,
    width: `${w}px`, height: `${h}px`, transitionDuration: `${MS}ms`, transitionDelay: `${delay}ms`,
  });
  document.body.appendChild(el);
  el.getBoundingClientRect();
  const dx = to.left + to.width / 2 - (from.left + from.width / 2);
  const dy = to.top + to.height / 2 - (from.top + from.height / 2);
  el.style.transform = `translate(${dx}px, ${dy}px)`;
  return new Promise((resolve) => setTimeout(() => { el.remove(); resolve(); }, MS + delay + 20));
}

// `model`: {you: {seat}, players, round}.
export function animate(model, msg) {
  if (reduced.matches || document.visibilityState !== "visible") return Promise.resolve();
  if (msg.type === "play") {
    const from = spotOf(model, msg.seat);
    const to = box('[data-test="trick"]');
    const n = msg.cards.length;
    return Promise.all([...msg.cards].map((rank, i) => fly(from, to, i * 40, rank, (i - (n - 1) / 2) * 18)));
  }
  if (msg.type === "draw") {
    const from = box('[data-test="pile"]');
    return Promise.all([fly(from, spotOf(model, 0)), fly(from, spotOf(model, 1), 60)]);
  }
  return Promise.resolve();
}
