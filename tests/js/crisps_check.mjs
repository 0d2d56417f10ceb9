// Reads JSON lines on stdin and checks the Crisps! table module (games/crisps/) against the
// engine, without a browser:
//   {"classify": "3345", "crisp_runs": false, "expect": {kind, rank, size} | "CS-COMBO"}
//     the naming classifier (combos.js) against the engine's one classifier;
//   {"seat": s, "msg": {...}}  feeds seat s's client model (model.js) and its feed (feed.js);
//   {"seat": s, "view": {...}, "legal": [...]}  compares seat s's model with the engine's view for
//     that seat, and the moves the table offers with the engine's legal_moves; every legal play,
//     selected, is named by the Play button's words (table.js selectionWords).
// Prints one JSON line: {"checked": n, "lines": n, "mismatches": [...]} (the first 20).
import { createInterface } from "node:readline";

const base = process.argv[2];
// The game's strings, added to the shell's t() as the client does when it loads the game
// (games/index.js loadGame): the feed's sentences are checked in words, not keys.
const { addCatalogue } = await import(`${base}/../../i18n.js`);
const strings = (await import(`${base}/i18n/en.js`)).default;
await addCatalogue("crisps", strings, (lang) => import(`${base}/i18n/${lang}.js`));
const combos = await import(`${base}/combos.js`);
const model = await import(`${base}/model.js`);
const { describe } = await import(`${base}/feed.js`);
const table = await import(`${base}/table.js`);

const games = new Map();
let checked = 0;
let lines = 0;
const mismatches = [];
const fail = (what, detail) => { if (mismatches.length < 20) mismatches.push({ what, ...detail }); };
const FEED = new Set(["round", "play", "pass", "draw", "round_end", "game_over"]);

function keysFor(g, cards) {
  const keys = table.handKeys(g.hand);
  const out = [];
  for (const c of cards) {
    const k = keys.find((x) => x.rank === c && !out.includes(x.key));
    out.push(k.key);
  }
  return out;
}

const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of rl) {
  if (!line.trim()) continue;
  const e = JSON.parse(line);
  if (e.classify !== undefined) {
    const got = combos.classify(e.classify, e.crisp_runs);
    const want = typeof e.expect === "string" ? { bad: e.expect } : e.expect;
    checked += 1;
    if (JSON.stringify(got) !== JSON.stringify(want)) fail("classify", { cards: e.classify, got, want });
    continue;
  }
  if (!games.has(e.seat)) games.set(e.seat, model.newGame());
  const g = games.get(e.seat);
  const me = e.seat === "w" ? null : e.seat;
  if (e.msg) {
    const line = describe(g, e.msg, me); // a feed line (games/common/feedline.js): its words
    const text = line == null ? null : String(line);
    if (FEED.has(e.msg.type)) {
      lines += 1;
      if (!text || text.includes("{") || text.includes("undefined") || text.includes("?")) fail("feed", { msg: e.msg, text });
    } else if (text) fail("feed-extra", { msg: e.msg, text });
    model.applyEvent(g, e.msg, me);
    continue;
  }
  const v = e.view;
  checked += 1;
  const r = g.round;
  const mine = {
    hand: g.hand, hands: r.hands, pile: r.pile, faceup: r.faceup, points: g.points, played: r.played,
    trick: r.trick.map((p) => p.cards), due: r.turn ? [r.turn.seat, r.turn.need, r.turn.deadline] : null, over: g.over,
  };
  const theirs = {
    hand: v.hand ?? "", hands: v.hands, pile: v.pile, faceup: v.faceup, points: v.points, played: v.played,
    trick: v.trick.map((p) => p.cards), due: v.due ? [v.due.seat, v.due.need, v.due.deadline] : null, over: v.over,
  };
  if (JSON.stringify(mine) !== JSON.stringify(theirs)) fail("state", { seat: e.seat, mine, theirs });
  const ctx = { seat: me, room: { phase: v.over ? "over" : "playing" } };
  const offered = [...table.can(g, ctx)].sort();
  const kinds = [...new Set(e.legal.map((a) => (a.do === "draw" ? `take-${a.take}` : a.do)))].sort();
  if (offered.join() !== kinds.join()) fail("choices", { seat: e.seat, offered, kinds });
  // Every legal play, selected, is named on the Play button; a card set not in the list is not.
  for (const a of e.legal.filter((x) => x.do === "play")) {
    g.sel = keysFor(g, a.cards);
    const words = table.selectionWords(g, ctx);
    const play = g.legal.find((p) => p.cards === a.cards);
    if (!words.play || words.play.cards !== a.cards || !play || words.text !== combos.comboName(play)) {
      fail("selection", { seat: e.seat, cards: a.cards, words });
    }
    const named = combos.classify(a.cards, g.options.crisp_runs);
    if (named.kind !== play?.kind || named.rank !== play?.rank || named.size !== play?.size) {
      fail("naming", { cards: a.cards, named, play });
    }
  }
  g.sel = [];
}
console.log(JSON.stringify({ checked, lines, mismatches }));
