// Crisp's first-game guide and How to play (games/common/guide.js shows them): the words, from
// the engine messages this seat is sent. Loaded lazily by feed.js on a first game only.
import { language, t } from "../../i18n.js";
import { html } from "../../shell/html.js";
import { gameGuide, mini } from "../common/guide.js";
import { cardName, isRed } from "./cardname.js";

const face = (code) => mini(cardName(code), isRed(code));

export const words = {
  labels: () => ({
    howto: t("guide.howto"),
    skip: t("guide.skip"),
    close: t("menu.close"),
    title: t("guide.howto.title"),
    rules: t("guide.howto.rules"),
    rulesHref: `/static/games/crisp/rules/${language()}.html`,
  }),
  howto: () => html`<ol>
    <li>${t("guide.howto.1")}<span class="cards">${face("7H")}${mini(null)}${face("2S")}</span></li>
    <li>${t("guide.howto.2")}</li>
    <li>${t("guide.howto.3")}<span class="cards">${face("JD")}${face("QS")}${face("KH")}</span></li>
    <li>${t("guide.howto.4")}</li>
    <li>${t("guide.howto.5")}</li></ol>`,
};

// What a drawn court card does, one sentence each (R-JACK, R-QUEEN, R-KING).
const COURT = {
  J: (card) => t("guide.jack", { card }),
  Q: (card) => t("guide.queen", { card }),
  K: (card) => t("guide.king", { card }),
};

export const { start, howto } = gameGuide("crisp", words);

// The tip after `msg` (names: the players, captured when it came).
export function teach(players, msg, me) {
  const g = start();
  if (me == null || g.off) return;
  const name = (seat) => players[seat] ?? `#${seat + 1}`;
  const t0 = Number(msg.t ?? 0);
  switch (msg.type) {
    case "round":
      return g.show(() => t("guide.look"));
    case "turn":
      if (msg.seat !== me) {
        // the next turn comes with the end of yours: while your crisp window runs, it is told
        const mine = (msg.seat - 1 + players.length) % players.length === me;
        if (mine && g.windowUntil != null && g.windowUntil > t0) return g.show((s) => t("guide.window", { s }), g.windowUntil - t0);
        return g.show(() => t("guide.others", { name: name(msg.seat) }));
      }
      if (msg.draw > 1) return g.show(() => t("guide.extra"));
      if (Number(msg.at) > t0) {
        const prev = name((msg.seat - 1 + players.length) % players.length);
        return g.show((s) => t("guide.wait", { name: prev, s }), Number(msg.at) - t0);
      }
      return g.show(() => t("guide.draw"));
    case "draw":
      if (msg.seat !== me || !msg.card) return;
      if (COURT[msg.card[0]]) return g.show(() => COURT[msg.card[0]](cardName(msg.card)));
      return g.show(() => t("guide.held", { card: cardName(msg.card) }));
    case "turn_end":
      g.windowUntil = msg.seat === me && msg.window_until != null ? Number(msg.window_until) : null;
      if (g.windowUntil != null) return g.show((s) => t("guide.window", { s }), g.windowUntil - t0);
      return;
    case "game_over":
      return g.finish();
    default:
  }
}
