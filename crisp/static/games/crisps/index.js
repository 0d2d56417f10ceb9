// Crisps!'s table module, as the shell (games/index.js) expects it.
import { animate } from "./anim.js";
import { describe } from "./feed.js";
import { onAction, onCard } from "./input.js";
import { applyEvent, fromView, newGame } from "./model.js";
import { DEFAULTS, changedOptions, optionsBody, optionsForm, sameOptions } from "./options.js";
import { ruleSentence } from "./refusals.js";
import { resultsBody, resultsTitle } from "./results.js";
import { Table, can, tick } from "./table.js";

const ENGINE = new Set(["game", "round", "turn", "play", "pass", "draw", "round_end", "game_over", "clock"]);

export default {
  type: "crisps",
  engine: ENGINE,
  newGame,
  fromView,
  apply: applyEvent,
  describe,
  animate,
  Table,
  tick,
  choices: can,
  onAction,
  onCard,
  options: { defaults: DEFAULTS, form: optionsForm, changed: changedOptions, same: sameOptions, body: optionsBody },
  results: { body: resultsBody, title: resultsTitle },
  ruleSentence,
  feedAcrossRounds: true, // a round follows the last at once: its end stays readable
  // Moments the shell turns into sound, vibration and announcements.
  moment(g, msg, seat) {
    if (msg.type === "turn" && msg.seat === seat && seat != null) return "yourturn";
    if (msg.timeout) return "timeout";
    if (msg.type === "draw") return "draw";
    if (msg.type === "play") return "flip";
    return null;
  },
  playing(g) {
    return Boolean(g.round && !g.over);
  },
};
