// Card faces: the art of cardart.js when it is there (a guarded dynamic import, so
// that dropping the file in later just works), else the text faces of cardfallback.js. The text
// stays in the face (hidden under the art) so that a face's name is in the page exactly while
// the face is shown.
import { rankName } from "./cardname.js";
export { faceMarkup } from "./cardfallback.js";

let art = null;
let asked = false;

// The art is asked for when the first face is drawn (not on the first load of the lobby); the
// faces drawn before it arrives get it at the next update.
function loadArt() {
  asked = true;
  import("./cardart.js").then((m) => { art = m; }).catch(() => { art = null; });
}

export function fourColour() {
  return localStorage.getItem("crisp.fourcolour") === "on";
}

// The four-colour deck (the results menu's setting), kept in localStorage "crisp.fourcolour": the
// text faces take it from the page's class "four", the art when a face is drawn.
export function setFourColour(on) {
  localStorage.setItem("crisp.fourcolour", on ? "on" : "off");
  document.body.classList.toggle("four", on);
}

if (globalThis.document?.body) document.body.classList.toggle("four", fourColour());

// After a patch: every face not drawn yet gets its art (once: a face element is kept as long as
// its card stays, so it is not drawn again), in the layout its width calls for (a 30 px results
// card gets the large index, not pips it is too small to show), with the rank in the page's
// language (V, D, R in French).
export function hydrate(root) {
  // The results panel (the round's hands, patched by the shell beside the table) too.
  const roots = [root, root.ownerDocument?.querySelector(".results")].filter(Boolean);
  const faces = roots.flatMap((r) => [...r.querySelectorAll("span.face[data-card]:not(.art)")]); // not the <svg>
  if (!asked && faces.length) loadArt();
  if (!art?.cardFace) return;
  for (const el of faces) {
    try {
      const size = el.offsetWidth || undefined; // its layout width (a flip animation turns its box)
      const svg = art.cardFace(el.dataset.card, { fourColour: fourColour(), size, index: rankName(el.dataset.card) });
      svg.setAttribute("aria-hidden", "true");
      el.classList.add("art");
      el.append(svg);
    } catch {
      // a face the art cannot draw keeps its text
    }
  }
}

// The art on the faces of a screen drawn once (the front door's): loads the art, then draws it.
export async function hydrateSoon(root) {
  if (!art) {
    asked = true;
    art = await import("./cardart.js").catch(() => null);
  }
  hydrate(root);
}
