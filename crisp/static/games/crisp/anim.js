// Motion that explains: cards fly from where they were to where they go, one message after the
// other (the controller awaits each). Only public faces ever fly face up. prefers-reduced-motion:
// no flight (the crisp banner still shows, without motion). Each flight's start is measured
// against its message's arrival (performance.measure "crisp-anim-lag", for the budget test).
import { t } from "../../i18n.js";
import { patch } from "../../shell/morph.js";
import { faceMarkup, hydrate } from "./cards.js";

const reduced = window.matchMedia("(prefers-reduced-motion: reduce)");
const MS = 300;

function box(selector) {
  const el = document.querySelector(selector);
  return el ? el.getBoundingClientRect() : null;
}

function cardAt(seat, slot) {
  return box(`[data-seat="${seat}"][data-slot="${slot}"]`);
}

function seatSpot(model, seat) {
  if (seat === model.you.seat) return box('[data-test="held"]');
  return box(`[data-test="seat"][data-seat="${seat}"] .mini`);
}

let arrivedAt = null;

function fly(from, to, code = null, ms = MS, delay = 0) {
  if (!from || !to) return Promise.resolve();
  if (arrivedAt != null) {
    performance.measure("crisp-anim-lag", { start: arrivedAt, end: performance.now() });
    arrivedAt = null;
  }
  const el = document.createElement("div");
  el.className = `card fly ${code ? "up" : "down"}`;
  el.setAttribute("aria-hidden", "true");
  if (code) {
    patch(el, faceMarkup(code));
    hydrate(el);
  }
  const w = Math.min(from.width, 80);
  const h = w * 1.4;
  Object.assign(el.style, {
    left: `${from.left + from.width / 2 - w / 2}px`, top: `${from.top + from.height / 2 - h / 2}px`,
    width: `${w}px`, height: `${h}px`, transitionDuration: `${ms}ms`, transitionDelay: `${delay}ms`,
  });
  document.body.appendChild(el);
  el.getBoundingClientRect(); // start from here
  const dx = to.left + to.width / 2 - (from.left + from.width / 2);
  const dy = to.top + to.height / 2 - (from.top + from.height / 2);
  el.style.transform = `translate(${dx}px, ${dy}px)`;
  return new Promise((resolve) => setTimeout(() => { el.remove(); resolve(); }, ms + delay + 20));
}

// The crisp banner: the screen's width, over the header (never over the status line).
function banner(text, ms = 1400) {
  const el = document.createElement("div");
  el.className = "banner";
  el.setAttribute("role", "alert");
  el.dataset.test = "crisp-banner";
  el.textContent = text;
  document.body.appendChild(el);
  setTimeout(() => el.remove(), ms);
  return new Promise((resolve) => setTimeout(resolve, reduced.matches ? 0 : 500));
}

// `model` here: {you: {seat}, players, round} (the game state and this seat); `arrived`: the
// performance.now() at which the message arrived.
export async function animate(model, msg, arrived = null) {
  arrivedAt = arrived;
  if (msg.type === "crisp") {
    const me = msg.seat === model.you.seat;
    return banner(me ? t("announce.crispyou") : t("announce.crisp", { name: model.players[msg.seat] }));
  }
  if (reduced.matches || document.visibilityState !== "visible") return undefined;
  const deck = box('[data-test="deck"] .card');
  const pile = box('[data-test="pile"] .card');
  const seat = msg.seat;
  switch (msg.type) {
    case "round": {
      const n = model.players.length;
      const count = document.querySelector('[data-test="deck"] .count');
      if (count) count.textContent = String(msg.deck + 3 * n); // the deal starts from a full deck
      const flights = [];
      for (let i = 0; i < 3 * n; i++) {
        const s = (msg.first + (i % n)) % n;
        const slot = ["left", "middle", "right"][Math.floor(i / n)];
        flights.push(fly(deck, cardAt(s, slot), null, 220, i * 35));
      }
      return Promise.all(flights);
    }
    case "draw":
      return fly(deck, seatSpot(model, seat));
    case "swap":
      return Promise.all([fly(seatSpot(model, seat), cardAt(seat, msg.slot)), fly(cardAt(seat, msg.slot), pile, msg.card)]);
    case "discard":
    case "jack":
    case "king":
      return fly(seatSpot(model, seat), pile, msg.card);
    case "queen":
      await fly(seatSpot(model, seat), pile, msg.card);
      return Promise.all([
        fly(cardAt(seat, msg.slot), cardAt(msg.target, msg.target_slot), null, 450),
        fly(cardAt(msg.target, msg.target_slot), cardAt(seat, msg.slot), null, 450),
      ]);
    case "take":
      return Promise.all([fly(pile, cardAt(seat, msg.slot), model.round?.top), fly(cardAt(seat, msg.slot), pile, msg.card)]);
    case "timeout":
      return msg.card ? fly(model.round?.turn?.holding ? seatSpot(model, seat) : deck, pile, msg.card) : undefined;
    default:
      return undefined;
  }
}
