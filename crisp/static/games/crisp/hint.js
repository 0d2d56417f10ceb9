// Crisp's first-game tip for the state on screen (games/common/guideline.js shows it): what to do
// now, what the card you hold does (while its choice is made too), whose crisp window runs. Null
// when there is nothing to teach (the round over, a spectator).
import { t } from "../../i18n.js";
import { cardName } from "./cardname.js";

const COURT = { J: "guide.jack", Q: "guide.queen", K: "guide.king" };

export const labels = () => ({ howto: t("guide.howto"), skip: t("guide.skip") });

// `acts`: the moves open to this seat now (table.js can()).
export function hint(g, ctx, acts) {
  const r = g.round;
  const me = ctx.seat;
  if (me == null || ctx.tv || !r || (ctx.ui.mode && !g.held)) return null; // a choice: the status says it
  if (r.phase === "look") return r.ready.includes(me) ? null : t("guide.look");
  if (r.phase !== "play") return null;
  const name = (seat) => g.players[seat] ?? `#${seat + 1}`;
  const turn = r.turn;
  if (turn?.seat === me) {
    if (g.held) return t(COURT[g.held[0]] ?? "guide.held", { card: cardName(g.held) });
    if (Number(turn.at) > ctx.now()) return t("guide.wait", { name: name((me - 1 + g.players.length) % g.players.length) });
    if (!acts.has("draw")) return null;
    return turn.draw > 1 ? t("guide.extra") : t("guide.draw");
  }
  if (r.window?.seat === me && acts.has("crisp")) return t("guide.window");
  return turn ? t("guide.others", { name: name(turn.seat) }) : null;
}
