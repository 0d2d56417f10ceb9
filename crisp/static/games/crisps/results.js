// Crisps! results: the winner, the points after each round (who started, who won), and the
// last round's reveal (CS-SEE-END). The shell's frame adds Play again.
import { t } from "../../i18n.js";
import { html } from "../../shell/html.js";
import { revealMarkup } from "./table.js";

const nameOf = (g, seat) => g.players[seat] ?? `#${seat + 1}`;

function history(g) {
  if (!g.history.length) return html`<p class="muted">${t("results.nohistory")}</p>`;
  return html`<table class="hands" data-test="history"><caption class="sr-only">${t("results.history")}</caption>
    <thead><tr><th scope="col">${t("results.roundcol")}</th><th scope="col">${t("cs.results.starter")}</th>
    <th scope="col">${t("cs.results.winner")}</th>
    ${g.players.map((p) => html`<th scope="col">${p}</th>`)}</tr></thead>
    <tbody>${g.history.map((h) => html`<tr><th scope="row">${h.round}</th><td>${h.starter == null ? "" : nameOf(g, h.starter)}</td>
      <td>${nameOf(g, h.winner)}</td>${h.points.map((p, seat) => html`<td class="${h.winner === seat ? "winner" : ""}">${p}</td>`)}</tr>`)}
    </tbody></table>`;
}

function standings(g) {
  return html`<ol class="standings" data-test="standings">${[0, 1].sort((a, b) => (g.points[b] ?? 0) - (g.points[a] ?? 0))
    .map((seat) => html`<li><span class="name">${nameOf(g, seat)}</span> <strong>${g.points[seat] ?? 0}</strong></li>`)}</ol>`;
}

export function resultsBody(g, { scoresOnly = false, seat = null } = {}) {
  if (scoresOnly || !g.over) {
    return html`<h2>${t("menu.scores")}</h2><p>${t("cs.results.race")}</p>${standings(g)}
      <h3>${t("results.history")}</h3>${history(g)}`;
  }
  return html`<h2>${t("results.gameover")}</h2>
    <p class="winners" data-test="winners">${seat != null && g.winner === seat ? t("results.winner.you") : t("results.winner", { names: nameOf(g, g.winner) })}</p>
    ${standings(g)}
    ${revealMarkup(g, { closable: false, seat })}
    <h3>${t("results.history")}</h3>${history(g)}`;
}

export function resultsTitle(g) {
  return g.over ? t("results.gameover") : t("menu.scores");
}
