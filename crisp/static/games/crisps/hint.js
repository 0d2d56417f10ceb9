// Crisps!'s first-game tip for the state on screen (games/common/guideline.js shows it): what
// may lead, what may follow, what winning a trick gives. Null when the round or the game is over.
import { t } from "../../i18n.js";

export const labels = () => ({ howto: t("cs.guide.howto"), skip: t("cs.guide.skip") });

// the tip for each decision of one's own, each key named whole (the catalogue check reads them)
const NEEDS = {
  lead: () => t("cs.guide.lead"),
  follow: () => t("cs.guide.follow"),
  draw: () => t("cs.guide.draw"),
};

export function hint(g, ctx) {
  const r = g.round;
  const me = ctx.seat;
  if (me == null || ctx.tv || !r || r.over || g.over || !r.turn) return null;
  const turn = r.turn;
  if (turn.seat !== me) return t("cs.guide.others", { name: g.players[turn.seat] ?? `#${turn.seat + 1}` });
  return NEEDS[turn.need]?.() ?? null;
}
