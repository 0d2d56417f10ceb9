// Crisps! card faces, drawn here: ranks 1 to 9 and the Crisp (X), no suits (CS-DECK). A face is
// markup inside a card element; its text is hidden from assistive tech (the card element carries
// the accessible name), so a face is named only where it is shown.
import { html } from "../../shell/html.js";

// A crisp: a wavy chip, self-made.
const CHIP = html`<svg class="chip" viewBox="0 0 40 40" aria-hidden="true" focusable="false">
  <path d="M20 3c5 0 6 3 10 4s7 5 6 10 2 7-1 11-5 7-10 8-7 2-11 0-8-3-10-7-4-7-3-11 3-8 7-10 7-5 12-5z"></path>
  <path class="ridge" d="M10 16c4-3 8 3 12 0s6-2 8 0M9 23c4-3 8 3 12 0s7-2 10 0"></path></svg>`;

// The corner indices are drawn by the style sheet from data-ix (content: attr(data-ix)): the
// face's only text is its big rank, which the card's name ("7") contains (WCAG 2.5.3, axe's
// label-content-name-mismatch); a Crisp's face has no text at all (its name is "Crisp").
export function faceMarkup(rank) {
  const crisp = rank === "X";
  return html`<span class="csface${crisp ? " x" : ""}" data-card="${rank}" aria-hidden="true">
    <span class="ix" data-ix="${rank}"></span>${crisp ? CHIP : html`<span class="big">${rank}</span>`}<span class="ix low" data-ix="${rank}"></span></span>`;
}
