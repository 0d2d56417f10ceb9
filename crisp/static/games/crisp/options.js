// Crisp's lobby options (docs/rules.md §6): the form (read-only for all but the host) and the body of
// the `options` message a change sends (every option each time).
import { t } from "../../i18n.js";
import { html } from "../../shell/html.js";

export const DEFAULTS = { limit: 100, timer: null, take_discard: false };
const KEYS = ["limit", "timer", "take_discard"];

export function optionsForm(options, host) {
  const o = options;
  const dis = host ? "" : html` disabled`;
  const opt = (value, label, on) => html`<option value="${value}"${on ? html` selected` : ""}>${label}</option>`;
  return html`<section class="panel options">
    <h2>${t("lobby.options")}</h2>
    <label>${t("lobby.limit")}<select id="opt-limit" data-option="limit"${dis}>
      ${[50, 100, 150].map((n) => opt(n, t("lobby.points", { n }), o.limit === n))}</select></label>
    <label>${t("lobby.timer")}<select id="opt-timer" data-option="timer"${dis}>
      ${[null, 30, 45, 60].map((n) => opt(n ?? "", n ? t("lobby.seconds", { n }) : t("lobby.notimer"), o.timer === n))}</select></label>
    <label class="check"><input type="checkbox" id="opt-take" data-option="take_discard"${o.take_discard ? html` checked` : ""}${dis}>
      ${t("lobby.take")}</label>
  </section>`;
}

// The options after a change of the control `el` (from `options`, the base).
export function changedOptions(options, el) {
  const o = { ...options };
  if (el.dataset.option === "limit") o.limit = Number(el.value);
  if (el.dataset.option === "timer") o.timer = el.value ? Number(el.value) : null;
  if (el.dataset.option === "take_discard") o.take_discard = el.checked;
  return o;
}

export function sameOptions(a, b) {
  return KEYS.every((k) => a[k] === b[k]);
}

export function optionsBody(o) {
  return { limit: o.limit, timer: o.timer, take_discard: o.take_discard };
}
