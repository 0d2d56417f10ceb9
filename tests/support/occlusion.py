"""The occlusion check of the browser tests: nothing opaque lies over what the state depends on.

Each protected element (your cards, the tappable cards, the actions, the trick to beat, the
opponents' cards, the pile, the results and their next step, the header's title, the status line,
the countdown, the feed's newest line) is sampled on a grid of points over its box (clipped to the
viewport). At each point ``document.elementsFromPoint`` lists what is there, topmost first; every
element above the protected one that is neither inside it nor one of its ancestors must paint
nothing (no background, no border, no text of its own, no image) or it covers the element. Elements
that ignore taps (``pointer-events: none``) are made hit-testable for the measure, so a card drawn
over the game with ``pointer-events: none`` is still found.
"""

from __future__ import annotations

from typing import Any

# What each state may depend on; a selector that matches nothing is skipped (not every state has
# a trick, a pile or results).
PROTECTED: dict[str, str] = {
    "your cards": '[data-test="hand"] button',
    "tappable cards": 'main button[data-test="card"]:not([disabled]):not([aria-disabled="true"])',
    "actions": '[data-test="actions"] button:not([disabled])',
    "trick to beat": '[data-test="trick"] li:last-child',
    "opponents' cards": '[data-test="seat"]',
    "pile": '[data-test="pile"]',
    "results": '[data-test="results"]',
    "next step": '[data-test="results"] [data-action="continue"], '
    '[data-test="results"] [data-action="rematch"]',
    "header title": "header.top .roundinfo",
    "status line": '[data-test="status"]',
    "countdown": '[data-test="timer"]',
    "move feed": '[data-test="feed"] li:last-child',
}

# What may be scrolled out of sight inside a field that scrolls (a short screen has no room for
# all of it at once): it must not be covered where it is in sight.
SCROLLS = {"status line", "countdown", "move feed"}

GRID = 4  # points each way over the part of an element's box in sight

SAMPLE = """({protect, grid, scrolls}) => {
  const vw = window.innerWidth, vh = window.innerHeight;
  const forced = [];
  for (const el of document.querySelectorAll("body *")) {
    if (getComputedStyle(el).pointerEvents === "none") {
      forced.push([el, el.style.pointerEvents]);
      el.style.pointerEvents = "auto";
    }
  }
  const clear = (c) => c === "transparent" || /rgba\\(.*,\\s*0\\)$/.test(c);
  const paints = (el) => {
    const css = getComputedStyle(el);
    if (css.visibility === "hidden" || Number(css.opacity) < 0.05) return false;
    if (!clear(css.backgroundColor) || css.backgroundImage !== "none") return true;
    const replaced = ["IMG", "svg", "CANVAS", "VIDEO", "INPUT", "SELECT", "TEXTAREA"];
    if (replaced.includes(el.tagName)) return true;
    if (parseFloat(css.borderTopWidth) > 0 && !clear(css.borderTopColor)) return true;
    return [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
  };
  const shown = (el) => el.getClientRects().length && getComputedStyle(el).visibility !== "hidden";
  // the part of an element's box in sight: within the viewport and every clipping ancestor (a
  // field that scrolls inside itself shows only part of what it holds)
  const seenBox = (el) => {
    const r = el.getBoundingClientRect();
    const box = { left: Math.max(0, r.left), right: Math.min(vw, r.right),
      top: Math.max(0, r.top), bottom: Math.min(vh, r.bottom) };
    for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
      const css = getComputedStyle(a);
      if (css.display === "contents") continue; // no box of its own: it clips nothing
      if (css.overflowX === "visible" && css.overflowY === "visible") continue;
      const q = a.getBoundingClientRect();
      box.left = Math.max(box.left, q.left); box.right = Math.min(box.right, q.right);
      box.top = Math.max(box.top, q.top); box.bottom = Math.min(box.bottom, q.bottom);
    }
    return box;
  };
  const label = (el) => {
    const d = el.dataset || {};
    const classes = el.classList.length ? "." + [...el.classList].join(".") : "";
    return `${el.tagName.toLowerCase()}${classes}` + (d.test ? `[${d.test}]` : "")
      + (d.action ? `(${d.action})` : "") + (d.slot ? `#${d.slot}` : "");
  };
  const out = [];
  try {
    for (const [what, sel] of Object.entries(protect)) {
      for (const el of document.querySelectorAll(sel)) {
        if (!shown(el)) continue;
        const r = el.getBoundingClientRect();
        const box = seenBox(el);
        const { left, right, top, bottom } = box;
        if (right - left < 2 || bottom - top < 2) {
          if (!scrolls.includes(what)) {
            const where = r.bottom <= 0 || r.top >= vh || r.right <= 0 || r.left >= vw
              ? `outside the ${vw}x${vh} viewport` : "scrolled out of sight";
            out.push(`${what}: ${label(el)} is ${where}`);
          }
          continue;
        }
        const covers = new Set();
        let hidden = 0, points = 0;
        for (let i = 0; i < grid; i++) {
          for (let j = 0; j < grid; j++) {
            const x = left + (right - left) * (i + 0.5) / grid;
            const y = top + (bottom - top) * (j + 0.5) / grid;
            points++;
            const stack = document.elementsFromPoint(x, y);
            const at = stack.findIndex((e) => e === el || el.contains(e));
            const above = at < 0 ? stack : stack.slice(0, at);
            const cover = above.find((e) => !e.contains(el) && !el.contains(e) && paints(e));
            if (cover) covers.add(label(cover));
            else if (at < 0) hidden++;
          }
        }
        if (covers.size) out.push(`${what}: ${label(el)} covered by ${[...covers].join(", ")}`);
        if (hidden * 2 > points) out.push(`${what}: ${label(el)} mostly out of sight (clipped)`);
      }
    }
  } finally {
    for (const [el, before] of forced) el.style.pointerEvents = before;
  }
  return out;
}"""


def settle(page: Any) -> None:
    """Two animation frames: whatever the page lays out after a change has been laid out."""
    page.evaluate("new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")


def occluded(page: Any, protect: dict[str, str] | None = None) -> list[str]:
    """What is covered, or out of sight, of what the page's state depends on (empty: nothing)."""
    settle(page)
    found = page.evaluate(
        SAMPLE, {"protect": protect or PROTECTED, "grid": GRID, "scrolls": sorted(SCROLLS)}
    )
    return [str(x) for x in found]
