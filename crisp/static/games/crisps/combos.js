// Crisps! combinations (docs/rules-crisps.md §3), for naming only: the table names a selection ("Pair of
// 7s", "Run 3–6") and says why a set is no combination. Whether a combination may follow is the
// server's word alone (the `legal` list of the due seat): nothing here decides a follow rule.
import { t } from "../../i18n.js";

export const RANKS = "123456789X"; // CS-RANK: 1 < 2 < … < 9 < Crisp

// A set of cards in rank order (CS-NOTATION): "X" last.
export function sorted(cards) {
  return [...cards].sort((a, b) => RANKS.indexOf(a) - RANKS.indexOf(b)).join("");
}

// The ranks of `hand` less the cards of `cards` (both rank strings), in rank order.
export function without(hand, cards) {
  const left = [...hand];
  for (const c of cards) {
    const i = left.indexOf(c);
    if (i >= 0) left.splice(i, 1);
  }
  return left.join("");
}

function consecutive(ranks, crispIsTen) {
  const pos = ranks.map((r) => (r === "X" ? (crispIsTen ? 9 : 99) : RANKS.indexOf(r)));
  return pos.every((p, i) => i === 0 || p === pos[i - 1] + 1);
}

// CS-COMBO / CS-RUN / CS-CRISP-RUN: {kind, rank, size} or {bad: rule id}.
export function classify(cards, crispRuns = false) {
  const set = sorted(cards);
  const size = set.length;
  if (!size) return { bad: "CS-NOTATION" };
  const counts = new Map();
  for (const c of set) counts.set(c, (counts.get(c) ?? 0) + 1);
  const ranks = [...counts.keys()];
  const rank = set[0];
  if (ranks.length === 1) return { kind: ["single", "pair", "three", "four"][size - 1], rank, size };
  const each = new Set(counts.values());
  const shape = each.size === 1 && each.has(1) && size >= 3 ? "run"
    : each.size === 1 && each.has(2) && ranks.length >= 2 ? "pair_run" : null;
  if (!shape || !consecutive(ranks, true)) return { bad: "CS-COMBO" };
  if (ranks.includes("X") && !crispRuns) return { bad: "CS-CRISP-RUN" };
  return { kind: shape, rank, size };
}

// A rank in words: "7", "Crisp"; `many`: "7s", "Crisps" (as the language says it).
export function rankWord(rank, many = false) {
  if (rank === "X") return t(many ? "cs.crisps" : "cs.crisp");
  return many ? t("cs.many", { r: rank }) : rank;
}

// The highest rank of a run or pair run of `size` cards from `rank`.
function top(kind, rank, size) {
  const n = kind === "run" ? size : size / 2;
  return RANKS[RANKS.indexOf(rank) + n - 1];
}

// A combination's name: "Pair of 7s" (`how` "name"), or as a sentence says it: "a pair of 7s"
// (`how` "a"). `combo`: {kind, rank, size}.
export function comboName(combo, how = "name") {
  const { kind, rank, size } = combo;
  const vars = { r: rankWord(rank), rs: rankWord(rank, true) };
  if (kind === "run" || kind === "pair_run") {
    vars.lo = rankWord(rank);
    vars.hi = rankWord(top(kind, rank, size));
  }
  return t(`combo.${how}.${kind}`, vars);
}
