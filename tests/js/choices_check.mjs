// Reads JSON lines on stdin: {"seat": s, "msg": {...}} feeds seat s's client model (the game
// module's reducer, games/crisp/model.js); {"seat": s, "check": {"now": t, "legal": [...]}} asks
// the client's choices() at game time t and compares with the engine's legal action kinds.
// Prints one JSON line: {"checked": n, "mismatches": [...]} (the first 20).
import { createInterface } from "node:readline";

const model = await import(process.argv[2]);
const games = new Map();
let checked = 0;
const mismatches = [];
const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of rl) {
  if (!line.trim()) continue;
  const entry = JSON.parse(line);
  if (!games.has(entry.seat)) games.set(entry.seat, model.newGame());
  const g = games.get(entry.seat);
  if (entry.msg) {
    if (entry.msg.type === "game") games.set(entry.seat, model.newGame());
    model.applyEvent(games.get(entry.seat), entry.msg, entry.seat);
    continue;
  }
  const offered = [...model.choices(g, { seat: entry.seat, now: entry.check.now, playing: true })]
    .filter((x) => x !== "draw-soon")
    .map((x) => (x === "take" ? "take_discard" : x))
    .sort();
  const legal = [...new Set(entry.check.legal)].sort();
  checked += 1;
  if (offered.join() !== legal.join() && mismatches.length < 20) {
    mismatches.push({ seat: entry.seat, now: entry.check.now, offered, legal, round: g.round });
  }
}
console.log(JSON.stringify({ checked, mismatches }));
