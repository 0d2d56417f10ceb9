// The Crisps! table: mount(el) / update(model, ctx) / unmount(). Each update patches the markup
// into the table's element (shell/morph.js): only what changed is touched. Your hand is a fan in
// rank order; tapped cards are the selection, which the Play button names from the server's
// `legal` list (a selection that is not in it says why, in words).
import { sentences, t } from "../../i18n.js";
import { cls, html } from "../../shell/html.js";
import { feedBlock, tableOf, timerMarkup } from "../common/table.js";
import { guideLine } from "../common/guideline.js";
import { hint, labels } from "./hint.js";
export { tick } from "../common/table.js";
import { faceMarkup } from "./cards.js";
import { classify, comboName, rankWord, sorted } from "./combos.js";
import { choices, legalPlay } from "./model.js";

const LOW_SECONDS = 10;
export const TARGET = 3; // CS-GAME-END

const nameOf = (g, seat) => g.players[seat] ?? `#${seat + 1}`;
const memberOfSeat = (ctx, seat) => ctx.room?.members.find((x) => x.seat === seat);

export function can(g, ctx) {
  return choices(g, { seat: ctx.seat, playing: ctx.room?.phase === "playing" });
}

// The hand as keyed cards: "7.0", "7.1" (a rank and its copy number), in rank order.
export function handKeys(hand) {
  const seen = {};
  return [...hand].map((rank) => {
    seen[rank] = (seen[rank] ?? 0) + 1;
    return { rank, key: `${rank}.${seen[rank] - 1}` };
  });
}

export function selection(g) {
  const keys = new Set(handKeys(g.hand).map((c) => c.key));
  return (g.sel ?? []).filter((k) => keys.has(k));
}

export const selectedCards = (g) => sorted(selection(g).map((k) => k[0]).join(""));

const lastPlay = (g) => g.round?.trick.at(-1) ?? null;

function prevWords(g, ctx) {
  const prev = lastPlay(g);
  if (!prev) return null;
  const combo = comboName(prev, "a");
  return prev.seat === ctx.seat ? t("cs.yourcombo", { combo }) : t("cs.theircombo", { name: nameOf(g, prev.seat), combo });
}

// The selection in words: {text, play} (play: the legal play it is, else null).
export function selectionWords(g, ctx) {
  const cards = selectedCards(g);
  if (!cards) return { text: "", play: null };
  const turn = g.round?.turn;
  const mine = turn && turn.seat === ctx.seat;
  const combo = classify(cards, g.options.crisp_runs);
  if (combo.bad) {
    const why = combo.bad === "CS-CRISP-RUN" ? t("cs.why.crisprun") : t("cs.why.combo");
    return { text: t("cs.sel.bad", { why }), play: null };
  }
  const name = comboName(combo);
  if (!mine || g.over || g.round?.over) return { text: t("cs.sel.wait", { combo: name }), play: null };
  if (turn.need === "draw") return { text: t("cs.sel.drawfirst", { combo: name }), play: null };
  const play = legalPlay(g, cards);
  if (play) return { text: t("cs.sel.ok", { combo: comboName(play) }), play };
  const prev = lastPlay(g);
  if (prev) return { text: t("cs.sel.nofollow", { combo: name, prev: comboName(prev, "a") }), play: null };
  return { text: t("cs.sel.notnow", { combo: name }), play: null };
}

function pips(points) {
  const p = Math.min(points ?? 0, TARGET);
  return html`<span class="cs-pips" role="img" aria-label="${t("cs.points", { n: points ?? 0, m: TARGET })}">${
    Array.from({ length: TARGET }, (_, i) => html`<i class="${i < p ? "on" : ""}"></i>`)}</span>`;
}

function seatBox(g, ctx, seat) {
  const r = g.round;
  const member = memberOfSeat(ctx, seat);
  const turn = r?.turn?.seat === seat;
  const bot = member?.bot || member?.stand_in;
  const connected = member ? member.connected || Boolean(bot) : false;
  const n = r?.hands?.[seat] ?? 0;
  return html`<div class="${cls({ seat: true, "cs-seat": true, turn, offline: !connected })}" data-test="seat" data-seat="${seat}"
    data-key="s${seat}" data-connected="${connected}">
    <div class="who">
      ${member?.bot ? "" : html`<span class="dot ${connected ? "on" : "off"}" aria-hidden="true"></span>`}
      <span class="name">${member?.bot ? nameOf(g, seat).replace(/\s*\(bot\)$/, "") : nameOf(g, seat)}</span>
      ${turn ? html`<span class="marker" role="img" aria-label="${t("table.turnmark")}">▶</span>` : ""}
      ${bot ? html`<span class="tag bot" role="img" aria-label="${t("bot.tag", { level: t(`botlevel.${bot}`) })}">🤖</span>` : ""}
      ${connected ? "" : html`<span class="tag off" data-test="seat-offline">${member?.absent ? t("seat.away") : t("lobby.offline")}</span>`}
      ${pips(g.points[seat])}
    </div>
    <div class="cs-backs" data-test="opp-hand" role="img" aria-label="${t("cs.handcount", { name: nameOf(g, seat), n })}">
      ${Array.from({ length: Math.min(n, 10) }, () => html`<i></i>`)}<span class="count" aria-hidden="true">${n}</span></div>
  </div>`;
}

function playMarkup(g, ctx, play, k) {
  const who = play.seat === ctx.seat ? t("table.you") : nameOf(g, play.seat);
  return html`<li data-key="p${k}" class="${cls({ last: k === g.round.trick.length - 1 })}">
    <span class="who">${who}</span>
    <span class="cs-cards small" aria-hidden="true">${[...play.cards].map((c) => html`<span class="cs-card up">${faceMarkup(c)}</span>`)}</span>
    <span class="what">${comboName(play)}</span></li>`;
}

export function trickMarkup(g, ctx) {
  const r = g.round;
  if (r.trick.length) {
    return html`<section class="cs-trick" data-test="trick" aria-label="${t("cs.trick")}">
      <ol>${r.trick.map((p, k) => playMarkup(g, ctx, p, k))}</ol></section>`;
  }
  const last = r.lastTrick;
  const text = !last ? t("cs.trick.empty")
    : last.skipped ? (last.passer === ctx.seat ? t("cs.trick.skipped.you") : t("cs.trick.skipped", { name: nameOf(g, last.passer) }))
      : last.passer === ctx.seat ? t("cs.trick.passed.you") : t("cs.trick.passed", { name: nameOf(g, last.passer) });
  return html`<section class="cs-trick empty" data-test="trick" aria-label="${t("cs.trick")}"><p>${text}</p></section>`;
}

function supplyMarkup(g) {
  const r = g.round;
  const up = r.faceup
    ? html`<div class="cs-card up big" role="img" data-test="faceup" data-key="fu${r.faceup}"
        aria-label="${t("cs.faceup", { card: rankWord(r.faceup) })}">${faceMarkup(r.faceup)}</div>`
    : html`<div class="cs-card big empty" role="img" data-test="faceup" data-key="fu-none"
        aria-label="${g.options.no_faceup ? t("cs.nofaceup") : t("cs.faceupnone")}"></div>`;
  return html`<section class="cs-supply" aria-label="${t("cs.supply")}">
    <div>${up}<span class="count">${t("cs.faceup.short")}</span></div>
    <div><div class="cs-card big down" role="img" data-test="pile" aria-label="${t("cs.pile", { n: r.pile })}"></div>
      <span class="count">${t("cs.pile.short", { n: r.pile })}</span></div>
    <div><div class="cs-card big down aside" role="img" aria-label="${t("cs.aside", { n: r.setAside })}"></div>
      <span class="count">${t("cs.aside.short", { n: r.setAside })}</span></div>
  </section>`;
}

function cardsRow(cards) {
  return html`<span class="cs-cards small">${[...cards].map((c) => html`<span class="cs-card up" role="img"
    aria-label="${rankWord(c)}">${faceMarkup(c)}</span>`)}</span>`;
}

// The last round's end, face up (CS-SEE-END): the four set-aside cards and the loser's hand.
export function revealMarkup(g, { closable = true, seat = null } = {}) {
  const last = g.lastRound;
  if (!last) return "";
  const loser = 1 - last.winner;
  return html`<section class="cs-reveal" data-test="reveal" data-key="reveal${last.round}" aria-label="${t("cs.reveal.title", { n: last.round })}">
    <p><strong>${t(last.winner === seat ? "cs.reveal.won.you" : "cs.reveal.won", { n: last.round, name: nameOf(g, last.winner), a: last.points[0], b: last.points[1] })}</strong></p>
    <p>${t("cs.reveal.aside")} ${cardsRow(last.set_aside)}</p>
    <p>${loser === seat ? t("cs.reveal.hand.you") : t("cs.reveal.hand", { name: nameOf(g, loser) })} ${last.loser_hand ? cardsRow(last.loser_hand) : t("table.empty")}</p>
    ${closable ? html`<button class="small" data-action="cs-reveal-close" data-test="reveal-close">${t("menu.close")}</button>` : ""}
  </section>`;
}

export function statusText(g, ctx) {
  const r = g.round;
  if (!r) return "";
  if (g.over || r.over) return "";
  const turn = r.turn;
  if (!turn) return "";
  const prev = prevWords(g, ctx);
  if (ctx.seat == null || turn.seat !== ctx.seat) {
    const name = nameOf(g, turn.seat);
    if (turn.need === "draw") return t("cs.status.theirdraw", { name });
    if (turn.need === "lead") return t("cs.status.theirlead", { name });
    return t("cs.status.theirfollow", { name, prev });
  }
  if (turn.need === "draw") {
    return r.faceup ? t("cs.status.draw", { card: rankWord(r.faceup) }) : t("cs.status.drawblind");
  }
  if (turn.need === "lead") return t("cs.status.lead");
  return t("cs.status.follow", { prev });
}

function actionButtons(g, ctx, words) {
  if (ctx.tv || ctx.seat == null) return "";
  const acts = can(g, ctx);
  const off = !ctx.online;
  const busy = ctx.pending != null;
  const b = (action, label, { primary = false, enabled = true, test = action, small = false } = {}) => {
    const pending = ctx.pending === (action.startsWith("take-") ? "draw" : action);
    const dis = off || busy || !enabled;
    return html`<button class="${cls({ act: true, primary, small, pending })}" data-action="${action}" data-test="${test}"
      data-key="a-${action}"${dis ? html` disabled` : ""}${off ? html` aria-describedby="offline-why"` : ""}${pending ? html` aria-busy="true"` : ""}>${label}</button>`;
  };
  const out = [];
  const r = g.round;
  if (acts.has("take-faceup") && r.faceup) {
    out.push(b("take-faceup", t("cs.act.takeup", { card: rankWord(r.faceup) }), { primary: true }));
  }
  if (acts.has("take-blind")) out.push(b("take-blind", t("cs.act.takeblind"), { primary: !r.faceup }));
  if (acts.has("play")) {
    const label = words.play ? t("cs.act.playcombo", { combo: comboName(words.play) }) : t("cs.act.play");
    out.push(b("play", label, { primary: true, enabled: Boolean(words.play) }));
  }
  if (acts.has("pass")) out.push(b("pass", t("cs.act.pass")));
  if (selection(g).length) out.push(b("cs-clear", t("cs.act.clear"), { small: true }));
  if (ctx.host && r && !r.over && !g.over) {
    for (const x of ctx.room.members) {
      if (x.seat == null || x.connected || x.bot || x.stand_in) continue;
      if (g.options.timer == null && !x.absent) out.push(b(`grace-${x.seat}`, t("act.grace", { name: x.name }), { small: true }));
      out.push(b(`standin-${x.seat}`, t("bot.standin", { name: x.name }), { small: true }));
    }
  }
  return out;
}

function countdown(g) {
  const turn = g.round?.turn;
  if (turn?.deadline != null && g.options.timer) {
    const key = `timer-${turn.seat}-${turn.need}-${turn.deadline}`;
    return timerMarkup({ key, until: turn.deadline, span: g.options.timer, from: turn.from ?? 0, low: LOW_SECONDS });
  }
  return timerMarkup(null);
}

function handMarkup(g, ctx) {
  const sel = new Set(selection(g));
  const cards = handKeys(g.hand);
  const off = ctx.tv || g.over || g.round?.over;
  return html`<section class="cs-hand" data-test="hand" data-rove data-key="cs-hand" role="group" aria-label="${t("cs.yourhand", { n: cards.length })}">
    ${cards.map(({ rank, key }) => html`<button class="${cls({ "cs-card": true, up: true, chosen: sel.has(key) })}"
      data-test="my-card" data-key="h${key}" data-seat="${ctx.seat}" data-slot="${key}" data-rank="${rank}"
      aria-pressed="${sel.has(key)}" aria-label="${rankWord(rank)}"${off ? html` aria-disabled="true"` : ""}>${faceMarkup(rank)}</button>`)}
  </section>`;
}

export function tableMarkup(g, ctx) {
  const r = g.round;
  const me = ctx.seat;
  const others = me == null ? [0, 1] : [1 - me];
  const words = me == null ? { text: "", play: null } : selectionWords(g, ctx);
  const showReveal = g.lastRound && !r.over && !g.over && g.revealClosed !== g.lastRound.round;
  return html`<main class="${cls({ table: true, cs: true, tv: ctx.tv, spectator: me == null })}" data-key="table">
    ${ctx.header}
    <div class="field" data-key="field">
    <section class="opponents cs-opps k${others.length}" aria-label="${t("table.others")}">${others.map((s) => seatBox(g, ctx, s))}</section>
    <div class="cs-middle">${supplyMarkup(g)}${trickMarkup(g, ctx)}</div>
    ${showReveal ? revealMarkup(g, { seat: ctx.seat }) : ""}
    ${feedBlock(ctx.feed, ctx.feedOpen, ctx.tv)}
    <div class="status-area" data-key="status-area"><p class="status" data-test="status">${ctx.pendingNote || (me == null && !ctx.tv ? sentences(t("table.spectating"), statusText(g, ctx)) : statusText(g, ctx))}</p>${ctx.toasts ?? ""}${ctx.pendingNote ? "" : guideLine("crisps", hint(g, ctx), labels())}</div>
    ${countdown(g)}
    </div>
    ${me == null ? "" : html`<div class="dock" data-key="dock"><div class="me-line"><span class="name">${nameOf(g, me)}</span>${pips(g.points[me])}</div>
      ${handMarkup(g, ctx)}
      <p class="cs-sel" data-test="selection" aria-live="polite">${words.text}</p>
      ${ctx.online ? "" : html`<p class="offline-why" id="offline-why" data-test="offline-why">${t("conn.actionsoff")}</p>`}
      <nav class="actions" data-test="actions" aria-label="${t("table.actions")}">${actionButtons(g, ctx, words)}</nav></div>`}
  </main>`;
}

// On a short screen the trick and the field scroll inside themselves: the trick's latest play (what
// is to be beaten) is kept in sight in each of them, after every render.
function scrollToLatestPlay(el) {
  const last = el.querySelector('[data-test="trick"] li:last-child');
  if (!last) return;
  for (const box of [last.closest('[data-test="trick"]'), el.querySelector(".field")]) {
    if (!box || box.scrollHeight <= box.clientHeight) continue;
    const b = box.getBoundingClientRect();
    const r = last.getBoundingClientRect();
    if (r.bottom > b.bottom) box.scrollTop += r.bottom - b.bottom;
    else if (r.top < b.top) box.scrollTop -= b.top - r.top;
  }
}

// ... and again when the screen's size changes (a phone turned), which renders nothing.
function keepLatestPlayInSight(el) {
  if (!el.sightKeeper) {
    el.sightKeeper = new ResizeObserver(() => scrollToLatestPlay(el));
    el.sightKeeper.observe(el);
  }
  scrollToLatestPlay(el);
}

export const Table = tableOf(tableMarkup, keepLatestPlayInSight);
