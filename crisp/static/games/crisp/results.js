// Crisp's results body: every hand face up with the round's points (the caller's ±5 explained),
// the standings sorted, and the score history of the rounds this page saw (a table and a chart).
import { t } from "../../i18n.js";
import { html } from "../../shell/html.js";
import { faceMarkup, fourColour } from "./cards.js";

// R-VALUE: Ace 1, 2 to 9 their number, T J Q K 10.
export function value(code) {
  const rank = code[0];
  if (rank === "A") return 1;
  return "TJQK".includes(rank) ? 10 : Number(rank);
}

// A round's score with its sign: "+12", "−5" (U+2212), "0"; never "+-5".
export function signed(n) {
  if (n > 0) return `+${n}`;
  return n < 0 ? `−${-n}` : "0";
}

const nameOf = (g, seat) => g.players[seat] ?? `#${seat + 1}`;

function handsTable(g, rev) {
  const caller = rev.caller;
  const rows = rev.hands.map((hand, seat) => {
    let note = "";
    if (seat === caller) {
      const raw = hand.reduce((a, c) => a + value(c), 0);
      note = rev.scores[seat] < raw ? t("results.bonus") : t("results.malus");
    }
    return html`<tr class="${g.over && g.winners.includes(seat) ? "winner" : ""}">
      <th scope="row">${nameOf(g, seat)}${seat === caller ? " ★" : ""}</th>
      <td class="hand">${hand.map((c) => html`<span class="card tiny up">${faceMarkup(c)}</span>`)}</td>
      <td>${rev.scores[seat]} <small>${note}</small></td><td><strong>${rev.totals[seat]}</strong></td></tr>`;
  });
  return html`<table class="hands"><thead><tr><th scope="col">${t("results.player")}</th><th scope="col">${t("results.cards")}</th>
    <th scope="col">${t("results.roundpts")}</th><th scope="col">${t("results.total")}</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function standings(g) {
  const order = g.players.map((_, seat) => seat).sort((a, b) => (g.totals[a] ?? 0) - (g.totals[b] ?? 0));
  return html`<ol class="standings" data-test="standings">${order.map((seat) => html`<li>
    <span class="name">${nameOf(g, seat)}</span> <strong>${g.totals[seat] ?? 0}</strong></li>`)}</ol>`;
}

// The history as an ARIA table of divs (the hands table stays the only <tbody> of the panel).
function history(g) {
  const rows = g.history;
  if (!rows.length) return "";
  const head = html`<div role="row" class="hrow head"><span role="columnheader">${t("results.roundcol")}</span>
    ${g.players.map((p) => html`<span role="columnheader">${p}</span>`)}</div>`;
  const body = rows.map((row) => html`<div role="row" class="hrow"><span role="rowheader">${row.round ?? t("results.earlier")}</span>
    ${row.totals.map((total, seat) => html`<span role="cell">${row.scores ? html`<small>${signed(row.scores[seat])}</small> ` : ""}${total}</span>`)}</div>`);
  return html`<h3>${t("results.history")}</h3>
    <div role="table" class="history" data-test="history" aria-label="${t("results.history")}">${head}${body}</div>${chart(g)}`;
}

function chart(g) {
  const rows = g.history;
  if (rows.length < 2) return "";
  const top = Math.max(g.options.limit, ...rows.flatMap((r) => r.totals));
  const w = 300;
  const h = 120;
  const x = (i) => 10 + (i * (w - 20)) / (rows.length - 1);
  const y = (v) => h - 10 - (Math.max(0, v) * (h - 20)) / top;
  const lines = g.players.map((_, seat) => html`<polyline class="series s${seat}" fill="none"
    points="${rows.map((r, i) => `${x(i).toFixed(1)},${y(r.totals[seat]).toFixed(1)}`).join(" ")}"></polyline>`);
  return html`<svg class="chart" viewBox="0 0 ${w} ${h}" role="img" aria-label="${t("results.chart")}">
    <line class="limit" x1="0" x2="${w}" y1="${y(g.options.limit)}" y2="${y(g.options.limit)}"></line>${lines}</svg>
    <p class="legend">${g.players.map((p, seat) => html`<span class="key s${seat}">${p}</span>`)}</p>`;
}

function confetti() {
  return html`<div class="confetti" aria-hidden="true">${Array.from({ length: 16 }, () => html`<i></i>`)}</div>`;
}

// The body under the shell's results frame; `scoresOnly`: the in-game Scores menu.
// The game's winners, told to you in the second person when you are one of them: "You win!",
// "You and Zoé win!", "Zoé and Léo win!": the own phone says "You".
function winnerLine(g, names, seat) {
  const mine = seat != null && g.winners.includes(seat);
  const others = g.winners.filter((s) => s !== seat || seat == null).map((s) => nameOf(g, s));
  if (mine && !others.length) return t("results.winner.you");
  if (mine) return t("results.winners.you", { names: listOf([t("results.you"), ...others]) });
  if (others.length > 1) return t("results.winners", { names: listOf(others) });
  return t("results.winner", { names });
}

// "A, B and C" in the current language.
function listOf(items) {
  if (items.length < 2) return items.join("");
  return items.slice(0, -1).join(t("results.list.comma")) + t("results.list.and") + items[items.length - 1];
}

export function resultsBody(g, { scoresOnly = false, seat = null } = {}) {
  const rev = g.lastReveal;
  if (scoresOnly || !rev) {
    return html`<h2>${t("menu.scores")}</h2>${standings(g)}${history(g) || html`<p class="muted">${t("results.nohistory")}</p>`}
      <h3>${t("menu.settings")}</h3>
      <label class="check"><input type="checkbox" id="four-colour" data-setting="fourcolour"${fourColour() ? html` checked` : ""}>
        ${t("menu.fourcolour")}</label>`;
  }
  const names = g.winners.map((s) => nameOf(g, s)).join(", ");
  return html`${g.over ? confetti() : ""}
    <h2>${g.over ? t("results.gameover") : t("results.round", { n: rev.round })}</h2>
    ${g.over ? html`<p class="winners" data-test="winners">${winnerLine(g, names, seat)}</p>` : ""}
    ${rev.caller != null ? html`<p>${t("results.caller", { name: nameOf(g, rev.caller) })}</p>` : ""}
    ${handsTable(g, rev)}
    ${g.story && g.story.round === rev.round ? html`<button data-action="replay" data-test="replay-round">${t("results.replay")}</button>` : ""}
    <p class="muted small">${t("results.rule5")}</p>
    <h3>${t("results.standings")}</h3>${standings(g)}${history(g)}`;
}

export function resultsTitle(g) {
  const rev = g.lastReveal;
  return g.over ? t("results.gameover") : rev ? t("results.round", { n: rev.round }) : t("menu.scores");
}
