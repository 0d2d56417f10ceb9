"""axe-core in a Playwright page, for the accessibility tests: inject the vendored engine
(tests/vendor/axe.min.js, never shipped), run it with the WCAG 2.0 A/AA and 2.1 AA rules, and
return its violations as plain records (id, impact, help, the nodes' targets and summaries).

The script goes in through the DevTools protocol (``page.evaluate``), not a <script> tag, so a
strict Content-Security-Policy on the page does not block it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from paths import TESTS

AXE = TESTS / "vendor" / "axe.min.js"
TAGS = ("wcag2a", "wcag2aa", "wcag21aa")
BLOCKING = ("serious", "critical")  # the impacts that fail a screen (serious and critical ones)

RUN = """async (tags) => {
  const result = await axe.run(document, { runOnly: { type: "tag", values: tags } });
  const plain = (v) => ({
    id: v.id,
    impact: v.impact,
    help: v.help,
    nodes: v.nodes.map((n) => ({
      target: n.target.map(String).join(" "),
      summary: n.failureSummary || n.any.map((c) => c.message).join(" ") || "",
      impact: n.impact,
      contrast: n.any.map((c) => c.data && c.data.contrastRatio).find(Boolean) || null,
    })),
  });
  return { violations: result.violations.map(plain), incomplete: result.incomplete.map(plain) };
}"""


@dataclass(frozen=True)
class Violation:
    id: str
    impact: str
    help: str
    nodes: tuple[dict[str, Any], ...]

    @property
    def blocking(self) -> bool:
        return self.impact in BLOCKING

    def describe(self) -> str:
        lines = [f"{self.id} [{self.impact}] {self.help} ({len(self.nodes)} node(s))"]
        for node in self.nodes:
            summary = " ".join(str(node["summary"]).split())
            ratio = f" contrast {node['contrast']}:1" if node.get("contrast") else ""
            lines.append(f"    {node['target']}{ratio}: {summary}")
        return "\n".join(lines)


def inject(page: Any) -> None:
    """Load axe into ``page`` (once per document: a navigation drops it)."""
    if not page.evaluate("typeof window.axe === 'object'"):
        page.evaluate(AXE.read_text(encoding="utf-8") + "\n;true")


def _records(raw: list[dict[str, Any]]) -> list[Violation]:
    found = [Violation(v["id"], v["impact"] or "minor", v["help"], tuple(v["nodes"])) for v in raw]
    return sorted(found, key=lambda v: (not v.blocking, v.id))


def run(page: Any, tags: tuple[str, ...] = TAGS) -> tuple[list[Violation], list[Violation]]:
    """axe on the page as it is now: (its violations, serious and critical ones first; the checks
    it could not decide and leaves for review, e.g. the contrast of text over a gradient)."""
    inject(page)
    result = page.evaluate(RUN, list(tags))
    return _records(result["violations"]), _records(result["incomplete"])


def violations(page: Any, tags: tuple[str, ...] = TAGS) -> list[Violation]:
    """Every axe violation of the page as it is now, serious and critical ones first."""
    return run(page, tags)[0]


def blocking(found: list[Violation]) -> list[Violation]:
    """The serious and critical ones."""
    return [v for v in found if v.blocking]


def report(title: str, found: list[Violation], what: str = "violation") -> str:
    if not found:
        return f"axe {title}: no {what}"
    return f"axe {title}: {len(found)} {what}(s)\n" + "\n".join("  " + v.describe() for v in found)


# axe leaves text over a gradient (the table's felt) undecided; this measures it: the text's colour
# against every colour stop of the nearest gradient behind it, with the translucent backgrounds in
# between (a seat's shading) laid over each stop, worst case kept. WCAG 1.4.3: 4.5:1, or 3:1 for
# large text (24 px, or 18.66 px bold).
GRADIENT_CONTRAST = TESTS / "js" / "gradient_contrast.js"


def gradient_contrast(page: Any, undecided: list[Violation]) -> list[dict[str, Any]]:
    """For the text axe could not judge because of a background gradient: the worst contrast
    over that gradient, and the ratio needed."""
    targets = [
        str(n["target"])
        for v in undecided
        if v.id == "color-contrast"
        for n in v.nodes
        if "gradient" in str(n["summary"])
    ]
    result: list[dict[str, Any]] = page.evaluate(
        GRADIENT_CONTRAST.read_text(encoding="utf-8"), targets
    )
    return result
