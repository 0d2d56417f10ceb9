// Crisps! lobby options (docs/rules-crisps.md §7): the form (read-only for all but the host) and the body
// of the `options` message a change sends (every option each time).
import { t } from "../../i18n.js";
import { html } from "../../shell/html.js";

export const DEFAULTS = { no_faceup: false, crisp_runs: false, auto_skip: false, timer: null };
const KEYS = ["no_faceup", "crisp_runs", "auto_skip", "timer"];
const CHECKS = [
  ["no_faceup", () => t("cs.opt.nofaceup"), () => t("cs.opt.nofaceup.help")],
  ["crisp_runs", () => t("cs.opt.crispruns"), () => t("cs.opt.crispruns.help")],
  ["auto_skip", () => t("cs.opt.skip"), () => t("cs.opt.skip.help")],
];

export function optionsForm(options, host) {
  const o = { ...DEFAULTS, ...options };
  const dis = host ? "" : html` disabled`;
  const opt = (value, label, on) => html`<option value="${value}"${on ? html` selected` : ""}>${label}</option>`;
  const checks = CHECKS.map(([key, label, help]) => html`<label class="check"><input type="checkbox" id="opt-${key}"
    data-option="${key}" aria-describedby="help-${key}"${o[key] ? html` checked` : ""}${dis}> ${label()}</label>
    <p class="muted small" id="help-${key}">${help()}</p>`);
  return html`<section class="panel options" data-test="options">
    <h2>${t("lobby.options")}</h2>
    <label>${t("cs.opt.timer")}<select id="opt-timer" data-option="timer"${dis}>
      ${[null, 30, 45, 60].map((n) => opt(n ?? "", n ? t("lobby.seconds", { n }) : t("lobby.notimer"), o.timer === n))}</select></label>
    ${checks}
  </section>`;
}

// The options after a change of the control `el` (from `options`, the base).
export function changedOptions(options, el) {
  const o = { ...DEFAULTS, ...options };
  const key = el.dataset.option;
  if (key === "timer") o.timer = el.value ? Number(el.value) : null;
  else if (KEYS.includes(key)) o[key] = el.checked;
  return o;
}

export function sameOptions(a, b) {
  return KEYS.every((k) => (a?.[k] ?? DEFAULTS[k]) === (b?.[k] ?? DEFAULTS[k]));
}

export function optionsBody(o) {
  return Object.fromEntries(KEYS.map((k) => [k, o[k] ?? DEFAULTS[k]]));
}
