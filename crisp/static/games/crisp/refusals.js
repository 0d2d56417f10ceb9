// A refused action in words: the rule (docs/engine.md "Refusals and their rule ids"), not a code.
import { t } from "../../i18n.js";
import { refusals } from "../common/refusals.js";

export const ruleSentence = refusals({
  "R-GAME-END": () => t("refuse.gameend"),
  "R-FINAL-TURNS": () => t("refuse.roundover"),
  "R-LOOK-PHASE": () => t("refuse.look"),
  "R-TURN": () => t("refuse.turn"),
  "R-WINDOW": (action) => (action === "crisp" ? t("refuse.windowclosed") : action === "draw" ? t("refuse.drawsoon") : t("refuse.window")),
  "R-DRAW": () => t("refuse.draw"),
  "R-SWAP": () => t("refuse.nocard"),
  "R-DISCARD": () => t("refuse.nocard"),
  "R-JACK": () => t("refuse.notthat"),
  "R-QUEEN": () => t("refuse.notthat"),
  "R-KING": () => t("refuse.notthat"),
  "R-SPECIAL": () => t("refuse.special"),
  "R-QUEEN-TARGET": () => t("refuse.queentarget"),
  "R-OPT-DISCARD": () => t("refuse.take"),
  "R-TAKE-DISCARD": () => t("refuse.take"),
  "R-CRISP-ONCE": () => t("refuse.crisponce"),
  "R-CRISP": () => t("refuse.crisp"),
  "R-WINDOW-NONE": () => t("refuse.windownone"),
});
