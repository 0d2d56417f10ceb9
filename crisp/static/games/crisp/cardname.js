// Crisp's card names: "7H" -> "7♥", "QS" -> "Q♠" (in French "D♠"); used for labels and text faces.
import { language } from "../../i18n.js";

const RANKS = { A: "A", T: "10", J: "J", Q: "Q", K: "K" };
const COURTS = { fr: { J: "V", Q: "D", K: "R" } }; // Valet, Dame, Roi
const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };

// The rank as the page's language writes it: "10", "7", "Q" (in French "D").
export function rankName(code) {
  return COURTS[language()]?.[code[0]] || RANKS[code[0]] || code[0];
}

export function cardName(code) {
  return rankName(code) + SUITS[code[1]];
}

export function isRed(code) {
  return code[1] === "H" || code[1] === "D";
}
