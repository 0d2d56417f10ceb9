// The controller (after 2048's GameManager): it owns the model, the connection and the animation
// queue, with the connection and the renderer injected. Messages queue in order: an engine
// message's animation runs first, then the game's reducer, then one render. Taps come back here
// as intents (act, send, ui changes); a tap that cannot be sent is refused aloud, never queued.
// An action sent stays pending until the game's answer (or a refusal) arrives: a connection that
// dies first sends it again on the next one, with its first `v` (docs/protocol.md, Versions: a copy
// the server already applied is refused `stale`, and the new state shows it done).
import { answerProbe, SeedSender } from "../fairseed.js";
import { t } from "../i18n.js";
import { COUNTDOWN, gameNow, newClock, syncClock } from "./clock.js";

const SLOW_MS = 1000; // an answer later than this: the page says the link is slow
const RECHECK_MS = 6000; // no answer on a live link: a fresh state, then the action again
// A game message that is not the answer to a seat's own action, though it names that seat.
const NOT_ANSWERS = new Set(["turn", "look", "clock"]);
// A game message after which no earlier action of anyone's is still on its way.
const ROUND_ENDS = new Set(["reveal", "round", "round_end", "game_over"]);

export function newModel(code, { tv = false } = {}) {
  return {
    code,
    tv,
    room: null, // the last "room" message
    you: { member: null, seat: null, host: false, name: null },
    conn: "connecting",
    everOpen: false,
    clock: newClock(),
    v: 0,
    game: null, // the game's own state (games/index.js)
    options: null, // the lobby options the controls show
    optionsSent: null, // the host's last options change, until a "room" carries it
    ui: {}, // the game's input mode (e.g. a card chosen, waiting for a second)
    shell: {}, // the shell's: {scores, feedOpen, confirmKick, qrBig}
    pending: null, // {action, at, msg, slow, resent}: a tap sent, waiting for the server
    feed: [], // this round's lines: {id, text, mine}
    toasts: [], // {id, text, kind}
    practice: null, // {level, bots}: add the bots, then start
  };
}

export class Controller {
  constructor({ model, connection, renderer, loadGame, effects = {} }) {
    this.model = model;
    this.conn = connection;
    this.renderer = renderer;
    this.loadGame = loadGame;
    this.effects = effects; // {sound(name), buzz(pattern), announce(text), keepAwake(on), stored(key, value)}
    this.game = null;
    this.queue = Promise.resolve();
    this.lineId = 0;
    this.toastId = 0;
    this.seeds = new SeedSender((msg) => this.conn.send(msg)); // the commit–reveal shuffle
  }

  start() {
    this.conn.addEventListener("status", (event) => this.onStatus(event.detail));
    this.conn.addEventListener("message", (event) => {
      const { msg, arrived } = event.detail;
      if (answerProbe(msg, (ack) => this.conn.send(ack))) return; // at once: R-WINDOW-LAG
      this.queue = this.queue.then(() => this.handle(msg, arrived)).catch((err) => console.warn(err));
    });
    if (!this.conn.opened) this.conn.open();
    this.conn.resume();
  }

  stop() {
    this.conn.stop();
  }

  get online() {
    return this.model.conn === "open" || this.model.conn === "stalled"; // stalled: sends still go out
  }

  onStatus(status) {
    const m = this.model;
    const was = m.conn;
    m.conn = status;
    if (status === "open") {
      if (m.everOpen && was !== "open" && was !== "stalled") this.toast(t("conn.back"), "ok");
      m.everOpen = true;
    } else if (status !== "connecting" && status !== "stalled" && !m.pending?.msg) {
      this.settle(); // a lobby intent: its answer cannot come now (an action is sent again)
    }
    if (status.startsWith("closed-")) {
      this.effects.closed?.(status);
      return;
    }
    this.render();
  }

  // -- messages ---------------------------------------------------------------------------------

  async handle(msg, arrived = performance.now()) {
    const m = this.model;
    if (typeof msg.v === "number" && msg.type !== "error") m.v = Math.max(m.v, msg.v);
    if (msg.type === "room") await this.ensureGame(msg.game_type);
    const game = this.game;
    if (game && game.engine.has(msg.type)) {
      await this.engineMessage(game, msg, arrived);
    } else if (msg.type === "welcome") {
      m.clock.speed = msg.clock_speed;
      m.you = msg.you;
      m.optionsSent = null; // a new connection: the room that follows is the truth
    } else if (msg.type === "room") {
      this.onRoom(msg);
    } else if (msg.type === "state") {
      if (!game) await this.ensureGame(m.room?.game_type);
      m.you = msg.you;
      syncClock(m.clock, msg.now, arrived);
      this.game.fromView(m.game, msg.view);
      this.restoreFeed(msg.view);
      m.ui = {};
      this.resend();
    } else if (msg.type === "error") {
      this.onError(msg);
    } else if (msg.type === "left") {
      this.effects.left?.();
      return;
    }
    this.render();
  }

  async ensureGame(type) {
    if (this.game && (type == null || this.game.type === type)) return;
    this.game = await this.loadGame(type ?? undefined); // none: the registry's first game
    this.model.game = this.game.newGame();
    if (!this.model.options) this.model.options = { ...this.game.options.defaults };
  }

  async engineMessage(game, msg, arrived) {
    const m = this.model;
    const seat = m.you.seat;
    const line = game.describe(m.game, msg, seat);
    if (this.renderer.visible()) {
      await game.animate({ you: { seat }, players: m.game.players, round: m.game.round }, msg, arrived);
    }
    syncClock(m.clock, msg.t, arrived);
    game.apply(m.game, msg, seat);
    if (msg.type === "round" && !game.feedAcrossRounds) m.feed = [];
    if (line) this.addLine(line, msg.seat === seat && seat != null);
    const answer = msg.seat === seat && seat != null && !NOT_ANSWERS.has(msg.type) && !game.notAnswers?.has(msg.type);
    if (answer || ROUND_ENDS.has(msg.type)) this.settle();
    if (["turn", "turn_end", "reveal", "round"].includes(msg.type)) m.ui = {};
    const moment = game.moment(m.game, msg, seat);
    if (moment) this.effects.moment?.(moment, msg);
    if (moment === "timeout") this.toast(line, "warn");
    if (moment === "yourturn") this.effects.announce?.(t("announce.yourturn"));
    if (moment === "call") this.effects.announce?.(line);
    if (msg.type === "look" && msg.seat === seat && msg.why !== "deal") setTimeout(() => this.render(), 3050);
  }

  // After a reload (an empty feed) or a reconnect that missed moves: the round's feed from the
  // view. A page that saw every move keeps its own lines (they name the public cards).
  restoreFeed(view) {
    const lines = this.game.feedOf?.(this.model.game, view, this.model.you.seat);
    if (!lines || lines.length <= this.model.feed.length) return;
    this.model.feed = [];
    for (const line of lines) this.addLine(line.text, line.mine);
  }

  addLine(text, mine) {
    this.lineId += 1;
    this.model.feed.push({ id: this.lineId, text, mine });
    if (this.model.feed.length > 200) this.model.feed.shift();
  }

  onRoom(msg) {
    const m = this.model;
    m.room = msg;
    this.seeds.onRoom(msg, m.you); // a fresh client seed for each commitment, in the lobby
    if (["start", "continue", "rematch", "leave"].includes(m.pending?.action)) m.pending = null;
    const mine = msg.members.find((x) => x.id === m.you.member);
    if (mine) m.you = { ...m.you, seat: msg.phase === "lobby" ? null : mine.seat, host: mine.host, name: mine.name };
    if (msg.phase === "lobby") this.takeOptions(msg.options);
    this.effects.keepAwake?.(msg.phase === "playing" || msg.phase === "between");
    if (m.practice && msg.phase === "lobby" && m.you.host) this.practiceStep(msg);
  }

  // Practice against the computer: the bots are asked for once, then the game starts as soon as
  // they are seated.
  practiceStep(room) {
    const p = this.model.practice;
    const bots = room.members.filter((x) => x.bot).length;
    if (!p.asked) {
      p.asked = true;
      for (let i = bots; i < p.bots; i++) this.conn.send({ type: "add_bot", level: p.level });
    } else if (bots >= p.bots) {
      this.model.practice = null;
      this.conn.send({ type: "start" });
    }
  }

  // The host's last change stands until a "room" carries it: the answer to an earlier change, still
  // on its way, must neither flick the controls back nor become the base of the next change.
  takeOptions(options) {
    const m = this.model;
    const sent = m.optionsSent;
    if (sent && this.game && !this.game.options.same(options, sent)) return;
    m.optionsSent = null;
    m.options = options;
  }

  onError(msg) {
    const m = this.model;
    const sent = m.pending;
    if (msg.about === "act" || !sent?.msg) this.settle();
    m.ui = {};
    if (msg.code === "stale" && sent?.resent) return; // the copy sent again: the first one was applied
    if (msg.code === "stale" || msg.code === "bad_version") {
      this.conn.send({ type: "sync" });
      this.toast(t("refuse.stale"), "warn");
      return;
    }
    console.info("refused:", msg.code, msg.rule || "", msg.message);
    if (msg.about === "options" && m.room) {
      m.optionsSent = null; // not taken: the controls show the room's options again
      m.options = m.room.options;
    }
    const words = (msg.rule && this.game?.ruleSentence(msg.rule, sent?.action)) || REFUSALS[msg.code]?.() || msg.message;
    this.toast(t("refuse.said", { why: words }), "error");
  }

  // -- intents from the page --------------------------------------------------------------------

  send(msg) {
    if (this.conn.send(msg)) return true;
    this.toast(t("conn.notsent"), "error");
    this.render();
    return false;
  }

  act(action, fields = {}) {
    const m = this.model;
    const msg = { type: "act", v: m.v, do: action, ...fields };
    if (!this.send(msg)) return false;
    m.ui = {};
    const pending = { action, at: performance.now(), msg, slow: false, resent: false };
    m.pending = pending;
    this.conn.setAwaiting?.(true);
    setTimeout(() => {
      if (m.pending !== pending) return;
      pending.slow = true;
      this.render();
    }, SLOW_MS);
    this.recheck(pending);
    return true;
  }

  // No answer on a link that still answers pings: a fresh state, after which the action goes again.
  recheck(pending) {
    setTimeout(() => {
      if (this.model.pending !== pending) return;
      if (this.conn.status === "open") this.conn.send({ type: "sync" });
      this.recheck(pending);
    }, RECHECK_MS);
  }

  // A state replaced the page's view (a new connection, or a sync): the action still pending goes
  // again with its first `v`, so that it is applied once whether or not the first copy arrived.
  resend() {
    const pending = this.model.pending;
    if (!pending?.msg) return this.settle();
    if (this.conn.send(pending.msg)) pending.resent = true;
  }

  // The pending action is answered (applied, refused, or moot).
  settle() {
    this.model.pending = null;
    this.conn.setAwaiting?.(false);
  }

  setOptions(options) {
    const m = this.model;
    if (!this.send({ type: "options", ...this.game.options.body(options) })) return;
    m.options = options; // a second change before the server's "room" must not undo this one
    m.optionsSent = options;
  }

  toast(text, kind = "info", ms = 3500) {
    if (!text) return;
    this.toastId += 1;
    const id = this.toastId;
    this.model.toasts = [...this.model.toasts.slice(-2), { id, text, kind }];
    setTimeout(() => {
      this.model.toasts = this.model.toasts.filter((x) => x.id !== id);
      this.render();
    }, ms);
  }

  ctx() {
    const m = this.model;
    return {
      seat: m.you.seat,
      host: m.you.host,
      room: m.room,
      now: () => gameNow(m.clock) + ((this.conn.rttMs ?? 0) + COUNTDOWN.marginMs) / 1000 * m.clock.speed,
      since: () => gameNow(m.clock), // what may start: on the latest message's time, never early
      speed: m.clock.speed,
      ui: m.ui,
      online: this.online,
      pending: m.pending?.action ?? null,
      pendingMove: m.pending?.msg ?? null, // the action's own fields, as sent
      pendingNote: m.pending ? (m.pending.slow ? t("pending.slow") : t("pending.sending")) : "",
      tv: m.tv,
      feed: m.feed,
      feedOpen: Boolean(m.shell.feedOpen),
    };
  }

  render() {
    this.renderer.render(this);
  }
}

const REFUSALS = {
  forbidden: () => t("refuse.forbidden"),
  bad_phase: () => t("refuse.phase"),
  rate_limited: () => t("refuse.rate"),
  internal: () => t("refuse.internal"),
  not_found: () => t("refuse.notfound"),
};
