// What every game's table does the same way: its markup patched into the stage on each update,
// and the countdowns that run between messages.
import { t } from "../../i18n.js";
import { cls, html } from "../../shell/html.js";
import { patch } from "../../shell/morph.js";

// A countdown as tick() below runs it (keyed: a new countdown is a new element); null: an empty
// place where a countdown goes.
export function timerMarkup(timer) {
  if (!timer) return html`<div class="timer empty" data-key="timer-none"></div>`;
  const { key, until, span, from, low } = timer;
  return html`<div class="timer" data-test="timer" data-key="${key}" data-countdown="${until}" data-span="${span}"
    data-from="${from}"${low == null ? "" : html` data-low="${low}"`}><div class="fill"></div><span class="secs"></span></div>`;
}

// The move feed (the shell's lines of this round), open in full or showing the last lines; on
// the shared screen (`tv`) without the toggle: nobody taps a TV.
export function feedBlock(feed, open, tv = false) {
  return html`<section class="${cls({ feed: true, open })}" data-key="feed">
    <div role="log" aria-live="polite" aria-label="${t("feed.title")}" data-test="feed"><ol>
      ${feed.map((line) => html`<li data-key="l${line.id}" class="${line.mine ? "mine" : ""}">${line.text}</li>`)}
    </ol></div>
    ${tv ? "" : html`<button class="feed-toggle" data-action="feed" aria-expanded="${open}" data-test="feed-toggle">${open ? t("menu.close") : t("feed.all")}</button>`}
  </section>`;
}

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
