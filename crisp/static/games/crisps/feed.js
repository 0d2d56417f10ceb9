// The move feed: every public event of Crisps! as a sentence in the reader's language. It names
// the cards every seat may see (plays, the face-up card, the reveal at the round's end) and the
// blind card only in the feed of the seat that got it (CS-SEE-DRAW, CS-SEE-PUBLIC).
import { sentences, t } from "../../i18n.js";
import { comboName, rankWord } from "./combos.js";
import { gotFromDraw } from "./model.js";
import { feedStyle, line, teacher } from "../common/feedline.js";

feedStyle();
const teach = teacher("crisps", () => import("./guide.js"));

export const spaced = (cards) => [...cards].map((c) => rankWord(c)).join(" ");

// The line for `msg`, from the game state before it is applied; null for events that are not
// moves (a turn, a clock). It is kept as the event and told at display time
// (games/common/feedline.js): a language switch re-tells it.
export function describe(g, msg, me) {
  const players = [...(g.players ?? [])];
  teach(players, msg, me);
  return line((icon) => sentence(players, msg, me, icon));
}

// After a load or a reconnect (a state): no lines are rebuilt (the feed starts with the next
// move).
export function feedOf() {
  return [];
}

function sentence(players, msg, me, icon) {
  const name = (seat) => players[seat] ?? `#${seat + 1}`;
  const you = msg.seat === me && me != null;
  const late = msg.timeout ? (you ? t("feed.timeout.you") : t("feed.timeout", { name: name(msg.seat) })) : "";
  switch (msg.type) {
    case "round":
      return msg.starter === me ? t("cs.feed.round.you", { n: msg.round })
        : t("cs.feed.round", { n: msg.round, name: name(msg.starter) });
    case "play": {
      const combo = comboName(msg, "a");
      return sentences(late, you ? t("cs.feed.play.you", { combo }) : t("cs.feed.play", { name: name(msg.seat), combo }));
    }
    case "pass":
      if (msg.skipped) return you ? t("cs.feed.skip.you") : t("cs.feed.skip", { name: name(msg.seat) });
      return sentences(late, you ? t("cs.feed.pass.you") : t("cs.feed.pass", { name: name(msg.seat) }));
    case "draw": {
      const after = msg.new_faceup ? t("cs.feed.newfaceup", { card: icon(rankWord(msg.new_faceup)) })
        : msg.pile === 0 ? t("cs.feed.supplyout") : "";
      return sentences(late, drawLine(msg, me, name, icon), after);
    }
    case "round_end": {
      const vars = { n: msg.round, name: name(msg.winner), a: msg.points[0], b: msg.points[1] };
      const won = msg.winner === me ? t("cs.feed.roundwon.you", vars) : t("cs.feed.roundwon", vars);
      return sentences(won, t("cs.feed.setaside", { cards: spaced(msg.set_aside) }),
        msg.loser_hand ? (1 - msg.winner === me ? t("cs.feed.loserhand.you", { cards: spaced(msg.loser_hand) })
          : t("cs.feed.loserhand", { name: name(1 - msg.winner), cards: spaced(msg.loser_hand) })) : "");
    }
    case "game_over":
      return msg.winner === me ? t("cs.feed.gamewon.you") : t("cs.feed.gamewon", { name: name(msg.winner) });
    default:
      return null;
  }
}

// "Ben took the face-up 8; Ana got the blind card." The blind card is named only to its owner.
function drawLine(msg, me, name, icon) {
  const winner = msg.seat;
  const other = 1 - winner;
  const mine = gotFromDraw(msg, me);
  const card = mine ? icon(rankWord(mine)) : "?";
  if (msg.take == null) {
    return me === 0 || me === 1 ? t("cs.feed.drawboth.you", { card, name: name(1 - me) })
      : t("cs.feed.drawboth", { a: name(winner), b: name(other) });
  }
  const faceup = icon(rankWord(msg.faceup));
  let first;
  let second;
  if (msg.take === "faceup") {
    first = winner === me ? t("cs.feed.tookup.you", { card: faceup }) : t("cs.feed.tookup", { name: name(winner), card: faceup });
    second = other === me ? t("cs.feed.gotblind.you", { card }) : t("cs.feed.gotblind", { name: name(other) });
  } else {
    first = winner === me ? t("cs.feed.tookblind.you", { card }) : t("cs.feed.tookblind", { name: name(winner) });
    second = other === me ? t("cs.feed.gotup.you", { card: faceup }) : t("cs.feed.gotup", { name: name(other), card: faceup });
  }
  return t("cs.feed.draw", { first, second });
}
