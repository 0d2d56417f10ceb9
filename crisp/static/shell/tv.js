// Table mode for a big screen (/r/CODE/tv): a watcher's view. In the lobby, the code, the QR code
// and who is in; during the game, the QR code beside the table so that others can join.
import { t } from "../i18n.js";
import { html } from "./html.js";
import { grouped } from "./screens.js";

export function tvLobby(m, { aside = false } = {}) {
  const room = m.room;
  const link = `${location.origin}/r/${room.code}`;
  const qr = html`<img data-test="qr" src="/api/rooms/${room.code}/qr.svg" width="${aside ? 120 : 320}" height="${aside ? 120 : 320}" alt="${t("lobby.qr")}">`;
  if (aside) return html`<aside class="tv-join" data-key="tvjoin">${qr}<p><code>${grouped(room.code)}</code></p></aside>`;
  return html`<main class="tv-lobby" data-key="tvlobby">
    <h1>${t("tv.join")}</h1>
    <div class="tv-join-big">${qr}<div><p class="tv-code" data-test="room-code">${grouped(room.code)}</p><p><code>${link}</code></p></div></div>
    <ul class="tv-members">${room.members.filter((x) => x.seat != null).map((x) => html`<li data-test="member">${x.name}</li>`)}</ul>
    <p class="muted">${t("tv.waiting")}</p>
  </main>`;
}
