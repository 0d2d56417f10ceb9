// Card art: playing-card faces and the card back as SVG, drawn here from our own shapes (no image
// files, no copied artwork). Load it lazily (`await import("./cardart.js")`): the lobby needs none.
//
//   cardFace("7H", { fourColour, size, label, index }) -> <svg>   cardBack({ size, label }) -> <svg>
//   layoutFor(size) -> "mini" | "small" | "full"
//
// Codes: rank A23456789TJQK (T = ten) + suit S H D C. `size` is the card's width in CSS pixels:
// it sets the width and height attributes and picks the layout (under 36 px a large index only;
// under 56 px a large corner index and one big suit; from 56 px the real card: two corner indices,
// pips as on real cards, court figures mirrored top to bottom, a big ace). Without `size` the card
// fills its container (width and height 100%, aspect kept) with the real-card layout: pass the
// size a mini is drawn at, or it gets pips it is too small to show. Every element is made with
// createElementNS and presentation attributes only (no innerHTML, no style attribute, so a strict
// `style-src 'self'` holds). Suits, court figures, the back's lattice and the Crisp mark are
// defined once per page in a hidden sprite and reused with <use>, so forty cards stay light.
// A card is aria-hidden unless the caller passes `label` (the caller decides what may be named:
// the memory rule); then it is role="img" with that aria-label. A face carries its code in
// data-card (and its rank as text): put one in the page only while the seat may see that face.
// `index` is the rank as the reader's language writes it ("D" for a French Queen; the default is
// the code's rank, "10" for T). The rank is text once per face (the top-left index; the turned
// copy is a <use> of it), so a card button's visible text is the one index its name contains
// (WCAG 2.5.3, axe's label-content-name-mismatch).

const NS = "http://www.w3.org/2000/svg";
const SPRITE = "crisp-cardart";
const W = 100;
const H = 140;
const FONT = "'Helvetica Neue',Arial,'Liberation Sans','DejaVu Sans',sans-serif";
const INK = "#1a1a1a";
const GOLD = "#e3a72f";
const SKIN = "#f6d3b3";
const LINE = "#2b2b2b";
const HAIR = "#6a4424";
const HAIR_Q = "#8a4a1f";
const HAIR_J = "#b0702c";
const COLOURS = {
  two: { S: INK, H: "#c8102e", D: "#c8102e", C: INK },
  four: { S: INK, H: "#c8102e", D: "#0b5cad", C: "#17803d" },
};
// The court figures' second colour, one per suit (so that each suit's courts differ), never the
// suit's own colour in either deck.
const ACCENTS = { S: "#c8102e", H: "#1d3c78", D: "#2f7d32", C: "#6a3d9a" };
const RANKS = "A23456789TJQK";
const BLUE = "#1d3c78";
const BACK_W = 90;
const BACK_H = 130;
const SUITS = "SHDC";

// Suits in a 20 x 20 box.
const SUIT_PATHS = {
  S: "M10 .6C12.6 4.8 19.4 8 19.4 12.4c0 2.7-2.1 4.3-4.4 4.3-1.6 0-3-.7-3.9-1.9.2 2 1 3.5 2.5 4.6H6.4c1.5-1.1 2.3-2.6 2.5-4.6-.9 1.2-2.3 1.9-3.9 1.9-2.3 0-4.4-1.6-4.4-4.3C.6 8 7.4 4.8 10 .6z",
  H: "M10 19C4.4 14.2.6 11 .6 6.3.6 3.2 3 1 5.7 1c2 0 3.5 1.2 4.3 2.9C10.8 2.2 12.3 1 14.3 1 17 1 19.4 3.2 19.4 6.3 19.4 11 15.6 14.2 10 19z",
  D: "M10 .4c2 3.4 4.9 6.8 8 9.6-3.1 2.8-6 6.2-8 9.6-2-3.4-4.9-6.8-8-9.6C5.1 7.2 8 3.8 10 .4z",
  C: "M10 .8a4.6 4.6 0 0 1 3.6 7.5A4.6 4.6 0 1 1 11.2 15c.2 2 1 3.4 2.4 4.4H6.4c1.4-1 2.2-2.4 2.4-4.4a4.6 4.6 0 1 1-2.4-6.7A4.6 4.6 0 0 1 10 .8z",
};

// Court figures: the upper half of the court frame (62 x 58); the lower half is the same figure
// turned 180 degrees. The robe takes the `fill` of its <use> (the suit's colour), the accents its
// `color`; everything else is fixed.
const FIGURES = {
  K: [
    ["path", { d: "M3 58V46c0-6 7-10.5 17-11.5h22c10 1 17 5.5 17 11.5v12z" }],
    ["path", { fill: "#fff", d: "M20 34.5h22c5 .5 9 1.8 12 3.6l-8 5.4H16l-8-5.4c3-1.8 7-3.1 12-3.6z" }],
    ["path", { fill: INK, stroke: "none", d: "M14 38.6h1.8v1.8H14zm6 1.6h1.8V42H20zm6.6.6h1.8v1.8h-1.8zm6.8 0h1.8v1.8h-1.8zm6.6-.6h1.8V42H40zm6-1.6h1.8v1.8H46z" }],
    ["path", { fill: GOLD, d: "M26.5 43.5h9L37 58H25z" }],
    ["path", { fill: "currentColor", d: "M29.3 46h3.4v12h-3.4z" }],
    ["path", { fill: "#c9ccd1", d: "M52 57V19l1.8-3.2 1.8 3.2v38z" }],
    ["path", { fill: GOLD, d: "M48.5 44h10.6v2.6H48.5zm3.5 2.6h3.6v5.4H52z" }],
    ["circle", { fill: SKIN, cx: 53.8, cy: 50, r: 3.2 }],
    ["path", { fill: HAIR, d: "M21.5 18c0-8.5 19-8.5 19 0v12h-19z" }],
    ["ellipse", { fill: SKIN, cx: 31, cy: 21, rx: 8.2, ry: 9.2 }],
    ["path", { fill: HAIR, d: "M22.8 22.5c.4 10 5 15 8.2 15s7.8-5 8.2-15c-2 4.4-5 6-8.2 6s-6.2-1.6-8.2-6z" }],
    ["path", { fill: HAIR, d: "M26.4 27.2c1.6-1.8 3.4-1.8 4.6-.6 1.2-1.2 3-1.2 4.6.6-1.7.6-3.1.7-4.6.1-1.5.6-2.9.5-4.6-.1z" }],
    ["path", { fill: GOLD, d: "M21.5 14.5V3l4 5 2.8-7.4 2.7 6.8 2.7-6.8 2.8 7.4 4-5v11.5z" }],
    ["path", { fill: "currentColor", d: "M29.7 9.6h2.6v2.6h-2.6zm-5.4 1.4h2.2v2.2h-2.2zm11.2 0h2.2v2.2h-2.2z" }],
    ["path", { fill: INK, stroke: "none", d: "M27 19.6h2v1.5h-2zm6 0h2v1.5h-2z" }],
  ],
  Q: [
    ["path", { fill: HAIR_Q, d: "M20.5 21c-1-13.5 22-13.5 21 0 0 8 3 12.5 5 16.5H15.5c2-4 5-8.5 5-16.5z" }],
    ["path", { d: "M3 58V47c0-6.5 7-10.5 17-12h22c10 1.5 17 5.5 17 12v11z" }],
    ["path", { fill: "none", stroke: GOLD, "stroke-width": 1.8, d: "M6 52c0-8 5-12.5 13-14.5M56 52c0-8-5-12.5-13-14.5" }],
    ["path", { fill: "#fff", d: "M20 35h22L31 49z" }],
    ["path", { fill: "currentColor", d: "M24 35h14l-7 9.5z" }],
    ["path", { fill: GOLD, d: "M27.5 58l1.8-9h3.4l1.8 9z" }],
    ["path", { fill: "#2f7d32", d: "M10.6 57.5l-1-21h1.8l1 21z" }],
    ["path", { fill: "currentColor", d: "M10.4 26.6l2.4 2.9 3.6-.9-2 3.2 2 3.1-3.6-.9-2.4 2.9-2.4-2.9-3.6.9 2-3.1-2-3.2 3.6.9z" }],
    ["circle", { fill: GOLD, cx: 10.4, cy: 31.7, r: 1.9 }],
    ["circle", { fill: SKIN, cx: 11.2, cy: 46, r: 3.2 }],
    ["ellipse", { fill: SKIN, cx: 31, cy: 22.5, rx: 7.8, ry: 9 }],
    ["path", { fill: HAIR_Q, d: "M23.5 21c.4-6.5 4.3-9.3 7.5-9.3s7.1 2.8 7.5 9.3c-2.8-2.8-5.3-3.9-7.5-3.9s-4.7 1.1-7.5 3.9z" }],
    ["path", { fill: GOLD, d: "M23.4 13.2l.4-7.4 3.2 3.6L31 3.6l4 5.8 3.2-3.6.4 7.4z" }],
    ["path", { fill: GOLD, d: "M22.4 5.8a1.4 1.4 0 1 0 2.8 0 1.4 1.4 0 1 0-2.8 0zm7.2-2.2a1.4 1.4 0 1 0 2.8 0 1.4 1.4 0 1 0-2.8 0zm7.2 2.2a1.4 1.4 0 1 0 2.8 0 1.4 1.4 0 1 0-2.8 0z" }],
    ["path", { fill: INK, stroke: "none", d: "M27.2 21.6h1.8V23h-1.8zm5.8 0h1.8V23H33z" }],
    ["path", { fill: "#c8102e", stroke: "none", d: "M29.4 27.4h3.2L31 28.7z" }],
  ],
  J: [
    ["path", { d: "M3 58V47c0-6.5 7-10.5 17-12h22c10 1.5 17 5.5 17 12v11z" }],
    ["path", { fill: "currentColor", d: "M25.5 35h11l1.5 23H24z" }],
    ["path", { fill: GOLD, d: "M3.2 55h55.6v3H3.2z" }],
    ["path", { fill: GOLD, stroke: "none", d: "M30 42h2v2h-2zm0 5h2v2h-2zm0 5h2v2h-2z" }],
    ["path", { fill: "#fff", d: "M19 35.5c3-2 20-2 24 0l-4.2 4.6c-4.4-2.2-11.2-2.2-15.6 0z" }],
    ["path", { fill: "#8a5a2b", d: "M8.4 57.5l.8-40h1.8l.8 40z" }],
    ["path", { fill: "#c9ccd1", d: "M10.1 18l-5.6 3.6c0 4.2 1.6 7.2 5.6 8.8zm0 0l4-6.4 4 6.4z" }],
    ["circle", { fill: SKIN, cx: 10.2, cy: 46, r: 3.2 }],
    ["path", { fill: HAIR_J, d: "M22 23c-1-10 19-10 18 0v8.5h-2.8v-4.7H24.8v4.7H22z" }],
    ["ellipse", { fill: SKIN, cx: 31, cy: 23.5, rx: 7.6, ry: 8.8 }],
    ["path", { fill: INK, stroke: "none", d: "M27.4 22.6h1.8V24h-1.8zm5.4 0h1.8V24h-1.8z" }],
    ["path", { fill: "#a0522d", stroke: "none", d: "M29.6 28.2h2.8v1h-2.8z" }],
    ["path", { fill: "#fff", d: "M41 13.5c4.5-8 11-10.6 17.7-11.2-4.5 4.5-10 8.5-16.3 13z" }],
    ["path", { fill: "currentColor", d: "M19.5 17c-.6-9 23.4-10.8 25-2.2.3 1.8-.7 3.1-2.2 3.5-6.9-2-14.3-2-21.4.2-.9-.2-1.4-.8-1.4-1.5z" }],
    ["path", { fill: GOLD, d: "M20.9 16.6c7.1-2.2 14.5-2.2 21.6-.2l-.4 2.4c-6.9-1.9-13.8-1.9-20.7.2z" }],
  ],
};

// Pips for 2 to 10: [column, row] with row 0 at the top pip row and 1 at the bottom one.
const L = 31;
const C = 50;
const R = 69;
const SIDES4 = [[L, 0], [R, 0], [L, 1], [R, 1]];
const SIDES6 = [[L, 0], [R, 0], [L, 0.5], [R, 0.5], [L, 1], [R, 1]];
const SIDES8 = [0, 1 / 3, 2 / 3, 1].flatMap((y) => [[L, y], [R, y]]);
const PIPS = {
  2: [[C, 0], [C, 1]],
  3: [[C, 0], [C, 0.5], [C, 1]],
  4: SIDES4,
  5: [...SIDES4, [C, 0.5]],
  6: SIDES6,
  7: [...SIDES6, [C, 0.25]],
  8: [...SIDES6, [C, 0.25], [C, 0.75]],
  9: [...SIDES8, [C, 0.5]],
  10: [...SIDES8, [C, 1 / 6], [C, 5 / 6]],
};
const TOP = 28;
const BOTTOM = 112;

function el(tag, attrs = {}, children = []) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  for (const child of children) node.append(child);
  return node;
}

function use(id, x, y, w, h, attrs = {}) {
  return el("use", { href: `#${SPRITE}-${id}`, x, y, width: w, height: h, ...attrs });
}

function symbol(id, viewBox, children, attrs = {}) {
  return el("symbol", { id: `${SPRITE}-${id}`, viewBox, ...attrs }, children);
}

// Diagonal lines both ways, `step` apart, shifted by `shift`: the back's woven lattice (drawn as
// paths, not a <pattern>: a pattern in a display:none sprite does not paint).
function latticePath(step, shift) {
  let d = "";
  for (let c = shift - BACK_H; c < BACK_W + BACK_H; c += step) d += `M${c} 0l${BACK_H} ${BACK_H}M${c} ${BACK_H}l${BACK_H}-${BACK_H}`;
  return d;
}

// The shared definitions, added to the page once (and again if a renderer removed them).
function ensureSprite() {
  if (document.getElementById(SPRITE)) return;
  const suits = SUITS.split("").map((s) => symbol(s, "0 0 20 20", [el("path", { d: SUIT_PATHS[s] })]));
  const figures = Object.entries(FIGURES).map(([rank, parts]) => symbol(rank, "0 0 62 58", [
    el("g", { stroke: LINE, "stroke-width": 0.6, "stroke-linejoin": "round" },
      parts.map(([tag, attrs]) => el(tag, attrs))),
  ]));
  const lattice = symbol("lattice", `0 0 ${BACK_W} ${BACK_H}`, [
    el("rect", { width: BACK_W, height: BACK_H, fill: BLUE }),
    el("path", { d: latticePath(11, 5.5), stroke: "#2b57b0", "stroke-width": 0.6, fill: "none" }),
    el("path", { d: latticePath(11, 0), stroke: "#4a76d0", "stroke-width": 1.4, fill: "none" }),
  ]);
  const mark = symbol("mark", "0 0 40 40", [
    el("path", { d: "M28.4 12.2A12 12 0 1 0 28.4 27.8", fill: "none", stroke: "#fff", "stroke-width": 5.2,
      "stroke-linecap": "round" }),
    el("path", { d: "M31 13.6l1.6 4.8 4.8 1.6-4.8 1.6-1.6 4.8-1.6-4.8-4.8-1.6 4.8-1.6z", fill: GOLD }),
  ]);
  const sprite = el("svg", { id: SPRITE, width: 0, height: 0, display: "none", "aria-hidden": "true",
    focusable: "false", class: "cardart-sprite" }, [el("defs", {}, [...suits, ...figures, lattice, mark])]);
  document.body.append(sprite);
}

function frame(kind, size, label) {
  ensureSprite();
  const attrs = { viewBox: `0 0 ${W} ${H}`, class: `cardart ${kind}`, focusable: "false" };
  if (size) Object.assign(attrs, { width: size, height: Math.round(size * H / W) });
  else Object.assign(attrs, { width: "100%", height: "100%" });
  if (label) Object.assign(attrs, { role: "img", "aria-label": label });
  else attrs["aria-hidden"] = "true";
  return el("svg", attrs);
}

function paper(colour = "#fff") {
  return el("rect", { x: 0.75, y: 0.75, width: W - 1.5, height: H - 1.5, rx: 8, fill: colour, stroke: "#8d949b",
    "stroke-width": 1.5, "vector-effect": "non-scaling-stroke" });
}

// The rank as text; `shown` the rank as written (two characters, e.g. "10", are squeezed to `width`).
function rankText(shown, x, y, fontSize, fill, width) {
  const attrs = { x, y, "font-size": fontSize, "font-family": FONT, "font-weight": 700, "text-anchor": "middle",
    fill, class: "index" };
  if (shown.length > 1) Object.assign(attrs, { textLength: width, lengthAdjust: "spacingAndGlyphs" });
  return el("text", attrs, [shown]);
}

let serial = 0;

// The corner indices (rank over suit): top left, and the same turned at the bottom right (a <use>
// of the first: no second copy of the text).
function cornerIndices(shown, suit, fill) {
  const id = `${SPRITE}-ix${++serial}`;
  const top = el("g", { id }, [
    rankText(shown, 11, 22.5, 20, fill, 18.5),
    use(suit, 4.75, 25, 12.5, 12.5, { fill, class: "index-suit" }),
  ]);
  return [top, el("use", { href: `#${id}`, transform: `rotate(180 ${W / 2} ${H / 2})`, class: "index-turned" })];
}

function pips(count, suit, fill) {
  const s = count >= 9 ? 17 : 18.5;
  return PIPS[count].map(([x, row]) => {
    const y = TOP + row * (BOTTOM - TOP);
    const attrs = { fill, class: "pip" };
    if (row > 0.5) attrs.transform = `rotate(180 ${x} ${y})`;
    return use(suit, x - s / 2, y - s / 2, s, s, attrs);
  });
}

function ace(suit, fill) {
  const big = suit === "S" ? 52 : 44;
  const parts = [use(suit, (W - big) / 2, (H - big) / 2, big, big, { fill, class: "pip ace" })];
  if (suit === "S") {
    parts.unshift(el("circle", { cx: W / 2, cy: H / 2, r: 33, fill: "none", stroke: fill, "stroke-width": 1 }),
      el("circle", { cx: W / 2, cy: H / 2, r: 30, fill: "none", stroke: fill, "stroke-width": 0.5 }));
  }
  return parts;
}

function court(rank, suit, fill, accent) {
  const fx = 19;
  const fy = 12;
  const fw = 62;
  const fh = 116;
  const half = (turn) => el("g", turn ? { transform: `rotate(180 ${W / 2} ${H / 2})` } : {}, [
    use(rank, fx, fy, fw, fh / 2, { fill, color: accent, class: "figure" }),
    use(suit, fx + 3, fy + 3, 10, 10, { fill, class: "court-suit" }),
  ]);
  return [
    el("rect", { x: fx, y: fy, width: fw, height: fh, rx: 2, fill: "#fdf8ec", stroke: fill, "stroke-width": 1 }),
    half(false),
    half(true),
    el("path", { d: `M${fx} ${H / 2}h${fw}`, stroke: fill, "stroke-width": 0.8 }),
  ];
}

/** The layout a card of `size` CSS pixels wide gets: "mini" (< 36), "small" (< 56) or "full". */
export function layoutFor(size) {
  if (size && size < 36) return "mini";
  if (size && size < 56) return "small";
  return "full";
}

/** The face of card `code` ("AS", "7H", "TD", "QS", "KC") as an <svg> element. */
export function cardFace(code, { fourColour = false, size, label, index } = {}) {
  const rank = code?.[0];
  const suit = code?.[1];
  if (code?.length !== 2 || !RANKS.includes(rank) || !SUITS.includes(suit)) {
    throw new Error(`not a card code: ${code}`);
  }
  const fill = COLOURS[fourColour ? "four" : "two"][suit];
  const accent = ACCENTS[suit];
  const layout = layoutFor(size);
  const shown = index || (rank === "T" ? "10" : rank);
  const svg = frame(`face ${layout}`, size, label);
  svg.dataset.card = code;
  svg.append(paper());
  if (layout === "mini") {
    svg.append(rankText(shown, 50, 65, 62, fill, 80), use(suit, 25, 76, 50, 50, { fill, class: "index-suit" }));
  } else if (layout === "small") {
    svg.append(rankText(shown, 26, 50, 48, fill, 42), use(suit, 12, 58, 28, 28, { fill, class: "index-suit" }),
      use(suit, 42, 72, 52, 52, { fill, class: "pip big" }));
  } else {
    svg.append(...cornerIndices(shown, suit, fill));
    if (rank === "A") svg.append(...ace(suit, fill));
    else if ("JQK".includes(rank)) svg.append(...court(rank, suit, fill, accent));
    else svg.append(...pips(rank === "T" ? 10 : Number(rank), suit, fill));
  }
  return svg;
}

/** The back of a card (our own lattice with the Crisp mark) as an <svg> element. */
export function cardBack({ size, label } = {}) {
  const svg = frame("back", size, label);
  const mini = layoutFor(size) === "mini";
  const ring = layoutFor(size) === "full"; // below, a white ring round the mark reads as a ©
  const inset = mini ? 3 : 5;
  const m = ring ? 36 : 50;
  svg.append(
    paper(),
    use("lattice", inset, inset, W - 2 * inset, H - 2 * inset, { preserveAspectRatio: "none" }),
    el("rect", { x: inset, y: inset, width: W - 2 * inset, height: H - 2 * inset, rx: 4, fill: "none",
      stroke: "#fff", "stroke-width": 4 }),
    el("rect", { x: inset + 4, y: inset + 4, width: W - 2 * inset - 8, height: H - 2 * inset - 8, rx: 3,
      fill: "none", stroke: "#a9c0ee", "stroke-width": mini ? 0 : 0.8 }),
    el("ellipse", { cx: W / 2, cy: H / 2, rx: 24, ry: 32, fill: BLUE, stroke: ring ? "#fff" : "none",
      "stroke-width": 2.5 }),
    use("mark", W / 2 - m / 2, H / 2 - m / 2, m, m, { class: "mark" }),
  );
  return svg;
}
