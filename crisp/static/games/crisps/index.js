// Crisps!'s table module, as the shell (games/index.js) expects it.
import * as anim from "./anim.js";
import * as feed from "./feed.js";
import en from "./i18n/en.js";
import * as input from "./input.js";
import * as model from "./model.js";
import * as options from "./options.js";
import * as refusals from "./refusals.js";
import * as results from "./results.js";
import * as table from "./table.js";
import { gameModule } from "../common/module.js";

const ENGINE = new Set(["game", "round", "turn", "play", "pass", "draw", "round_end", "game_over", "clock"]);

export default gameModule({ anim, feed, input, model, options, refusals, results, table }, {
  type: "crisps",
  engine: ENGINE,
  strings: { en, load: (lang) => import(`./i18n/${lang}.js`) },
  feedAcrossRounds: true, // a round follows the last at once: its end stays readable
  // Moments the shell turns into sound, vibration and announcements.
  moment(g, msg, seat) {
    if (msg.type === "turn" && msg.seat === seat && seat != null) return "yourturn";
    if (msg.timeout) return "timeout";
    if (msg.type === "draw") return "draw";
    if (msg.type === "play") return "play";
    return null;
  },
  playing: (g) => Boolean(g.round && !g.over),
  verifier: () => import("./fairness.js"), // "Verify the shuffle" (docs/fairness.md), once over
});
