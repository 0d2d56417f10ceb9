// Crisp's How to play (games/common/guide.js shows it): its words and card illustrations. Loaded
// lazily by feed.js when it is opened.
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

export const { howto } = gameGuide(words);
