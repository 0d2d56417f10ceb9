"""Words kept whole: no word of a label is broken across two lines ("Roun / d 1", "Face / up").

For each matched element, each word of its text (split at spaces and hyphens) is measured as a
DOM Range: a word whose boxes lie on more than one line is broken.
"""

from __future__ import annotations

from typing import Any

# the header's round and room code; Crisps!'s face-up and set-aside labels
LABELS = "header.top .roundinfo, header.top .codechip, main.table.cs .cs-supply .count"

BROKEN = """(sel) => {
  const out = [];
  for (const el of document.querySelectorAll(sel)) {
    if (!el.getClientRects().length) continue;
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    const lines = new Set();
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const m of node.textContent.matchAll(/[^\\s\\-]+/g)) {
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0)
          .map((r) => Math.round(r.top)));
        if (tops.size > 1) out.push(`"${m[0]}" broken across lines in "${el.textContent.trim()}"`);
        for (const top of tops) lines.add(top);
      }
    }
    if (el.matches(".roundinfo, .count") && lines.size > 1) {
      out.push(`"${el.textContent.trim()}" wraps onto ${lines.size} lines`);
    }
  }
  return out;
}"""


def broken_words(page: Any, labels: str = LABELS) -> list[str]:
    """The words of ``labels`` broken across lines (empty: none)."""
    return [str(x) for x in page.evaluate(BROKEN, labels)]
