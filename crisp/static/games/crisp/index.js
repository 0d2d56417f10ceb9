// Crisp's table module, as the shell (games/index.js) expects it.
import { animate } from "./anim.js";
import { describe, feedOf } from "./feed.js";
import { onAction, onCard } from "./input.js";
import { applyEvent, fromView, newGame } from "./model.js";
import { DEFAULTS, changedOptions, optionsBody, optionsForm, sameOptions } from "./options.js";
import { ruleSentence } from "./refusals.js";
import { resultsBody, resultsTitle } from "./results.js";
import { Table, can, tick } from "./table.js";

const ENGINE = new Set(["game", "round", "look", "ready", "turn", "draw", "recycle", "swap", "discard", "jack",
  "queen", "king", "take", "timeout", "turn_end", "window_closed", "crisp", "reveal", "game_over", "clock"]);

export default {
  type: "crisp",
  engine: ENGINE,
  newGame,
  fromView,
  apply: applyEvent,
  describe,
  feedOf,
  animate,
  Table,
  tick,
  choices: can,
  onAction,
  onCard,
  options: { defaults: DEFAULTS, form: optionsForm, changed: changedOptions, same: sameOptions, body: optionsBody },
  results: { body: resultsBody, title: resultsTitle },
  ruleSentence,
  // Moments the shell turns into sound, vibration and announcements.
  moment(g, msg, seat) {
    if (msg.type === "turn" && msg.seat === seat && seat != null && msg.draw === 1) return "yourturn";
    if (msg.type === "crisp") return "crisp";
    if (msg.type === "draw") return "draw";
    if (msg.type === "swap" || msg.type === "take" || msg.type === "queen") return "swap";
    if (msg.type === "look" && msg.seat === seat) return "flip";
    if (msg.type === "timeout") return "timeout";
    return null;
  },
  playing(g) {
    return Boolean(g.round && g.round.phase !== "over");
  },
};
