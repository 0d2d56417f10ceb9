// Motion that explains, one message after the other (the controller awaits each): a play flies
// from its player to the trick, a draw from the supply to both players. Cards fly face down
// (nothing is shown that the table does not show once the message is applied). Under
// prefers-reduced-motion, or in a hidden tab, nothing moves.
const reduced = window.matchMedia("(prefers-reduced-motion: reduce)");
const MS = 260;

function box(selector) {
  const el = document.querySelector(selector);
  return el ? el.getBoundingClientRect() : null;
}

function spotOf(model, seat) {
  return seat === model.you.seat ? box('[data-test="hand"]') : box(`[data-test="seat"][data-seat="${seat}"]`);
}

function fly(from, to, delay = 0) {
  if (!from || !to) return Promise.resolve();
  const el = document.createElement("div");
  el.className = "cs-card down fly";
  el.setAttribute("aria-hidden", "true");
  const w = 40;
  const h = 56;
  Object.assign(el.style, {
    left: `${from.left + from.width / 2 - w / 2}px`, top: `${from.top + from.height / 2 - h / 2}px`,
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
  if (msg.type === "play") return fly(spotOf(model, msg.seat), box('[data-test="trick"]'));
  if (msg.type === "draw") {
    const from = box('[data-test="pile"]');
    return Promise.all([fly(from, spotOf(model, 0)), fly(from, spotOf(model, 1), 60)]);
  }
  return Promise.resolve();
}
