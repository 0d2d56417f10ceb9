// What every game's table does the same way: its markup patched into the stage on each update,
// and the countdowns that run between messages.
import { patch } from "../../shell/morph.js";

// The countdowns run between messages: the seconds left, the bar, and the low-time warning. A
// countdown is an element with data-countdown (the game time it ends), data-span (its length),
// optionally data-from (the game time it starts: before, it stands still) and data-low (the
// seconds from which it is low), holding a .secs and a .fill. Returns the seconds left of the low
// countdown (each game shows one only for this seat's own decision), else null.
export function tick(root, ctx) {
  const now = ctx.now();
  let low = null;
  for (const el of root.querySelectorAll("[data-countdown]")) {
    const until = Number(el.dataset.countdown);
    const start = Number(el.dataset.from ?? now);
    const left = Math.max(0, until - Math.max(now, start)) / ctx.speed;
    const secs = el.querySelector(".secs");
    const shown = `${Math.ceil(left)}`;
    if (secs && secs.textContent !== shown) secs.textContent = shown;
    const fill = el.querySelector(".fill");
    if (fill) fill.style.transform = `scaleX(${Math.min(1, (left * ctx.speed) / (Number(el.dataset.span) || 1))})`;
    if (el.dataset.low) {
      const isLow = left <= Number(el.dataset.low) && now >= start;
      el.classList.toggle("low", isLow);
      if (isLow) low = Math.ceil(left);
    }
  }
  return low;
}

// The Table class of the game contract (games/index.js) for a table drawn by `markup(g, ctx)`;
// `after(el)` runs after each patch (e.g. the card art on the faces just drawn).
export function tableOf(markup, after = () => {}) {
  return class Table {
    mount(el) {
      this.el = el;
    }

    update(g, ctx) {
      patch(this.el, markup(g, ctx));
      after(this.el);
      tick(this.el, ctx);
    }

    unmount() {
      if (this.el) this.el.replaceChildren();
      this.el = null;
    }
  };
}
