// The shell's renderer: the frame (connection banner, stage, results frame, toasts) patched into
// #app, the lobby frame or the game's table in the stage. Only what changed is touched.
import { t } from "../i18n.js";
import { html } from "./html.js";
import { patch } from "./morph.js";
import { connBanner, langSelect, lobbyScreen, offlineRoom, resultsFrame, roomHeader, rulesLink, toasts, tvLink } from "./screens.js";
import { tvLobby } from "./tv.js";
import { Keys } from "./keys.js";

export class Renderer {
  constructor(root, { sound, verify }) {
    this.root = root;
    this.table = null;
    this.sound = sound; // () -> on?
    this.verify = verify; // () -> the fairness module, or null
    this.keys = new Keys();
  }

  visible() {
    return document.visibilityState === "visible";
  }

  render(c) {
    const m = c.model;
    const game = c.game;
    if (!m.room || !game) {
      // no room heard yet (a reload without a network): the room's link, offline, reconnecting
      if (m.conn === "offline" || m.conn === "lost") patch(this.root, html`${connBanner(m)}${offlineRoom(m)}`);
      return;
    }
    this.keys.before(this.root);
    const phase = m.room.phase;
    const g = m.game;
    const over = phase === "between" || phase === "over";
    const scoresOnly = Boolean(m.shell.scores) && !(over && g.lastReveal);
    const showResults = phase !== "lobby" && ((over && g.lastReveal) || m.shell.scores);
    // the toasts lie over nothing of a game: at the top of the results, in a table's status line
    const atTable = phase !== "lobby" && Boolean(g.round);
    const results = showResults
      ? resultsFrame(m, game.results.title(g),
        html`${game.results.body(g, { scoresOnly, seat: m.you?.seat })}${this.menuLine(m, scoresOnly)}`,
        { scoresOnly, verify: Boolean(!scoresOnly && this.verify()), note: toasts(m) })
      : "";
    const frameToasts = showResults || atTable ? "" : toasts(m);
    const skip = phase === "lobby" || m.tv || m.you.seat == null ? ""
      : html`<button class="skip" data-action="skip-moves" data-key="skip">${t("table.skipmoves")}</button>`;
    patch(this.root, html`${skip}${connBanner(m)}<div id="stage" data-keep></div>${results}${frameToasts}`);
    const stage = this.root.querySelector("#stage");
    if (phase === "lobby" || !g.round) {
      this.unmountTable();
      patch(stage, m.tv ? tvLobby(m) : lobbyScreen(m, game.options.form(m.options ?? game.options.defaults, m.you.host)));
      return;
    }
    if (!this.table) {
      stage.replaceChildren();
      this.table = new game.Table();
      this.table.mount(stage);
    }
    const ctx = c.ctx();
    ctx.toasts = showResults ? "" : toasts(m, true);
    ctx.header = roomHeader(m, g.round ? t("table.round", { n: g.round.number }) : "", this.sound(),
      m.tv ? tvLobby(m, { aside: true }) : "");
    this.table.update(g, ctx);
    this.keys.rove(stage);
    this.keys.keep(stage);
  }

  // The language and the rules under the scores (≡); under a round's or a game's results too,
  // where a small phone's header has no room for them ("when-small": hidden where it has).
  menuLine(m, scoresOnly) {
    const line = html`<p class="menu-rules${scoresOnly ? "" : " when-small"}">${langSelect("lang-menu")} ${rulesLink(m.room.game_type)}</p>`;
    return scoresOnly ? html`${line}${tvLink(m.room.code)}` : line;
  }

  unmountTable() {
    if (this.table) this.table.unmount();
    this.table = null;
  }

  tick(c) {
    if (!this.table || !c.game) return null;
    return c.game.tick(this.root.querySelector("#stage"), c.ctx());
  }
}
