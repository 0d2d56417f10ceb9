// Crisps!'s How to play (games/common/guide.js shows it): its words and card illustrations.
// Loaded lazily by feed.js when it is opened.
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

export const { howto } = gameGuide(words);
