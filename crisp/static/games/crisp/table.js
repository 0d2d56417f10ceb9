// Crisp's table: mount(el) / update(model, ctx) / unmount(). Each update patches the markup into
// the table's element (shell/morph.js), so only what changed is touched: a face-up look card
// keeps its element (and does not flip again) when another player taps Ready.
import { sentences, t } from "../../i18n.js";
import { cardName } from "./cardname.js";
import { cls, html } from "../../shell/html.js";
import { feedBlock, tableOf, timerMarkup } from "../common/table.js";
export { tick } from "../common/table.js";
import { faceMarkup, hydrate } from "./cards.js";
import { guideLine } from "../common/guideline.js";
import { hint, labels } from "./hint.js";
import { SLOTS, choices } from "./model.js";

const LOW_SECONDS = 10;

const nameOf = (g, seat) => g.players[seat] ?? `#${seat + 1}`;
const memberOfSeat = (ctx, seat) => ctx.room?.members.find((x) => x.seat === seat);

export function can(g, ctx) {
  return choices(g, { seat: ctx.seat, now: ctx.now(), since: ctx.since(), playing: ctx.room?.phase === "playing" });
}

// The face a seat may see in a slot now, and why (null: face down).
function shown(g, ctx, seat, slot) {
  const r = g.round;
  if (r?.phase === "over" && r.hands) return { code: r.hands[seat][SLOTS.indexOf(slot)], why: "reveal" };
  if (seat !== ctx.seat) return null;
  if (g.looks[slot]) return { code: g.looks[slot], why: "look" };
  const f = g.flash[slot];
  if (f && f.until > performance.now()) return { code: f.card, why: "look" };
  return null;
}

function cardButton(g, ctx, seat, slot, big, mode) {
  const mine = seat === ctx.seat;
  const face = shown(g, ctx, seat, slot);
  const where = mine ? t("card.yours", { slot: t(`slot.${slot}`) })
    : t("card.theirs", { name: nameOf(g, seat), slot: t(`slot.${slot}`) });
  const state = face ? cardName(face.code) : t("card.facedown");
  const pickable = !ctx.pending && (((mode === "swap" || mode === "take" || mode === "queen-mine") && mine)
    || (mode === "queen-theirs" && !mine));
  const sending = mine && ctx.pendingMove?.slot === slot; // the card of the swap on its way
  const q = ctx.ui.queen;
  const chosen = Boolean(q && ((mine && q.slot === slot) || (q.target === seat && q.targetSlot === slot)));
  const lit = g.highlight.some((h) => h.seat === seat && h.slot === slot);
  const klass = cls({ card: true, big, small: !big, up: Boolean(face), down: !face, look: face?.why === "look",
    reveal: face?.why === "reveal", pickable, chosen, lit, pending: sending });
  const disabled = ctx.tv || (!pickable && !chosen) || Boolean(ctx.pending);
  return html`<button class="${klass}" data-test="${mine ? "my-card" : "card"}" data-key="c${seat}${slot}"
    data-seat="${seat}" data-slot="${slot}" aria-label="${where}: ${state}${lit ? ` (${t("card.moved")})` : ""}"
    ${disabled ? html`aria-disabled="true"` : ""}${sending ? html` aria-busy="true"` : ""}>${face ? faceMarkup(face.code) : ""}</button>`;
}

function seatBox(g, ctx, seat, mode, order) {
  const r = g.round;
  const member = memberOfSeat(ctx, seat);
  const turn = r?.turn?.seat === seat;
  const bot = member?.bot || member?.stand_in;
  const connected = member ? member.connected || Boolean(bot) : false;
  const klass = cls({ seat: true, turn, offline: !connected, absent: member?.absent, caller: r?.caller === seat,
    window: r?.window?.seat === seat });
  return html`<div class="${klass}" data-test="seat" data-seat="${seat}" data-key="s${seat}" data-connected="${connected}"
    data-order="${order}">
    <div class="who">
      ${member?.bot ? "" : html`<span class="dot ${connected ? "on" : "off"}" aria-hidden="true"></span>`}
      <span class="name">${member?.bot ? nameOf(g, seat).replace(/\s*\(bot\)$/, "") : nameOf(g, seat)}</span>
      ${turn ? html`<span class="marker" role="img" aria-label="${t("table.turnmark")}">▶</span>` : ""}
      ${r?.caller === seat ? html`<span class="tag">${t("table.crisptag")}</span>` : ""}
      ${bot ? html`<span class="tag bot" role="img" aria-label="${t("bot.tag", { level: t(`botlevel.${bot}`) })}">🤖</span>` : ""}
      ${connected ? "" : html`<span class="tag off" data-test="seat-offline">${member?.absent ? t("seat.away") : t("lobby.offline")}</span>`}
      <span class="pts">${g.totals[seat] ?? 0}</span>
    </div>
    <div class="mini">${SLOTS.map((slot) => cardButton(g, ctx, seat, slot, false, mode))}</div>
  </div>`;
}

export function statusText(g, ctx) {
  const r = g.round;
  const me = ctx.seat;
  if (!r) return "";
  if (me == null) return ctx.tv ? tvStatus(g) : t("table.spectating");
  const acts = can(g, ctx);
  const ui = ctx.ui;
  if (ui.mode === "take") return t("status.takeslot");
  if (ui.mode === "queen-mine") return t("status.queenmine");
  if (ui.mode === "queen-theirs") return t("status.queentheirs");
  if (ui.mode === "queen-confirm") {
    const q = ui.queen;
    return t("status.queenconfirm", { slot: t(`slot.${q.slot}`), name: nameOf(g, q.target), tslot: t(`slot.${q.targetSlot}`) });
  }
  if (r.phase === "look") return r.ready.includes(me) ? t("status.lookwait") : t("status.look");
  if (r.phase !== "play") return "";
  const final = r.caller != null ? (r.caller === me ? t("status.finalyou") : t("status.final", { name: nameOf(g, r.caller) })) : "";
  const turn = r.turn;
  if (!turn) return sentences(final, acts.has("crisp") ? t("status.callnow") : "");
  if (turn.seat === me) {
    if (g.held) return sentences(final, t("status.holding", { card: cardName(g.held) }), acts.has("swap") ? t("status.swaphint") : "");
    const extra = turn.draw > 1 || turn.left > 1 ? t("status.yourextra", { n: turn.draw, m: turn.draw + turn.left - 1 }) : "";
    return sentences(final, extra, acts.has("draw") ? t("status.yourturn") : t("status.yourturnat"));
  }
  return sentences(final, playing(g, turn), acts.has("crisp") ? t("status.callnow") : "");
}

function playing(g, turn) {
  const who = nameOf(g, turn.seat);
  return turn.draw > 1 || turn.left > 1
    ? t("status.playingextra", { name: who, n: turn.draw, m: turn.draw + turn.left - 1 })
    : t("status.playing", { name: who });
}

function tvStatus(g) {
  const r = g.round;
  if (r.phase === "look") return t("status.tvlook");
  if (r.phase === "over") return t("feed.reveal");
  const final = r.caller != null ? t("status.final", { name: nameOf(g, r.caller) }) : "";
  return sentences(final, r.turn ? playing(g, r.turn) : "");
}

function actionButtons(g, ctx) {
  if (ctx.tv || ctx.seat == null) return "";
  const acts = can(g, ctx);
  const ui = ctx.ui;
  const off = !ctx.online;
  const busy = ctx.pending != null; // one move at a time: the others wait for the server's answer
  const b = (action, label, extra = "", more = html``) => {
    const pending = ctx.pending === action;
    return html`<button class="${cls({ act: true, [extra]: Boolean(extra), pending })}" data-action="${action}"
      data-key="a-${action}" ${off ? html`disabled aria-describedby="offline-why"` : busy ? html`disabled` : ""}${pending ? html` aria-busy="true"` : ""}
      ${more}>${label}</button>`;
  };
  if (ui.mode === "queen-confirm") return [b("confirm", t("act.confirm"), "primary"), b("cancel", t("act.cancel"))];
  if (ui.mode) return b("cancel", t("act.cancel"));
  const out = [];
  if (acts.has("ready")) out.push(b("ready", t("act.ready"), "primary"));
  if (acts.has("draw")) out.push(b("draw", t("act.draw"), "primary"));
  if (acts.has("draw-soon")) out.push(html`<button class="act primary" data-action="draw" data-key="a-draw" disabled>${t("act.draw")}</button>`);
  if (acts.has("take")) out.push(b("take", t("act.take")));
  if (acts.has("king")) out.push(b("king", t("act.king"), "primary"));
  if (acts.has("queen")) out.push(b("queen", t("act.queen"), "primary"));
  if (acts.has("jack")) out.push(b("jack", t("act.jack"), "primary"));
  if (acts.has("discard")) out.push(b("discard", t("act.discard")));
  if (ctx.pending === "crisp") out.unshift(b("crisp", t("act.crispsending"), "crisp")); // until applied or refused
  else if (acts.has("crisp")) {
    out.unshift(b("crisp", html`${t("act.crisp")} <span class="secs"></span>`, "crisp", html`data-countdown="${g.round.window.until}"`));
  }
  const r = g.round;
  if (ctx.host && (r?.phase === "play" || r?.phase === "look")) {
    for (const x of ctx.room.members) {
      if (x.seat == null || x.connected || x.bot || x.stand_in) continue;
      if (r.phase === "play" && g.options.timer == null && !x.absent) out.push(b(`grace-${x.seat}`, t("act.grace", { name: x.name }), "small"));
      out.push(b(`standin-${x.seat}`, t("bot.standin", { name: x.name }), "small"));
    }
  }
  return out;
}

// The per-draw clock shows the current draw's time only: from its `at` (not while the previous
// player's crisp window still runs) to its deadline.
function countdown(g) {
  const r = g.round;
  if (r?.phase === "look" && r.lookUntil != null) {
    return timerMarkup({ key: "timer-look", until: r.lookUntil, span: r.lookUntil, from: 0 });
  }
  if (r?.turn?.deadline != null) {
    const span = r.turn.deadline - r.turn.at;
    const key = `timer-${r.turn.seat}-${r.turn.draw}`;
    return timerMarkup({ key, until: r.turn.deadline, span, from: r.turn.at, low: LOW_SECONDS });
  }
  return timerMarkup(null);
}

function pileMarkup(g) {
  const r = g.round;
  const top = r?.top
    ? html`<div class="card big up" role="img" data-key="top${r.top}" aria-label="${t("table.pile")}: ${cardName(r.top)}">${faceMarkup(r.top)}</div>`
    : html`<div class="card big slot-empty" role="img" data-key="top-none" aria-label="${t("table.pile")}: ${t("table.empty")}"></div>`;
  return html`<div class="pile" data-test="pile">${top}<span class="count">${t("table.pile")}</span></div>`;
}

function heldMarkup(g, ctx) {
  const r = g.round;
  if (ctx.seat != null && g.held) {
    return html`<div class="card big up held-card" data-test="held" data-key="held-up" role="img"
      aria-label="${t("table.held")}: ${cardName(g.held)}">${faceMarkup(g.held)}</div>`;
  }
  if (r?.turn?.holding) {
    return html`<div class="card big down held-card" data-test="held" data-key="held-down" role="img"
      aria-label="${t("table.heldby", { name: nameOf(g, r.turn.seat) })}"></div>`;
  }
  return html`<div class="card big slot-empty" data-test="held" data-key="held-none" aria-hidden="true"></div>`;
}

// Seats around the table in turn order, you at the bottom: the first ones up the left side, then
// across the top, then down the right side (a narrow phone shows them in turn order as a grid).
const SIDES = { 0: [0, 0], 1: [0, 1], 2: [0, 2], 3: [1, 1], 4: [1, 2], 5: [1, 3], 6: [2, 2], 7: [2, 3], 8: [2, 4] };

function sides(order) {
  const [left, top] = SIDES[order.length];
  return [["left", order.slice(0, left)], ["top", order.slice(left, left + top)], ["right", order.slice(left + top)]];
}

export function tableMarkup(g, ctx) {
  const r = g.round;
  const me = ctx.seat;
  const acts = can(g, ctx);
  const mode = ctx.ui.mode ?? (acts.has("swap") ? "swap" : null);
  const n = g.players.length;
  const order = [];
  for (let k = 1; k <= n; k++) {
    const seat = me == null ? k - 1 : (me + k) % n;
    if (seat !== me) order.push(seat);
  }
  const others = sides(order).map(([side, seats]) => html`<div class="side ${side}">${seats.map((seat) =>
    seatBox(g, ctx, seat, mode, order.indexOf(seat)))}</div>`);
  const deck = r?.deck ?? 0;
  const klass = cls({ table: true, final: r?.caller != null, tv: ctx.tv, [`n${n}`]: true, spectator: me == null,
    choosing: mode === "queen-theirs" });
  return html`<main class="${klass}" data-key="table">
    ${ctx.header}
    <div class="field" data-key="field">
    <section class="opponents k${order.length}" aria-label="${t("table.others")}">${others}</section>
    <section class="center">
      <div class="deck" data-test="deck" role="img" aria-label="${t("table.deck")}: ${t("table.cards", { n: deck })}">
        <div class="card big down"></div><span class="count">${deck}</span></div>
      ${pileMarkup(g)}
      <div class="held">${heldMarkup(g, ctx)}</div>
    </section>
    ${feedBlock(ctx.feed, ctx.feedOpen, ctx.tv)}
    <div class="status-area" data-key="status-area"><p class="status" data-test="status">${ctx.pendingNote || statusText(g, ctx)}</p>${ctx.toasts ?? ""}${ctx.pendingNote ? "" : guideLine("crisp", hint(g, ctx, acts), labels())}</div>
    ${countdown(g)}
    </div>
    ${me == null ? "" : html`<div class="dock" data-key="dock"><div class="me-line"><span class="name">${nameOf(g, me)}</span>
      ${r?.caller === me ? html`<span class="tag">${t("table.crisptag")}</span>` : ""}<span class="pts">${g.totals[me] ?? 0}</span></div>
      <section class="hand" data-test="hand" data-rove data-key="hand" aria-label="${t("table.you")}">${SLOTS.map((slot) => cardButton(g, ctx, me, slot, true, mode))}</section>
      ${ctx.online ? "" : html`<p class="offline-why" id="offline-why" data-test="offline-why">${t("conn.actionsoff")}</p>`}
      <nav class="actions" data-test="actions" aria-label="${t("table.actions")}">${actionButtons(g, ctx)}</nav></div>`}
  </main>`;
}

export const Table = tableOf(tableMarkup, hydrate);
