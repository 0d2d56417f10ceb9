// The shell's screens, as markup: home, join, the lobby frame, the header of every room screen,
// the connection banner, the toasts and the results frame. The game fills in its parts.
import { GAMES, gameInfo } from "../games/index.js";
import { LANGUAGES, language, t } from "../i18n.js";
import { cls, html } from "./html.js";

// A room code as people read it aloud: 12 letters in groups of four (an older 5-letter code as is).
export const grouped = (code) => (code.length === 12 ? code.match(/.{4}/g).join("-") : code);

// The language menu: in the header, and (id "lang-menu") in the ≡ menu, where a small phone's
// table header has no room for it.
export function langSelect(id = "lang") {
  return html`<label class="lang"><span class="sr-only">${t("menu.language")}</span>
    <select id="${id}" data-test="${id}" data-setting="lang">${Object.entries(LANGUAGES).map(([code, name]) =>
      html`<option value="${code}"${code === language() ? html` selected` : ""}>${name}</option>`)}</select></label>`;
}

// The rules of the room's game (or of the game chosen on the home page), in the reader's language:
// each game's own pages (games/<type>/rules/<lang>.html).
export function rulesLink(game) {
  const href = `/static/games/${game}/rules/${language()}.html`;
  return html`<a class="rules" data-test="rules" href="${href}" target="_blank" rel="noopener">${t("menu.rules")}</a>`;
}

const levelOptions = (game) => gameInfo(game).bots.map((l) => html`<option value="${l}"${l === "normal" ? html` selected` : ""}>${t(`botlevel.${l}`)}</option>`);

// The games, each a choice with a few of its cards (games/showcase.js draws them after the page)
// and a line about it; the radio in line with the name.
function gamePicker(game) {
  return html`<fieldset class="panel games" data-test="game-picker"><legend>${t("home.game")}</legend>
    ${Object.entries(GAMES).map(([type, info]) => html`<label class="game-choice">
      <input type="radio" name="game" value="${type}" data-test="game-${type}"${type === game ? html` checked` : ""}>
      <strong class="game-name">${info.name}</strong> <span class="game-about muted">${t(`home.about.${type}`)}</span>
      <span class="game-cards" data-showcase="${type}" aria-hidden="true"></span></label>`)}
  </fieldset>`;
}

export function soundButton(on) {
  return html`<button class="icon" data-action="sound" data-test="sound" aria-pressed="${on}"
    aria-label="${t("menu.sound")}">${on ? "🔊" : "🔇"}</button>`;
}

// A tap on its way: the button says so (and waits) until the server answers.
function busy(m, action) {
  return m.pending?.action === action ? html` aria-busy="true" disabled` : "";
}

// -- home and join ----------------------------------------------------------------------------

export function homeScreen(error, name, game) {
  const info = gameInfo(game);
  return html`<main class="home">
    <header class="top"><h1 class="logo">Crisp</h1>${langSelect()}${rulesLink(game)}</header>
    <p class="tagline">${t("app.tagline")}</p>
    ${gamePicker(game)}
    <form id="practice-form" class="panel practice">
      <h2>${t("practice.title")}</h2>
      <div class="row">
        <label>${t("bot.level")}<select id="practice-level">${levelOptions(game)}</select></label>
        ${info.seats > 2 ? html`<label>${t("practice.bots")}<select id="practice-bots">
          ${Array.from({ length: info.seats - 1 }, (_, i) => i + 1).map((n) => html`<option value="${n}"${n === 3 ? html` selected` : ""}>${n}</option>`)}
        </select></label>` : ""}
      </div>
      <button id="practice" type="submit">${t("practice.start")}</button>
    </form>
    <form id="create-form" class="panel" autocomplete="on">
      <label for="name">${t("home.name")}</label>
      <input id="name" name="name" maxlength="20" autocomplete="nickname" value="${name}" required>
      <button id="create" class="primary" type="submit">${t("home.create")}</button>
    </form>
    <p class="or">${t("home.or")}</p>
    <form id="join-form" class="panel">
      <label for="code">${t("home.code")}</label>
      <input id="code" name="code" maxlength="16" autocapitalize="characters" autocomplete="off"
        spellcheck="false" inputmode="text" placeholder="ACFH-JKMN-QRWX">
      <button id="join-code" type="submit">${t("home.join")}</button>
    </form>
    <p class="error" role="alert" data-test="error">${error}</p>
  </main>`;
}

export function joinScreen(code, summary, error = "", name = "") {
  if (!summary) {
    return html`<main class="home"><header class="top">${langSelect()}</header>
      <h1 class="logo">Crisp</h1><p class="error" role="alert">${t("join.noroom", { code })}</p>
      <p><a href="/" class="button">${t("join.home")}</a></p></main>`;
  }
  const started = summary.phase !== "lobby";
  return html`<main class="home">
    <header class="top">${langSelect()}${rulesLink(summary.game_type)}</header>
    <h1 class="logo">Crisp</h1>
    <h2>${t("join.title", { code })}</h2>
    <p class="muted" data-test="join-game">${gameInfo(summary.game_type).name}</p>
    <p class="muted">${summary.members.map((x) => x.name).join(", ")}</p>
    ${started ? html`<p class="note">${t("join.started")}</p>` : ""}
    <form id="name-form" class="panel">
      <label for="name">${t("home.name")}</label>
      <input id="name" name="name" maxlength="20" autocomplete="nickname" value="${name}" required>
      <button id="join" class="primary" type="submit">${t("home.join")}</button>
    </form>
    <p class="error" role="alert" data-test="error">${error}</p>
  </main>`;
}

export function waitingScreen() {
  return html`<main class="home"><p class="muted" aria-busy="true">…</p></main>`;
}

// -- lobby ------------------------------------------------------------------------------------

function memberRow(m, x) {
  const host = m.you.host;
  const me = x.id === m.you.member;
  const state = x.connected ? t("lobby.online") : t("lobby.offline");
  const confirming = m.shell.confirmKick === x.id;
  const tools = host && !me
    ? confirming
      ? html`<span class="confirm" role="group" aria-label="${t("lobby.kickq", { name: x.name })}">
          <span class="q">${t("lobby.kickq", { name: x.name })}</span>
          <button class="small danger" data-action="kick" data-member="${x.id}" data-test="kick-yes">${t("lobby.remove")}</button>
          <button class="small" data-action="kick-cancel">${t("act.cancel")}</button></span>`
      : html`<button class="small" data-action="kick-ask" data-member="${x.id}" aria-label="${t("lobby.kick", { name: x.name })}">✕</button>
        ${x.bot ? "" : html`<button class="small" data-action="makehost" data-member="${x.id}" aria-label="${t("lobby.makehost", { name: x.name })}">★</button>`}`
    : "";
  return html`<li data-test="member" data-key="m${x.id}" data-connected="${x.connected}">
    ${x.bot ? html`<span class="boticon" aria-hidden="true">🤖</span>`
      : html`<span class="dot ${x.connected ? "on" : "off"}" aria-hidden="true"></span><span class="sr-only">${state}</span>`}
    <span class="name">${x.name}</span>${me ? html` <span class="tag">${t("lobby.you")}</span>` : ""}
    ${x.host ? html` <span class="tag">${t("lobby.host")}</span>` : ""}
    ${x.bot ? html` <span class="tag bot">${t("bot.tag", { level: t(`botlevel.${x.bot}`) })}</span>` : ""}
    <span class="grow"></span>${tools}</li>`;
}

export function lobbyScreen(m, optionsForm) {
  const room = m.room;
  const host = m.you.host;
  const link = `${location.origin}/r/${room.code}`;
  const seated = room.members.filter((x) => x.seat != null);
  const waiting = room.members.filter((x) => x.seat == null);
  const hostName = room.members.find((x) => x.host)?.name ?? "";
  const info = gameInfo(room.game_type);
  const addBot = host && seated.length < info.seats
    ? html`<div class="row addbot"><select id="bot-level" aria-label="${t("bot.level")}">
        ${levelOptions(room.game_type)}
      </select><button data-action="add-bot" data-test="add-bot">${t("bot.add")}</button></div>`
    : "";
  let start;
  if (host) {
    start = seated.length >= 2
      ? html`<button class="primary big${m.pending?.action === "start" ? " pending" : ""}" data-action="start" id="start"${busy(m, "start")}>${t("lobby.start")}</button>`
      : html`<p class="muted">${t("lobby.need2")}</p>`;
  } else {
    start = html`<p class="muted">${t("lobby.waithost", { name: hostName })}</p>`;
  }
  const big = Boolean(m.shell.qrBig);
  return html`<main class="lobby" data-key="lobby">
    <header class="top"><span class="codechip" data-test="room-code">${grouped(room.code)}</span>${langSelect()}${rulesLink(room.game_type)}</header>
    <h1>${t("lobby.title", { code: grouped(room.code) })}</h1>
    <p class="lobby-game" data-test="lobby-game">${info.name}</p>
    <section class="panel">
      <h2>${t("lobby.players", { n: seated.length, m: info.seats })}</h2>
      <ul class="members">${seated.map((x) => memberRow(m, x))}</ul>
      ${addBot}
      ${waiting.length ? html`<h3>${t("lobby.waiting")}</h3><ul class="members">${waiting.map((x) => memberRow(m, x))}</ul>` : ""}
    </section>
    ${start}
    <section class="panel invite">
      <div class="invite-row">
        <button class="${cls({ qr: true, big })}" data-action="qr" aria-expanded="${big}" aria-label="${t("lobby.qrbig")}">
          <img data-test="qr" src="/api/rooms/${room.code}/qr.svg" width="${big ? 240 : 88}" height="${big ? 240 : 88}" alt="${t("lobby.qr")}"></button>
        <div class="invite-text">
          <p>${t("lobby.invite")}</p>
          <p class="link"><code data-test="link">${link}</code></p>
          <div class="row">
            <button data-action="copy" data-test="copy-link">${m.shell.copied ? t("lobby.copied") : t("lobby.copy")}</button>
            ${navigator.share ? html`<button data-action="share" data-test="share">${t("lobby.share")}</button>` : ""}
          </div>
          ${tvLink(room.code)}
        </div>
      </div>
    </section>
    ${optionsForm}
    <button class="link-button" data-action="leave">${t("lobby.leave")}</button>
  </main>`;
}

// -- pieces of every room screen --------------------------------------------------------------

// The shared screen's link (/r/CODE/tv), in the lobby and in the ≡ menu.
export function tvLink(code) {
  return html`<p class="tv-link"><a class="button" data-test="tv-link" href="/r/${code}/tv" target="_blank" rel="noopener"
    title="${t("tv.openhint")}">📺 ${t("tv.open")}</a></p>`;
}

export function roomHeader(m, info, sound, aside = "") {
  const title = html`<h1 class="sr-only">${gameInfo(m.room.game_type).name}</h1>`;
  if (m.tv) { // the shared screen: no phone controls (≡, sound, language); the QR code in the header's flow
    return html`<header class="top tv-top">${title}
      <span class="codechip">${grouped(m.room.code)}</span><span class="roundinfo" data-test="turn">${info}</span>
      ${rulesLink(m.room.game_type)}${aside}</header>`;
  }
  return html`<header class="top">${title}
    <span class="codechip">${grouped(m.room.code)}</span><span class="roundinfo" data-test="turn">${info}</span>
    <button class="icon" data-action="scores" data-test="scores" aria-expanded="${Boolean(m.shell.scores)}" aria-label="${t("menu.scores")}">≡</button>
    ${soundButton(sound)}${langSelect()}${rulesLink(m.room.game_type)}</header>`;
}

export function connBanner(m) {
  if (m.conn === "open" || (!m.everOpen && m.conn === "connecting")) return "";
  const text = m.conn === "offline" ? t("conn.offline") : m.conn === "stalled" ? t("conn.stalled") : t("conn.reconnecting");
  return html`<div class="conn" data-test="conn" role="alert" data-key="conn">
    <span>${text}</span><button class="small" data-action="retry" data-test="retry">${t("conn.retry")}</button></div>`;
}

// A room not heard from yet, with no network: its code, and that it connects by itself.
export function offlineRoom(m) {
  return html`<main class="home" data-key="offline-room"><h1>Crisp</h1>
    <p data-test="offline-room">${t("conn.offlineroom", { code: m.code })}</p></main>`;
}

// The toasts: over the page where nothing of a game lies under them (home, lobby); `inline`: in
// the flow of a table's status area, under its status line, where no decision is under them.
export function toasts(m, inline = false) {
  if (inline) {
    return html`<span class="toasts inline" role="status" aria-live="polite" data-key="toasts">
      ${m.toasts.map((x) => html`<span class="toast ${x.kind}" data-test="toast" data-key="t${x.id}">${x.text}</span>`)}</span>`;
  }
  return html`<div class="toasts" role="status" aria-live="polite" data-key="toasts">
    ${m.toasts.map((x) => html`<p class="toast ${x.kind}" data-test="toast" data-key="t${x.id}">${x.text}</p>`)}</div>`;
}

// The results frame: the game's body, then what comes next (Next round / Play again: held at the
// sheet's bottom edge, in sight however long the body) and a menu (the game record, the
// shuffle's verification when that module is there).
export function resultsFrame(m, title, body, { scoresOnly, verify, note = "" }) {
  const room = m.room;
  let foot = "";
  if (!scoresOnly && room.phase === "over") {
    foot = m.you.host
      ? html`<button class="primary big${m.pending?.action === "rematch" ? " pending" : ""}" data-action="rematch"${busy(m, "rematch")}>${t("act.rematch")}</button>`
      : html`<p class="muted">${t("results.waitrematch", { name: room.members.find((x) => x.host)?.name ?? "" })}</p>`;
  } else if (!scoresOnly && room.phase === "between" && room.between) {
    const names = room.between.waiting.map((s) => room.members.find((x) => x.seat === s)?.name ?? `#${s + 1}`).join(", ");
    const mine = room.between.waiting.includes(m.you.seat);
    foot = html`${names ? html`<p class="muted">${t("results.waiting", { names })}</p>` : ""}
      ${mine ? html`<button class="primary big${m.pending?.action === "continue" ? " pending" : ""}" data-action="continue"${busy(m, "continue")}>${t("act.continue")}</button>` : ""}`;
  }
  const menu = !scoresOnly && room.record
    ? html`<details class="menu" data-test="results-menu"${m.shell.verified ? html` open` : ""}><summary>${t("results.more")}</summary>
        <a class="button" data-test="download" href="/api/rooms/${room.code}/record" download>${t("act.download")}</a>
        ${verify ? html`<button data-action="verify" data-test="verify">${t("results.verify")}</button>` : ""}
        ${m.shell.verified ? html`<p class="muted" data-test="verified">${m.shell.verified}</p>` : ""}
      </details>`
    : "";
  return html`<section class="results" data-test="results" role="dialog" aria-modal="false" aria-label="${title}" data-key="results">
    ${scoresOnly ? html`<button class="icon close" data-action="scores" aria-label="${t("menu.close")}">✕</button>` : ""}
    ${note}${body}${foot ? html`<div class="results-foot" data-key="foot">${foot}</div>` : ""}${menu}</section>`;
}
