// Text card faces, until the card art (cardart.js) is there: "7♥" in the suit's
// colour (four colours on request: clubs green, diamonds blue). Legible from 26 px minis up.
import { html } from "../../shell/html.js";
import { language } from "../../i18n.js";
import { cardName, isRed } from "./cardname.js";

// A face as markup: keyed by its code (a new card is a new element, the same card is left alone),
// hidden from assistive technology (the card button's label names it while it may be seen). The
// key holds the language too: after a language switch a face is a new element, drawn again (V/D/R
// in French).
export function faceMarkup(code) {
  return html`<span class="face s${code[1]}${isRed(code) ? " red" : ""}" data-key="f${language()}${code}" data-card="${code}" data-keep
    aria-hidden="true"><span class="txt">${cardName(code)}</span></span>`;
}
