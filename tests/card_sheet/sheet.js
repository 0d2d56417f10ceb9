// The card-art test sheet: ?size=PX&four=0|1[&cards=…] draws the 52 faces by suit, then the back and a few
// faces on a light strip. CSP violations are collected for the test (listener first, then import).
window.cspViolations = [];
document.addEventListener("securitypolicyviolation",
  (e) => window.cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`));
const { cardBack, cardFace } = await import("/static/games/crisp/cardart.js");
const q = new URLSearchParams(location.search);
const size = Number(q.get("size"));
const fourColour = q.get("four") === "1";
const sheet = document.getElementById("sheet");

function row(cls = "row") {
  const div = document.createElement("div");
  div.className = cls;
  return sheet.appendChild(div);
}

const only = q.get("cards"); // ?cards=KH,QS,back: just those (for a close look)
if (only) {
  row().append(...only.split(",").map((c) => (c === "back" ? cardBack({ size }) : cardFace(c, { size, fourColour }))));
} else {
  for (const suit of "SHDC") {
    const r = row();
    for (const rank of "A23456789TJQK") r.append(cardFace(rank + suit, { size, fourColour }));
  }
  const sample = ["AH", "7D", "TC", "QS"].map((c) => cardFace(c, { size, fourColour }));
  row("row light").append(cardBack({ size }), ...sample);
}
document.body.dataset.ready = "1";
