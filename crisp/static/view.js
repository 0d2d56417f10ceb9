// The renderer: HTML for each screen, drawn from the latest model only.
import { LANGUAGES, cardName, isRed, language, t } from "./i18n.js";
import { choices, gameNow } from "./model.js";

const SLOTS = ["left", "middle", "right"];

export function esc(text) {
  return String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function langSelect() {
  const opts = Object.entries(LANGUAGES)
    .map(([code, name]) => `<option value="${code}"${code === language() ? " selected" : ""}>${name}</option>`)
    .join("");
  return `<label class="lang"><span class="sr-only">${t("menu.language")}</span>
    <select id="lang" data-test="lang">${opts}</select></label>`;
}

function rulesLink() {
  return `<a class="rules" data-test="rules" href="/static/rules/${language()}.html" target="_blank" rel="noopener">${t("menu.rules")}</a>`;
}

export function face(code, extra = "") {
  const red = isRed(code) ? " red" : "";
  return `<span class="face${red}${extra}" aria-hidden="true">${esc(cardName(code))}</span>`;
}

// -- home and join ----------------------------------------------------------------------------

export function homeScreen(error = "", name = "") {
  return `<main class="home">
    <header class="top">${langSelect()}${rulesLink()}</header>
    <h1 class="logo">Crisp</h1>
    <p class="tagline">${t("app.tagline")}</p>
    <form id="create-form" class="panel" autocomplete="on">
      <label for="name">${t("home.name")}</label>
      <input id="name" name="name" maxlength="20" autocomplete="nickname" value="${esc(name)}" required>
      <button id="create" class="primary" type="submit">${t("home.create")}</button>
    </form>
    <p class="or">${t("home.or")}</p>
    <form id="join-form" class="panel">
      <label for="code">${t("home.code")}</label>
      <input id="code" name="code" maxlength="16" autocapitalize="characters" autocomplete="off"
        spellcheck="false" inputmode="text" placeholder="ACFH-JKMN-QRWX">
      <button id="join-code" type="submit">${t("home.join")}</button>
    </form>
    <p class="error" role="alert" data-test="error">${esc(error)}</p>
  </main>`;
}

export function joinScreen(code, summary, error = "", name = "") {
  if (!summary) {
    return `<main class="home"><header class="top">${langSelect()}</header>
      <h1 class="logo">Crisp</h1><p class="error" role="alert">${t("join.noroom", { code: esc(code) })}</p>
      <p><a href="/" class="button">${t("join.home")}</a></p></main>`;
  }
  const started = summary.phase !== "lobby";
  const names = summary.members.map((m) => esc(m.name)).join(", ");
  return `<main class="home">
    <header class="top">${langSelect()}${rulesLink()}</header>
    <h1 class="logo">Crisp</h1>
    <h2>${t("join.title", { code: esc(code) })}</h2>
    <p class="muted">${names}</p>
    ${started ? `<p class="note">${t("join.started")}</p>` : ""}
    <form id="name-form" class="panel">
      <label for="name">${t("home.name")}</label>
      <input id="name" name="name" maxlength="20" autocomplete="nickname" value="${esc(name)}" required>
      <button id="join" class="primary" type="submit">${t("home.join")}</button>
    </form>
    <p class="error" role="alert" data-test="error">${esc(error)}</p>
  </main>`;
}

// -- lobby ------------------------------------------------------------------------------------

export function lobbyScreen(m) {
  const room = m.room;
  const host = m.you.host;
  const link = `${location.origin}/r/${room.code}`;
  const seated = room.members.filter((x) => x.seat != null);
  const waiting = room.members.filter((x) => x.seat == null);
  const hostName = room.members.find((x) => x.host)?.name ?? "";
  const member = (x) => {
    const you = x.id === m.you.member ? ` <span class="tag">${t("lobby.you")}</span>` : "";
    const isHost = x.host ? ` <span class="tag">${t("lobby.host")}</span>` : "";
    const bot = x.bot ? ` <span class="tag bot">${t("bot.tag", { level: t(`botlevel.${x.bot}`) })}</span>` : "";
    const state = x.connected ? t("lobby.online") : t("lobby.offline");
    const tools = host && x.id !== m.you.member
      ? `<button class="small" data-action="kick" data-member="${x.id}" aria-label="${esc(t("lobby.kick", { name: x.name }))}">✕</button>
         <button class="small" data-action="makehost" data-member="${x.id}" aria-label="${esc(t("lobby.makehost", { name: x.name }))}">★</button>`
      : "";
    return `<li data-test="member" data-connected="${x.connected}">
      <span class="dot ${x.connected ? "on" : "off"}" title="${state}"></span><span class="sr-only">${state}</span>
      <span class="name">${esc(x.name)}</span>${you}${isHost}${bot}<span class="grow"></span>${tools}</li>`;
  };
  const o = m.options;
  const dis = host ? "" : " disabled";
  const limit = [50, 100, 150].map((n) => `<option value="${n}"${o.limit === n ? " selected" : ""}>${t("lobby.points", { n })}</option>`).join("");
  const timer = [null, 30, 45, 60].map((n) => `<option value="${n ?? ""}"${o.timer === n ? " selected" : ""}>${n ? t("lobby.seconds", { n }) : t("lobby.notimer")}</option>`).join("");
  const addBot = host && seated.length < 8
    ? `<div class="row addbot"><select id="bot-level" aria-label="${t("bot.level")}">
        ${["easy", "normal", "hard"].map((l) => `<option value="${l}"${l === "normal" ? " selected" : ""}>${t(`botlevel.${l}`)}</option>`).join("")}
      </select><button data-action="add-bot" data-test="add-bot">${t("bot.add")}</button></div>`
    : "";
  let start = "";
  if (host) {
    start = seated.length >= 2
      ? `<button class="primary big" data-action="start" id="start">${t("lobby.start")}</button>`
      : `<p class="muted">${t("lobby.need2")}</p>`;
  } else {
    start = `<p class="muted">${t("lobby.waithost", { name: esc(hostName) })}</p>`;
  }
  return `<main class="lobby">
    <header class="top"><span class="codechip" data-test="room-code">${esc(room.code)}</span>${langSelect()}${rulesLink()}</header>
    <h1>${t("lobby.title", { code: esc(room.code) })}</h1>
    <section class="panel invite">
      <p>${t("lobby.invite")}</p>
      <p class="link"><code data-test="link">${esc(link)}</code></p>
      <div class="row">
        <button data-action="copy" data-test="copy-link">${t("lobby.copy")}</button>
        ${navigator.share ? `<button data-action="share" data-test="share">${t("lobby.share")}</button>` : ""}
      </div>
      <figure class="qr"><img data-test="qr" src="/api/rooms/${esc(room.code)}/qr.svg" width="168" height="168" alt="${t("lobby.qr")}"><figcaption>${t("lobby.qr")}</figcaption></figure>
    </section>
    <section class="panel">
      <h2>${t("lobby.players", { n: seated.length })}</h2>
      <ul class="members">${seated.map(member).join("")}</ul>
      ${addBot}
      ${waiting.length ? `<h3>${t("lobby.waiting")}</h3><ul class="members">${waiting.map(member).join("")}</ul>` : ""}
    </section>
    <section class="panel options">
      <h2>${t("lobby.options")}</h2>
      <label>${t("lobby.limit")}<select id="opt-limit" data-option="limit"${dis}>${limit}</select></label>
      <label>${t("lobby.timer")}<select id="opt-timer" data-option="timer"${dis}>${timer}</select></label>
      <label class="check"><input type="checkbox" id="opt-take" data-option="take_discard"${o.take_discard ? " checked" : ""}${dis}>
        ${t("lobby.take")}</label>
    </section>
    ${start}
    <button class="link-button" data-action="leave">${t("lobby.leave")}</button>
  </main>`;
}

// -- the table --------------------------------------------------------------------------------

function nameOf(m, seat) {
  return m.players[seat] ?? `#${seat + 1}`;
}

function memberOfSeat(m, seat) {
  return m.room?.members.find((x) => x.seat === seat);
}

function cardButton(m, seat, slot, big, mode) {
  const mine = seat === m.you.seat;
  const r = m.round;
  let code = null;
  let why = "";
  if (r?.phase === "over" && r.hands) {
    code = r.hands[seat][SLOTS.indexOf(slot)];
    if (performance.now() - (m.revealedAt || 0) < 800) why = " reveal"; // flip once, at the reveal
  }
  else if (mine && m.looks[slot]) { code = m.looks[slot]; why = " look"; }
  else if (mine && m.flash[slot] && m.flash[slot].until > performance.now()) { code = m.flash[slot].card; why = " look"; }
  const label = mine ? t("card.yours", { slot: t(`slot.${slot}`) }) : t("card.theirs", { name: nameOf(m, seat), slot: t(`slot.${slot}`) });
  const state = code ? cardName(code) : t("card.facedown");
  const pick = (mode === "swap" || mode === "take" || mode === "queen-mine") && mine ? " pickable"
    : mode === "queen-theirs" && !mine ? " pickable" : "";
  const chosen = m.ui?.queen && ((mine && m.ui.queen.slot === slot) || (m.ui.queen.target === seat && m.ui.queen.targetSlot === slot)) ? " chosen" : "";
  const test = mine ? `data-test="my-card"` : `data-test="card"`;
  return `<button class="card ${big ? "big" : "small"}${code ? " up" + why : " down"}${pick}${chosen}" ${test} data-seat="${seat}" data-slot="${slot}"
    aria-label="${esc(label)}: ${esc(state)}">${code ? face(code) : ""}</button>`;
}

function seatBox(m, seat, mode) {
  const r = m.round;
  const member = memberOfSeat(m, seat);
  const turn = r?.turn?.seat === seat;
  const connected = member ? member.connected || Boolean(member.bot) || Boolean(member.stand_in) : false;
  const cls = [turn ? "turn" : "", connected ? "" : "offline", member?.absent ? "absent" : "",
    r?.caller === seat ? "caller" : ""].join(" ");
  const cards = SLOTS.map((slot) => cardButton(m, seat, slot, false, mode)).join("");
  return `<div class="seat ${cls}" data-test="seat" data-seat="${seat}" data-connected="${connected}">
    <div class="who"><span class="dot ${connected ? "on" : "off"}"></span>
      <span class="name">${esc(nameOf(m, seat))}</span>${turn ? `<span class="marker" aria-label="${t("table.turnmark")}">▶</span>` : ""}
      ${r?.caller === seat ? `<span class="tag">${t("table.crisptag")}</span>` : ""}
      ${member?.bot || member?.stand_in ? `<span class="tag bot" title="${t("bot.tag", { level: t(`botlevel.${member.bot || member.stand_in}`) })}">🤖</span>` : ""}
      <span class="pts">${m.totals[seat] ?? 0}</span></div>
    <div class="mini">${cards}</div></div>`;
}

function statusText(m) {
  const r = m.round;
  const me = m.you.seat;
  if (!r) return "";
  if (me == null) return t("table.spectating");
  const can = choices(m);
  const ui = m.ui || {};
  if (ui.mode === "take") return t("status.takeslot");
  if (ui.mode === "queen-mine") return t("status.queenmine");
  if (ui.mode === "queen-theirs") return t("status.queentheirs");
  if (ui.mode === "queen-confirm") {
    const q = ui.queen;
    return t("status.queenconfirm", { slot: t(`slot.${q.slot}`), name: nameOf(m, q.target), tslot: t(`slot.${q.targetSlot}`) });
  }
  if (r.phase === "look") return r.ready.includes(me) ? t("status.lookwait") : t("status.look");
  if (r.phase !== "play") return "";
  const final = r.caller != null ? (r.caller === me ? t("status.finalyou") : t("status.final", { name: nameOf(m, r.caller) })) + " " : "";
  const turn = r.turn;
  if (!turn) return can.has("crisp") ? t("status.callnow") : final;
  if (turn.seat === me) {
    if (m.held) {
      const hint = can.has("swap") ? " " + t("status.swaphint") : "";
      return final + t("status.holding", { card: cardName(m.held) }) + hint;
    }
    const extra = turn.draw > 1 || turn.left > 1 ? t("status.yourextra", { n: turn.draw, m: turn.draw + turn.left - 1 }) + " " : "";
    return final + extra + (can.has("draw") ? t("status.yourturn") : t("status.yourturnat"));
  }
  const who = nameOf(m, turn.seat);
  const text = turn.draw > 1 || turn.left > 1
    ? t("status.playingextra", { name: who, n: turn.draw, m: turn.draw + turn.left - 1 })
    : t("status.playing", { name: who });
  const crisp = can.has("crisp") ? " " + t("status.callnow") : "";
  return final + text + crisp;
}

function actionButtons(m) {
  const can = choices(m);
  const ui = m.ui || {};
  const b = (action, label, cls = "") => `<button class="act ${cls}" data-action="${action}">${label}</button>`;
  const out = [];
  if (ui.mode === "queen-confirm") return b("confirm", t("act.confirm"), "primary") + b("cancel", t("act.cancel"));
  if (ui.mode) return b("cancel", t("act.cancel"));
  if (can.has("ready")) out.push(b("ready", t("act.ready"), "primary"));
  if (can.has("draw")) out.push(b("draw", t("act.draw"), "primary"));
  if (can.has("draw-soon")) out.push(`<button class="act primary" data-action="draw" disabled>${t("act.draw")}</button>`);
  if (can.has("take")) out.push(b("take", t("act.take")));
  if (can.has("king")) out.push(b("king", t("act.king"), "primary"));
  if (can.has("queen")) out.push(b("queen", t("act.queen"), "primary"));
  if (can.has("jack")) out.push(b("jack", t("act.jack"), "primary"));
  if (can.has("discard")) out.push(b("discard", t("act.discard")));
  if (can.has("crisp")) {
    out.unshift(`<button class="act crisp" data-action="crisp" data-countdown="${m.round.window.until}">${t("act.crisp")} <span class="secs"></span></button>`);
  }
  if (m.you.host && m.round?.phase === "play" && m.options.timer == null) {
    for (const x of m.room.members) {
      if (x.seat != null && !x.connected && !x.absent && !x.bot && !x.stand_in) out.push(b(`grace-${x.seat}`, esc(t("act.grace", { name: x.name })), "small"));
    }
  }
  if (m.you.host && (m.round?.phase === "play" || m.round?.phase === "look")) {
    for (const x of m.room.members) {
      if (x.seat != null && !x.connected && !x.bot && !x.stand_in) out.push(b(`standin-${x.seat}`, esc(t("bot.standin", { name: x.name })), "small"));
    }
  }
  return out.join("");
}

function countdown(m) {
  const r = m.round;
  if (!r) return "";
  if (r.phase === "look" && r.lookUntil != null) {
    return `<div class="timer" data-test="timer" data-countdown="${r.lookUntil}" data-span="${r.lookUntil}"><div class="fill"></div><span class="secs"></span></div>`;
  }
  if (r.turn?.deadline != null) {
    const span = r.turn.deadline - r.turn.at;
    return `<div class="timer" data-test="timer" data-countdown="${r.turn.deadline}" data-span="${span}"><div class="fill"></div><span class="secs"></span></div>`;
  }
  return `<div class="timer empty"></div>`;
}

export function tableScreen(m) {
  const r = m.round;
  const me = m.you.seat;
  const mode = m.ui?.mode ?? (choices(m).has("swap") ? "swap" : null);
  const n = m.players.length;
  const others = [];
  for (let k = 1; k <= n; k++) {
    const seat = me == null ? k - 1 : (me + k) % n;
    if (seat !== me) others.push(seatBox(m, seat, mode));
  }
  const turnInfo = r ? t("table.round", { n: r.number }) : "";
  const held = m.held ? `<div class="card big up held-card" data-test="held" aria-label="${esc(cardName(m.held))}">${face(m.held)}</div>`
    : r?.turn?.holding ? `<div class="card big down held-card" data-test="held" aria-label="${t("card.facedown")}"></div>`
      : `<div class="card big slot-empty" data-test="held" aria-hidden="true"></div>`;
  const top = r?.top ? `<div class="card big up" aria-label="${t("table.pile")}: ${esc(cardName(r.top))}">${face(r.top)}</div>`
    : `<div class="card big slot-empty" aria-label="${t("table.pile")}: 0"></div>`;
  const mine = me == null ? "" : `<section class="hand" data-test="hand" aria-label="${t("table.you")}">
      ${SLOTS.map((slot) => cardButton(m, me, slot, true, mode)).join("")}</section>`;
  const meBox = me == null ? "" : `<div class="me-line"><span class="name">${esc(nameOf(m, me))}</span>
      ${r?.caller === me ? `<span class="tag">${t("table.crisptag")}</span>` : ""}<span class="pts">${m.totals[me] ?? 0}</span></div>`;
  return `<main class="table${r?.caller != null ? " final" : ""}">
    <header class="top"><span class="codechip">${esc(m.room.code)}</span><span class="roundinfo" data-test="turn">${turnInfo}</span>
      <button class="icon" data-action="scores" aria-label="${t("menu.scores")}">≡</button>${langSelect()}${rulesLink()}</header>
    <section class="opponents n${n}">${others.join("")}</section>
    <section class="center">
      <div class="deck" data-test="deck" aria-label="${t("table.deck")}: ${t("table.cards", { n: r?.deck ?? 0 })}">
        <div class="card big down"></div><span class="count">${r?.deck ?? 0}</span></div>
      <div class="pile" data-test="pile">${top}<span class="count">${t("table.pile")}</span></div>
      <div class="held">${held}</div>
    </section>
    <p class="status" data-test="status">${esc(statusText(m))}</p>
    ${countdown(m)}
    ${meBox}
    ${mine}
    <nav class="actions" data-test="actions">${actionButtons(m)}</nav>
  </main>`;
}

// -- results ----------------------------------------------------------------------------------

export function resultsPanel(m) {
  const rev = m.lastReveal;
  if (!rev) return "";
  const n = m.players.length;
  const caller = rev.caller;
  const rows = [];
  for (let seat = 0; seat < n; seat++) {
    const hand = rev.hands[seat].map((c) => `<span class="card tiny up">${face(c)}</span>`).join("");
    let note = "";
    if (seat === caller) {
      const raw = rev.hands[seat].reduce((a, c) => a + value(c), 0);
      note = rev.scores[seat] < raw ? t("results.bonus") : t("results.malus");
    }
    rows.push(`<tr${m.winners.includes(seat) && m.over ? ` class="winner"` : ""}><th scope="row">${esc(nameOf(m, seat))}${seat === caller ? " ★" : ""}</th>
      <td class="hand">${hand}</td><td>${rev.scores[seat]} <small>${note}</small></td><td><strong>${rev.totals[seat]}</strong></td></tr>`);
  }
  const room = m.room;
  let foot = "";
  if (m.over) {
    const names = m.winners.map((s) => nameOf(m, s)).map(esc).join(", ");
    foot = `<h2 data-test="winners">${t(m.winners.length > 1 ? "results.winners" : "results.winner", { names })}</h2>
      <p><a class="button" data-test="download" href="/api/rooms/${esc(room.code)}/record" download>${t("act.download")}</a></p>
      ${m.you.host ? `<button class="primary big" data-action="rematch">${t("act.rematch")}</button>`
        : `<p class="muted">${t("results.waitrematch", { name: esc(room.members.find((x) => x.host)?.name ?? "") })}</p>`}`;
  } else if (room.phase === "between" && room.between) {
    const waiting = room.between.waiting.map((s) => nameOf(m, s)).map(esc).join(", ");
    const mine = room.between.waiting.includes(m.you.seat);
    foot = `${waiting ? `<p class="muted">${t("results.waiting", { names: waiting })}</p>` : ""}
      ${mine ? `<button class="primary big" data-action="continue">${t("act.continue")}</button>` : ""}`;
  }
  return `<section class="results" data-test="results" role="dialog" aria-label="${t("results.round", { n: rev.round })}">
    <h2>${m.over ? t("results.gameover") : t("results.round", { n: rev.round })}</h2>
    ${caller != null ? `<p>${t("results.caller", { name: esc(nameOf(m, caller)) })}</p>` : ""}
    <table><thead><tr><th></th><th></th><th>${t("results.roundpts")}</th><th>${t("results.total")}</th></tr></thead>
    <tbody>${rows.join("")}</tbody></table>${foot}</section>`;
}

// R-VALUE: Ace 1, 2 to 9 their number, T J Q K 10.
function value(code) {
  const rank = code[0];
  if (rank === "A") return 1;
  return "TJQK".includes(rank) ? 10 : Number(rank);
}

export function updateCountdowns(m, root) {
  const now = gameNow(m);
  for (const el of root.querySelectorAll("[data-countdown]")) {
    const until = Number(el.dataset.countdown);
    const left = Math.max(0, until - now);
    const secs = el.querySelector(".secs");
    if (secs) secs.textContent = `${Math.ceil(left / m.clock.speed)}`;
    const fill = el.querySelector(".fill");
    if (fill) {
      const span = Number(el.dataset.span) || 1;
      fill.style.transform = `scaleX(${Math.min(1, left / span)})`;
    }
  }
}
