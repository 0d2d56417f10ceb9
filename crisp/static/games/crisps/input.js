// Taps on the Crisps! table: a card of your hand toggles it in the selection (kept in the game
// state, so a selection made while the other player thinks survives their move); Play sends the
// selection when it is one of the server's legal plays; Pass and the draw choices send at once.
import { legalPlay } from "./model.js";
import { handKeys, selectedCards, selection } from "./table.js";

export function onAction(action, api) {
  const g = api.g;
  switch (action) {
    case "play": {
      const play = legalPlay(g, selectedCards(g));
      if (play) api.act("play", { cards: play.cards });
      return true;
    }
    case "pass":
      api.act("pass");
      return true;
    case "take-faceup":
      api.act("draw", { take: "faceup" });
      return true;
    case "take-blind":
      api.act("draw", { take: "blind" });
      return true;
    case "cs-clear":
      g.sel = [];
      return true;
    case "cs-reveal-close":
      g.revealClosed = g.lastRound?.round ?? null;
      return true;
    default:
      return false;
  }
}

export function onCard(seat, key, api) {
  const g = api.g;
  if (seat !== api.seat || api.seat == null || g.over || g.round?.over) return;
  if (!handKeys(g.hand).some((c) => c.key === key)) return;
  const sel = selection(g);
  g.sel = sel.includes(key) ? sel.filter((k) => k !== key) : [...sel, key];
}
