// Crisps!'s first-game guide and How to play (games/common/guide.js shows them): the words, from
// the engine messages this seat is sent. Loaded lazily by feed.js on a first game only.
import { language, t } from "../../i18n.js";
import { html } from "../../shell/html.js";
import { gameGuide, mini } from "../common/guide.js";

export const words = {
  labels: () => ({
    howto: t("cs.guide.howto"),
    skip: t("cs.guide.skip"),
    close: t("menu.close"),
    title: t("cs.guide.howto.title"),
    rules: t("cs.guide.howto.rules"),
    rulesHref: `/static/games/crisps/rules/${language()}.html`,
  }),
  howto: () => html`<ol>
    <li>${t("cs.guide.howto.1")}</li>
    <li>${t("cs.guide.howto.2")}<span class="cards">${mini("3")}${mini("3")} → ${mini("5")}${mini("5")}</span></li>
    <li>${t("cs.guide.howto.3")}<span class="cards">${mini("4")}${mini("5")}${mini("6")} → ${mini("6")}${mini("7")}${mini("8")}</span></li>
    <li>${t("cs.guide.howto.4")}<span class="cards">${mini("X")} → ${mini("2")}${mini("2")}${mini("2")}</span></li>
    <li>${t("cs.guide.howto.5")}</li></ol>`,
};

export const { start, howto } = gameGuide("crisps", words);

export function teach(players, msg, me) {
  const g = start();
  if (me == null || g.off) return;
  const name = (seat) => players[seat] ?? `#${seat + 1}`;
  switch (msg.type) {
    case "turn":
      if (msg.seat !== me) return g.show(() => t("cs.guide.others", { name: name(msg.seat) }));
      if (msg.need === "lead") return g.show(() => t("cs.guide.lead"));
      if (msg.need === "follow") return g.show(() => t("cs.guide.follow"));
      if (msg.need === "draw") return g.show(() => t("cs.guide.draw"));
      return;
    case "game_over":
      return g.finish();
    default:
  }
}
