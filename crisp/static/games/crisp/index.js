// Crisp's table module, as the shell (games/index.js) expects it.
import * as anim from "./anim.js";
import { setFourColour } from "./cards.js";
import * as feed from "./feed.js";
import en from "./i18n/en.js";
import * as input from "./input.js";
import * as model from "./model.js";
import * as options from "./options.js";
import * as refusals from "./refusals.js";
import * as results from "./results.js";
import * as table from "./table.js";
import { gameModule } from "../common/module.js";

const ENGINE = new Set(["game", "round", "look", "ready", "turn", "draw", "recycle", "swap", "discard", "jack",
  "queen", "king", "take", "timeout", "turn_end", "window_closed", "crisp", "reveal", "game_over", "clock", "round_story"]);

export default gameModule({ anim, feed, input, model, options, refusals, results, table }, {
  type: "crisp",
  engine: ENGINE,
  strings: { en, load: (lang) => import(`./i18n/${lang}.js`) },
  // Moments the shell turns into sound, vibration and announcements; a crisp is called aloud.
  moment(g, msg, seat) {
    if (msg.type === "turn" && msg.seat === seat && seat != null && msg.draw === 1) return "yourturn";
    if (msg.type === "crisp") return "call";
    if (msg.type === "draw") return "draw";
    if (msg.type === "discard" || msg.type === "jack" || msg.type === "king") return "play";
    if (msg.type === "swap" || msg.type === "take" || msg.type === "queen") return "swap";
    if (msg.type === "look" && msg.seat === seat) return "flip";
    if (msg.type === "timeout") return "timeout";
    return null;
  },
  playing: (g) => Boolean(g.round && g.round.phase !== "over"),
  // Messages that name a seat without answering its action: a crisp call still on its way when
  // its window closes is answered by the call or by its refusal.
  notAnswers: new Set(["turn_end", "window_closed"]),
  // A Jack's or Queen's look is shown for a moment (model.js FLASH_MS), then goes.
  expire(g, now) {
    const past = Object.entries(g.flash).filter(([, f]) => f.until <= now);
    for (const [slot] of past) delete g.flash[slot];
    return past.length > 0;
  },
  // The menu's settings of Crisp's own: the four-colour deck.
  onSetting(name, el) {
    if (name !== "fourcolour") return false;
    setFourColour(el.checked);
    return true;
  },
  // "Verify the shuffle" (docs/fairness.md): asked for once a game is over.
  verifier: () => import("./fairness.js"),
  // "Replay the round": replay.js, loaded at the first tap.
  onAction(action, api) {
    if (action === "replay") {
      import("./replay.js").then((m) => m.onAction(action, api)).catch(() => {});
      return true;
    }
    return input.onAction(action, api);
  },
});
