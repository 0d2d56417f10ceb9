// Crisp's table as this phone knows it, built from the server's messages only (the game part of
// the model: the shell keeps the room, who you are, the connection and the game clock).
// The memory rule holds here too: a face-down card's face is never kept. The drawn card lives
// in `held` while it is held; a look lives in `looks` or `flash` until the look is over, then it
// is deleted. The feed and the highlights name seats and slots, and public faces only.

export const FLASH_MS = 3000;
export const SLOTS = ["left", "middle", "right"];

export function newGame() {
  return {
    players: [],
    options: { limit: 100, timer: null, take_discard: false },
    totals: [],
    over: false,
    winners: [],
    round: null,
    held: null, // the card this seat holds drawn (R-SEE-DRAWN)
    looks: {}, // slot -> card: the start-of-round look, only while it is open (R-SEE-LOOK)
    flash: {}, // slot -> {card, until}: a Jack's or Queen's look, shown for a moment
    lastReveal: null, // {round, caller, hands, scores, totals}
    history: [], // [{round, scores, totals}]: every finished round (the view's, then each reveal) (R-CUMULATIVE)
    highlight: [], // [{seat, slot}]: the cards the last move touched, until the next move
    revealedAt: 0,
  };
}

function emptyRound(msg) {
  return {
    number: msg.round,
    dealer: msg.dealer,
    first: msg.first,
    deck: msg.deck,
    pile: 0,
    top: null,
    phase: "look",
    lookUntil: msg.look_until,
    ready: [],
    turn: null,
    window: null,
    caller: null,
    final: [],
    hands: null,
    scores: null,
    lastTimeout: null,
  };
}

// A full snapshot (welcome / sync / reconnect): the engine's view for this seat (null: no game).
export function fromView(g, view) {
  g.looks = {};
  g.flash = {};
  g.held = null;
  g.highlight = [];
  if (!view) {
    g.round = null;
    return;
  }
  g.players = view.players;
  g.options = view.options;
  g.totals = view.totals;
  g.over = view.over;
  g.winners = view.winners;
  // the finished rounds, from the server (a reload or a reconnect keeps the whole history)
  if (view.history) g.history = view.history.map((h) => ({ round: h.round, scores: h.scores, totals: h.totals }));
  else if (!g.history.length && view.totals.some((x) => x !== 0)) {
    g.history = [{ round: null, scores: null, totals: view.totals }]; // an older server: totals only
  }
  const r = view.round;
  if (!r) {
    g.round = null;
    return;
  }
  g.round = {
    number: r.round,
    dealer: r.dealer,
    first: r.first,
    deck: r.deck,
    pile: r.pile,
    top: r.top,
    phase: r.phase,
    lookUntil: r.look_until ?? null,
    ready: r.ready ? r.ready.flatMap((ok, seat) => (ok ? [seat] : [])) : [],
    turn: r.turn ? { ...r.turn } : null,
    window: r.window ?? null,
    caller: r.caller,
    final: r.final,
    hands: r.hands ?? null,
    scores: r.scores ?? null,
    lastTimeout: null,
  };
  if (r.phase === "over") {
    g.lastReveal = { round: r.round, caller: r.caller, hands: r.hands, scores: r.scores, totals: view.totals };
  }
  if (r.you) {
    g.held = r.you.card;
    for (const look of r.you.looks) {
      if (look.why === "deal") g.looks[look.slot] = look.card;
      else g.flash[look.slot] = { card: look.card, until: performance.now() + FLASH_MS };
    }
  }
}

// What a move touched, for the highlight that stays until the next move.
function touched(msg) {
  switch (msg.type) {
    case "swap": case "take":
      return [{ seat: msg.seat, slot: msg.slot }];
    case "queen":
      return [{ seat: msg.seat, slot: msg.slot }, { seat: msg.target, slot: msg.target_slot }];
    case "jack":
      return [{ seat: msg.seat, slot: "middle" }];
    default:
      return null;
  }
}

const MOVES = new Set(["draw", "swap", "discard", "jack", "queen", "king", "take", "timeout", "round"]);

// One engine message. Returns nothing; the renderer draws the model afterwards.
export function applyEvent(m, msg, me) {
  const r = m.round;
  if (MOVES.has(msg.type)) m.highlight = touched(msg) || [];
  switch (msg.type) {
    case "game":
      m.players = msg.players;
      m.options = msg.options;
      m.totals = msg.players.map(() => 0);
      m.over = false;
      m.winners = [];
      m.lastReveal = null;
      m.history = [];
      break;
    case "round":
      m.round = emptyRound(msg);
      m.held = null;
      m.looks = {};
      m.flash = {};
      m.lastReveal = null;
      break;
    case "look":
      if (msg.seat !== me) break;
      if (msg.why === "deal") m.looks[msg.slot] = msg.card;
      else m.flash[msg.slot] = { card: msg.card, until: performance.now() + FLASH_MS };
      break;
    case "ready":
      if (r && !r.ready.includes(msg.seat)) r.ready.push(msg.seat);
      if (msg.seat === me) m.looks = {};
      break;
    case "turn":
      if (!r) break;
      if (r.phase === "look") m.looks = {}; // the start look is over
      r.phase = "play";
      r.turn = { seat: msg.seat, draw: msg.draw, left: msg.left, at: msg.at, deadline: msg.deadline,
        holding: false, final: msg.final };
      break;
    case "draw":
      if (!r) break;
      r.deck = msg.deck;
      if (r.turn) r.turn.holding = true;
      if (msg.seat === me && msg.card) m.held = msg.card;
      break;
    case "recycle":
      if (!r) break;
      r.deck = msg.deck;
      r.pile = 0;
      r.top = null;
      break;
    case "swap":
      if (msg.seat === me) delete m.flash[msg.slot]; // that slot holds another card now
    // falls through
    case "discard":
    case "jack":
    case "queen":
    case "king":
      if (!r) break;
      r.top = msg.card;
      r.pile += 1;
      if (r.turn) r.turn.holding = false;
      if (msg.seat === me) m.held = null;
      break;
    case "take":
      if (!r) break;
      r.top = msg.card;
      if (r.turn) r.turn.holding = false;
      if (msg.seat === me) delete m.flash[msg.slot];
      break;
    case "timeout":
      if (!r) break;
      if (msg.card) {
        if (r.turn && !r.turn.holding) r.deck = Math.max(0, r.deck - 1);
        r.top = msg.card;
        r.pile += 1;
      }
      if (r.turn) r.turn.holding = false;
      if (msg.seat === me) m.held = null;
      r.lastTimeout = msg.seat;
      break;
    case "turn_end":
      if (!r) break;
      r.window = msg.window_until == null ? null : { seat: msg.seat, until: msg.window_until };
      r.turn = null;
      break;
    case "window_closed":
      if (r) r.window = null;
      break;
    case "crisp":
      if (!r) break;
      r.caller = msg.seat;
      r.final = msg.final;
      r.window = null;
      break;
    case "reveal":
      if (!r) break;
      r.phase = "over";
      r.turn = null;
      r.window = null;
      r.hands = msg.hands;
      r.scores = msg.scores;
      m.totals = msg.totals;
      m.held = null;
      m.looks = {};
      m.flash = {};
      m.lastReveal = { round: r.number, caller: msg.caller, hands: msg.hands, scores: msg.scores, totals: msg.totals };
      m.revealedAt = performance.now();
      m.history.push({ round: r.number, scores: msg.scores, totals: msg.totals });
      break;
    case "round_story": // the round just revealed, face up (replay.js)
      m.story = msg;
      break;
    case "game_over":
      m.over = true;
      m.winners = msg.winners;
      m.totals = msg.totals;
      break;
    case "clock":
      if (r && r.turn && r.turn.seat === msg.seat) r.turn.deadline = msg.deadline;
      break;
    default:
      break;
  }
}

// What a seat may do now (only legal moves are offered): `seat` (null: a spectator), `now` (the
// game time), `playing` (the room is in a round). Tested against the engine's legal_actions.
// `now`: the game time a tap would arrive at, early (deadlines end on it); `since`: the game time
// of the latest message, late (what may start, starts on it): a tap never arrives too early or late.
export function choices(m, { seat, now, since = now, playing }) {
  const r = m.round;
  const me = seat;
  const out = new Set();
  if (!r || me == null || !playing) return out;
  if (r.phase === "look" && !r.ready.includes(me)) out.add("ready");
  if (r.phase === "play" && r.turn && r.turn.seat === me) {
    if (!r.turn.holding) {
      out.add(since >= r.turn.at ? "draw" : "draw-soon");
      if (m.options.take_discard && r.top && since >= r.turn.at) out.add("take");
    } else if (m.held) {
      const rank = m.held[0];
      if (rank === "K") out.add("king");
      else {
        out.add("discard");
        if (rank === "Q") out.add("queen");
        else if (rank === "J") out.add("jack");
        else out.add("swap");
      }
    }
  }
  if (r.window && r.window.seat === me && r.caller == null && now < r.window.until) out.add("crisp");
  return out;
}
