// The first-game guide's line: a tip under the status line, in the status area (never drawn over
// the table). Each game's hint.js makes the tip from the state the status line is made of, at
// every render, so the two never disagree and the tip goes when its state goes. Skip and How to
// play are handled by games/common/feedline.js (teacher).
import { html } from "../../shell/html.js";
import { guideDone } from "./feedline.js";

// `tip`: the sentence (null: none); `labels`: {howto, skip} in the current language.
export function guideLine(game, tip, labels) {
  if (!tip || guideDone(game)) return "";
  return html`<span class="guide" data-test="guide" data-game="${game}" data-key="guide" aria-live="polite">
    <span class="guide-text" data-test="guide-text">${tip}</span>
    <span class="guide-actions"><button type="button" data-guide="howto" data-test="guide-howto">${labels.howto}</button><button
      type="button" data-guide="skip" data-test="guide-skip">${labels.skip}</button></span></span>`;
}
