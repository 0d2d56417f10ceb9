// The move feed: every public event of Crisp as a short sentence in the reader's language, naming
// seats and slots. It names public cards only (a swapped-out card, a discard, the Jack, Queen or
// King played, a card taken from the pile or discarded by a timeout) and never a face-down card's
// face, nor the card a player drew (R-SEE-DRAWN, R-NO-TRACE).
// Each line is kept as its event and told at display time (games/common/feedline.js).
import { t } from "../../i18n.js";
import { feedStyle, line, teacher } from "../common/feedline.js";
import { cardName, isRed } from "./cardname.js";

feedStyle();
const teach = teacher("crisp", () => import("./guide.js"));

const slotName = (slot) => t(`slot.${slot}`);

const CARRIES_CARD = new Set(["swap", "discard", "jack", "queen", "king", "take"]);

// The round's feed after a reload or a reconnect: the view's public moves (without their cards),
// each told as it would have been (a card named "a card"), oldest first.
export function feedOf(g, view, me) {
  return (view?.feed ?? []).map((msg) => ({ text: describe(g, msg, me), mine: msg.seat === me && me != null }))
    .filter((line) => line.text);
}

// The line for `msg`, from the game state before it is applied (a take names the card it took
// from the pile, the pile's top until then); null for events that are not moves.
export function describe(g, msg, me) {
  const players = [...(g.players ?? [])];
  teach(players, msg, me);
  const top = g.round?.top ?? null;
  return line((icon) => sentence(players, top, msg, me, icon));
}

// The sentence in the current language, a card face named by `icon(face, red)`.
function sentence(players, top, msg, me, icon) {
  const name = (seat) => players[seat] ?? `#${seat + 1}`;
  const face = (code) => icon(cardName(code), isRed(code));
  const you = msg.seat === me && me != null;
  // a move rebuilt from a view (feedOf) comes without its card: a face is public at the moment only
  const restored = !("card" in msg) && CARRIES_CARD.has(msg.type);
  const card = msg.card ? face(msg.card) : restored ? t("feed.acard") : "";
  const court = (key) => (restored ? `${key}.nocard` : key); // "used a Jack", not "(a card)"
  switch (msg.type) {
    case "round":
      return msg.dealer === me ? t("feed.round.you", { n: msg.round }) : t("feed.round", { n: msg.round, name: name(msg.dealer) });
    case "ready":
      return you ? t("feed.ready.you") : t("feed.ready", { name: name(msg.seat) });
    case "draw":
      return you ? t("feed.draw.you") : t("feed.draw", { name: name(msg.seat) });
    case "swap":
      return you ? t("feed.swap.you", { slot: slotName(msg.slot), card })
        : t("feed.swap", { name: name(msg.seat), slot: slotName(msg.slot), card });
    case "discard":
      return you ? t("feed.discard.you", { card }) : t("feed.discard", { name: name(msg.seat), card });
    case "jack":
      return you ? t(court("feed.jack.you"), { card }) : t(court("feed.jack"), { name: name(msg.seat), card });
    case "queen": {
      const vars = { name: name(msg.seat), slot: slotName(msg.slot), target: name(msg.target), tslot: slotName(msg.target_slot), card };
      if (you) return t(court("feed.queen.you"), vars);
      if (msg.target === me && me != null) return t(court("feed.queen.onyou"), vars);
      return t(court("feed.queen"), vars);
    }
    case "king":
      return you ? t(court("feed.king.you"), { card }) : t(court("feed.king"), { name: name(msg.seat), card });
    case "take": {
      const vars = { name: name(msg.seat), slot: slotName(msg.slot), card: restored ? card : top ? face(top) : "?", old: card };
      return you ? t("feed.take.you", vars) : t("feed.take", vars);
    }
    case "timeout":
      if (msg.card) return you ? t("feed.timeoutcard.you", { card }) : t("feed.timeoutcard", { name: name(msg.seat), card });
      return you ? t("feed.timeout.you") : t("feed.timeout", { name: name(msg.seat) });
    case "recycle":
      return t("feed.recycle", { n: msg.deck });
    case "crisp":
      return you ? t("feed.crisp.you") : t("feed.crisp", { name: name(msg.seat) });
    case "reveal":
      return t("feed.reveal");
    default:
      return null;
  }
}
