// A refused action in words: the CS- rule of docs/rules-crisps.md §10 that it broke, not a code.
import { t } from "../../i18n.js";
import { refusals } from "../common/refusals.js";

export const ruleSentence = refusals({
  "CS-NOTATION": () => t("cs.refuse.notation"),
  "CS-GAME-END": () => t("refuse.gameend"),
  "CS-TURN": () => t("refuse.turn"),
  "CS-OPT-TIMER": () => t("cs.refuse.timer"),
  "CS-OPT-NO-FACEUP": () => t("cs.refuse.nofaceup"),
  "CS-DRAW": () => t("cs.refuse.draw"),
  "CS-LEAD": () => t("cs.refuse.lead"),
  "CS-HAND": () => t("cs.refuse.hand"),
  "CS-CRISP-RUN": () => t("cs.why.crisprun"),
  "CS-COMBO": () => t("cs.why.combo"),
  "CS-SPECIAL": () => t("cs.refuse.special"),
  "CS-FOLLOW": () => t("cs.refuse.follow"),
});
