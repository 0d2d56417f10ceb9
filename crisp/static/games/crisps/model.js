// Crisps! as this phone knows it, built from the server's messages only (docs/protocol.md).
// The memory rule holds here too: the opponent's hand and the pile are counts, never cards; a
// blind card is known only to the seat that got it (CS-SEE-DRAW), and the set-aside cards and
// the loser's hand only once the round is over (CS-SEE-END).
import { sorted, without } from "./combos.js";

export function newGame() {
  return {
    players: [],
    options: { no_faceup: false, crisp_runs: false, auto_skip: false, timer: null },
    points: [0, 0],
    over: false,
    winner: null,
    round: null,
    hand: "", // this seat's own hand, in rank order (CS-SEE-HAND)
    legal: [], // the due seat's legal plays, as the server sent them
    canPass: false,
    take: [], // the draw choices ("faceup", "blind") when this seat's draw is due
    lastRound: null, // {round, winner, set_aside, loser_hand, points}: the last round's reveal
    lastReveal: null, // the same once the game is over (the results frame shows it)
    history: [], // [{round, starter, winner, points}]
  };
}

function freshRound(number, starter) {
  return { number, starter, hands: [12, 12], pile: 11, faceup: null, setAside: 4, trick: [], lastTrick: null,
    played: "", turn: null, over: false };
}

function turnOf(due, timer) {
  if (!due) return null;
  const from = due.deadline != null && timer ? due.deadline - timer : null;
  return { seat: due.seat, need: due.need, deadline: due.deadline ?? null, from };
}

// A full snapshot (welcome / sync / reconnect): the view for this seat (null: no game).
export function fromView(g, view) {
  Object.assign(g, newGame());
  if (!view) return;
  g.players = view.players;
  g.options = { ...g.options, ...view.options };
  g.points = view.points ?? [0, 0];
  g.over = Boolean(view.over);
  g.winner = view.winner ?? null;
  g.history = (view.history ?? []).map((h) => ({ ...h }));
  g.hand = sorted(view.hand ?? "");
  const last = view.last_round;
  if (last) g.lastRound = { round: (view.round ?? 1) - (g.over ? 0 : 1), points: g.points, ...last };
  if (g.over) g.lastReveal = g.lastRound;
  const r = freshRound(view.round, view.starter);
  r.hands = view.hands;
  r.pile = view.pile;
  r.faceup = view.faceup ?? null;
  r.setAside = view.set_aside ?? 4;
  r.trick = (view.trick ?? []).map((p) => ({ ...p }));
  r.played = view.played ?? "";
  r.turn = turnOf(view.due, g.options.timer);
  r.over = g.over;
  g.round = r;
  if (r.turn && view.you != null && r.turn.seat === view.you) setLegal(g, view);
}

function setLegal(g, msg) {
  g.legal = msg.legal ?? [];
  g.canPass = Boolean(msg.can_pass);
  g.take = msg.take ?? (msg.need === "draw" ? ["faceup", "blind"] : []);
}

// The card this seat got from a draw (undefined: none it may know).
export function gotFromDraw(msg, me) {
  if (me == null) return undefined;
  if (msg.take == null) return msg.blind;
  const winnerTookFaceup = msg.take === "faceup";
  return (msg.seat === me) === winnerTookFaceup ? msg.faceup : msg.blind;
}

// One engine message. Returns nothing; the renderer draws the model afterwards.
export function applyEvent(g, msg, me) {
  const r = g.round;
  if (msg.type !== "clock") {
    g.legal = [];
    g.canPass = false;
    g.take = [];
  }
  switch (msg.type) {
    case "game":
      Object.assign(g, newGame());
      g.players = msg.players;
      g.options = { ...g.options, ...msg.options };
      break;
    case "round":
      g.round = freshRound(msg.round, msg.starter);
      Object.assign(g.round, { hands: msg.hands, pile: msg.pile, faceup: msg.faceup ?? null, setAside: msg.set_aside ?? 4 });
      g.points = msg.points ?? g.points;
      g.hand = sorted(msg.hand ?? "");
      g.sel = []; // a new hand: a card chosen in the last one is not one of these
      break;
    case "turn":
      if (!r) break;
      r.turn = turnOf(msg, g.options.timer);
      if (msg.seat === me && me != null) setLegal(g, msg);
      break;
    case "play":
      if (!r) break;
      r.trick.push({ seat: msg.seat, cards: msg.cards, kind: msg.kind, rank: msg.rank, size: msg.size });
      r.hands = msg.hands;
      r.played = sorted(r.played + msg.cards);
      r.turn = null;
      if (msg.seat === me) {
        g.hand = without(g.hand, msg.cards);
        g.sel = []; // played: the copies left are other cards
      }
      break;
    case "pass":
      if (!r) break;
      r.lastTrick = { plays: r.trick, passer: msg.seat, skipped: Boolean(msg.skipped) };
      r.trick = [];
      r.turn = null;
      break;
    case "draw": {
      if (!r) break;
      r.hands = msg.hands;
      r.pile = msg.pile;
      r.faceup = msg.new_faceup ?? null;
      r.turn = null;
      const got = gotFromDraw(msg, me);
      if (got) g.hand = sorted(g.hand + got);
      break;
    }
    case "round_end":
      if (!r) break;
      r.over = true;
      r.turn = null;
      g.points = msg.points;
      g.lastRound = { round: msg.round, winner: msg.winner, set_aside: msg.set_aside, loser_hand: msg.loser_hand,
        points: msg.points };
      g.history.push({ round: msg.round, starter: r.starter, winner: msg.winner, points: msg.points });
      break;
    case "game_over":
      g.over = true;
      g.winner = msg.winner;
      g.points = msg.points;
      g.lastReveal = g.lastRound;
      if (r) r.turn = null;
      break;
    case "clock":
      if (r?.turn && r.turn.seat === msg.seat) r.turn = turnOf(msg, g.options.timer);
      break;
    default:
      break;
  }
}

// What this seat may do now (the server's lists, nothing decided here).
export function choices(g, { seat, playing }) {
  const out = new Set();
  const turn = g.round?.turn;
  if (seat == null || !playing || !turn || turn.seat !== seat || g.over) return out;
  if (turn.need === "draw") {
    for (const take of g.take) out.add(`take-${take}`);
  } else {
    if (g.legal.length) out.add("play");
    if (g.canPass && turn.need === "follow") out.add("pass");
  }
  return out;
}

// The legal play that is exactly the selected cards (null: none).
export function legalPlay(g, cards) {
  const set = sorted(cards);
  return g.legal.find((p) => sorted(p.cards) === set) ?? null;
}
