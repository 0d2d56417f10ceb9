"""Checks of a table's layout on one screen (every screen and target a phone shows), by bounding
boxes in the page: the hand and every enabled action inside the viewport and unobscured (the
element at each one's centre is it or inside it), every tappable target at least 44x44 CSS px,
no text cut in the header and the names (scrollWidth within clientWidth), no scrolling."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from paths import TESTS

# The screens of the issue: phones upright and on their side, a tablet, a TV-like screen, a desktop.
SIZES: dict[str, dict[str, int]] = {
    "320x568": {"width": 320, "height": 568},
    "320x658": {"width": 320, "height": 658},
    "375x667": {"width": 375, "height": 667},
    "412x915": {"width": 412, "height": 915},
    "844x390": {"width": 844, "height": 390},
    "568x320": {"width": 568, "height": 320},
    "768x1024": {"width": 768, "height": 1024},
    "1280x720": {"width": 1280, "height": 720},
    "1440x900": {"width": 1440, "height": 900},
}
MIN_TARGET = 44  # CSS px, each way (WCAG 2.5.5's 44, the project's target size)


def artifacts() -> Path:
    """Where the screenshots go: $CRISP_ARTIFACTS, else tests/artifacts/screens (gitignored)."""
    base = os.environ.get("CRISP_ARTIFACTS")
    out = (Path(base) if base else TESTS / "artifacts") / "screens"
    out.mkdir(parents=True, exist_ok=True)
    return out


def shot(page: Any, name: str) -> Path:
    path = artifacts() / f"{name}.png"
    page.screenshot(path=str(path), scale="css", animations="disabled")
    return path


PROBLEMS = """({essentials, targets, texts, min}) => {
  const out = [];
  const vw = window.innerWidth, vh = window.innerHeight;
  const doc = document.documentElement;
  if (doc.scrollWidth > vw + 1) out.push(`horizontal overflow: ${doc.scrollWidth} > ${vw}`);
  if (window.scrollY !== 0) out.push(`scrolled: ${window.scrollY}`);
  const shown = (el) => el.getClientRects().length && getComputedStyle(el).visibility !== "hidden";
  const enabled = (el) => !el.disabled && el.getAttribute("aria-disabled") !== "true";
  const name = (el) => el.dataset.action || el.dataset.test
    || (el.dataset.slot ? `card ${el.dataset.slot}` : "")
    || el.getAttribute("aria-label") || el.textContent.trim().slice(0, 20) || el.tagName;
  const px = (n) => Math.round(n);
  const found = [...document.querySelectorAll(essentials)].filter(shown);
  if (!found.length) out.push("no hand and no action found");
  for (const el of found) {
    if (el.matches("button") && !el.closest('[data-test="hand"]') && !enabled(el)) continue;
    const r = el.getBoundingClientRect();
    if (r.top < -1 || r.left < -1 || r.bottom > vh + 1 || r.right > vw + 1) {
      out.push(`${name(el)} outside the ${vw}x${vh} viewport: ${px(r.left)},${px(r.top)} `
        + `${px(r.width)}x${px(r.height)}`);
      continue;
    }
    // unobscured: what is at its centre (and near its corners) is it
    const pts = [[r.left + r.width / 2, r.top + r.height / 2], [r.left + 4, r.top + 4],
      [r.right - 4, r.bottom - 4]];
    for (const [x, y] of pts) {
      const hit = document.elementFromPoint(x, y);
      if (hit && hit !== el && !el.contains(hit)) {
        const by = `${hit.tagName}.${[...hit.classList].join(".")}`;
        out.push(`${name(el)} covered at ${px(x)},${px(y)} by ${by}`);
        break;
      }
    }
  }
  for (const el of document.querySelectorAll(targets)) {
    if (!shown(el) || !enabled(el) || el.closest(".sr-only")) continue;
    const r = el.getBoundingClientRect();
    if (r.width + 0.5 < min || r.height + 0.5 < min) {
      out.push(`target ${name(el)} ${Math.round(r.width)}x${Math.round(r.height)} < ${min}x${min}`);
    }
  }
  for (const el of document.querySelectorAll(texts)) {
    if (!shown(el)) continue;
    const text = el.textContent.trim();
    if (el.scrollWidth > el.clientWidth + 1) {
      out.push(`cut: "${text}" ${el.scrollWidth} > ${el.clientWidth}`);
    }
    const r = el.getBoundingClientRect();
    if (r.width && (r.right > vw + 1 || r.left < -1)) out.push(`off screen: "${text}"`);
  }
  return out;
}"""

# your cards, your moves, and your own name (in landscape too, where the own name once went missing)
ESSENTIALS = '[data-test="hand"] button, [data-test="actions"] button, .me-line .name'
TARGETS = (
    "main button, main a, main select, main summary, main [role=button], "
    ".results button, .results a, .results select, .results summary"
)
TEXTS = (
    'header.top > *:not(.lang):not(.sr-only), .roundinfo, [data-test="seat"] .name, .me-line .name'
)


def problems(
    page: Any, essentials: str = ESSENTIALS, targets: str = TARGETS, texts: str = TEXTS
) -> list[str]:
    """What is wrong with the page as it is now (empty when all is well)."""
    page.evaluate("new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
    found = page.evaluate(
        PROBLEMS,
        {"essentials": essentials, "targets": targets, "texts": texts, "min": MIN_TARGET},
    )
    return [str(x) for x in found]
