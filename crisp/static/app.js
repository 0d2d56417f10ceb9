// The controller: routes, the room connection, the message queue (animations in order, then the
// model, then one render), and the input layer that turns taps into protocol messages.
import { animate } from "./anim.js";
import { pickLanguage, setLanguage, t } from "./i18n.js";
import { applyEvent, choices, fromState, newModel } from "./model.js";
import { Connection } from "./net.js";
import { homeScreen, joinScreen, lobbyScreen, resultsPanel, tableScreen, updateCountdowns } from "./view.js";

const ENGINE = new Set(["game", "round", "look", "ready", "turn", "draw", "recycle", "swap", "discard", "jack",
  "queen", "king", "take", "timeout", "turn_end", "window_closed", "crisp", "reveal", "game_over", "clock"]);
const root = document.getElementById("app");
const live = document.getElementById("announce");
let model = newModel();
let conn = null;
let queue = Promise.resolve();
let wakeLock = null;
let showScores = false;

const tokenKey = (code) => `crisp.token.${code}`;
const nameKey = "crisp.name";

function announce(text) {
  live.textContent = "";
  setTimeout(() => { live.textContent = text; }, 30);
}

function buzz(pattern) {
  if (navigator.vibrate) navigator.vibrate(pattern);
}

async function api(path, body) {
  let resp;
  try {
    resp = await fetch(path, body === undefined ? {} : {
      method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body),
    });
  } catch {
    throw new Error(t("err.network"));
  }
  const data = await resp.json().catch(() => ({}));
  if (!resp.ok) {
    const detail = Array.isArray(data.detail) ? data.detail[0]?.msg : data.error || data.detail;
    throw new Error(detail || resp.statusText);
  }
  return data;
}

// -- routes -----------------------------------------------------------------------------------

function route() {
  const match = location.pathname.match(/^\/r\/([A-Za-z]{12}|[A-Za-z]{5})\/?$/);
  if (match) return openRoom(match[1].toUpperCase());
  return showHome();
}

function showHome(error = "") {
  document.title = "Crisp";
  root.innerHTML = homeScreen(error, localStorage.getItem(nameKey) || "");
  root.querySelector("#create-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const name = root.querySelector("#name").value.trim();
    if (!name) return showHome(t("err.name"));
    localStorage.setItem(nameKey, name);
    try {
      const joined = await api("/api/rooms", { name });
      localStorage.setItem(tokenKey(joined.code), joined.token);
      history.pushState(null, "", `/r/${joined.code}`);
      openRoom(joined.code);
    } catch (err) {
      showHome(err.message);
    }
  });
  root.querySelector("#join-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const code = root.querySelector("#code").value.replace(/[\s-]+/g, "").toUpperCase();
    if (!/^([A-Z]{12}|[A-Z]{5})$/.test(code)) return showHome(t("err.code"));
    const name = root.querySelector("#name").value.trim(); // typed above: carried to the join form
    if (name) localStorage.setItem(nameKey, name);
    history.pushState(null, "", `/r/${code}`);
    openRoom(code);
  });
}

// Between two screens, a placeholder: a field left from the page before would swallow typing.
function showWaiting() {
  root.innerHTML = `<main class="home"><p class="muted" aria-busy="true">…</p></main>`;
}

async function openRoom(code) {
  document.title = `Crisp ${code}`;
  const token = localStorage.getItem(tokenKey(code));
  if (token) return connect(code, token);
  showWaiting(); // nothing to type into while the room is looked up
  let summary = null;
  try {
    summary = await api(`/api/rooms/${code}`);
  } catch {
    summary = null;
  }
  const draw = (error = "") => {
    root.innerHTML = joinScreen(code, summary, error, localStorage.getItem(nameKey) || "");
    const form = root.querySelector("#name-form");
    if (!form) return;
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const name = root.querySelector("#name").value.trim();
      if (!name) return draw(t("err.name"));
      localStorage.setItem(nameKey, name);
      try {
        const joined = await api(`/api/rooms/${code}/join`, { name });
        localStorage.setItem(tokenKey(joined.code), joined.token);
        connect(joined.code, joined.token);
      } catch (err) {
        draw(err.message);
      }
    });
  };
  draw();
}

// -- the connection and the message queue -----------------------------------------------------

function connect(code, token) {
  model = newModel();
  model.code = code;
  model.ui = {};
  showWaiting();
  conn = new Connection(code, token);
  conn.addEventListener("status", (event) => {
    model.conn = event.detail;
    if (event.detail === "closed-4409" || event.detail === "closed-4401") {
      localStorage.removeItem(tokenKey(code));
      showHome(event.detail === "closed-4409" ? t("conn.removed") : t("conn.badtoken"));
      return;
    }
    if (event.detail === "closed-4404") {
      localStorage.removeItem(tokenKey(code));
      showHome(t("join.noroom", { code }));
      return;
    }
    if (model.room) render();
  });
  conn.addEventListener("message", (event) => {
    const msg = event.detail;
    queue = queue.then(() => handle(msg)).catch((err) => console.warn(err));
  });
  conn.open();
}

async function handle(msg) {
  if (ENGINE.has(msg.type)) {
    await animate(model, msg);
    const before = model.round?.turn?.seat;
    applyEvent(model, msg);
    react(msg, before);
  } else if (msg.type === "welcome") {
    model.clock.speed = msg.clock_speed;
    model.you = msg.you;
    model.optionsSent = null; // a new connection: the room that follows is the truth
  } else if (msg.type === "room") {
    model.room = msg;
    const mine = msg.members.find((x) => x.id === model.you.member);
    if (mine) {
      model.you = { ...model.you, seat: msg.phase === "lobby" ? null : mine.seat, host: mine.host, name: mine.name };
    }
    if (msg.phase === "lobby") takeOptions(msg.options);
    keepAwake(msg.phase === "playing" || msg.phase === "between");
  } else if (msg.type === "state") {
    fromState(model, msg);
    model.ui = {};
  } else if (msg.type === "error") {
    if (msg.code === "stale" || msg.code === "bad_version") conn.send({ type: "sync" });
    else console.info("refused:", msg.code, msg.rule || "", msg.message);
    if (msg.about === "options" && model.room) {
      model.optionsSent = null; // not taken: the controls show the room's options again
      model.options = model.room.options;
    }
    model.ui = {};
  } else if (msg.type === "left") {
    localStorage.removeItem(tokenKey(model.code));
    history.pushState(null, "", "/");
    conn.stopped = true;
    showHome();
    return;
  }
  render();
}

// The host's last change stands until a "room" carries it: the answer to an earlier change, still
// on its way, must neither flick the controls back nor become the base of the next change.
function takeOptions(options) {
  const sent = model.optionsSent;
  if (sent && !["limit", "timer", "take_discard"].every((k) => options[k] === sent[k])) return;
  model.optionsSent = null;
  model.options = options;
}

function react(msg, before) {
  const me = model.you.seat;
  if (msg.type === "turn" && msg.seat === me && me != null && (before !== me || msg.draw === 1)) {
    buzz(120);
    announce(t("announce.yourturn"));
  } else if (msg.type === "crisp") {
    buzz([80, 60, 80]);
    announce(msg.seat === me ? t("announce.crispyou") : t("announce.crisp", { name: model.players[msg.seat] }));
  } else if (msg.type === "look" && msg.seat === me && msg.why !== "deal") {
    setTimeout(render, 3050); // the look is over: face down again, and forgotten
  } else if (msg.type === "ready" && msg.seat === me) {
    model.looks = {};
  }
  if (msg.type === "turn" || msg.type === "turn_end" || msg.type === "reveal") model.ui = {};
}

// -- drawing ----------------------------------------------------------------------------------

function render() {
  if (!model.room) return;
  const focus = document.activeElement?.dataset?.action || document.activeElement?.id;
  const phase = model.room.phase;
  let html;
  if (phase === "lobby") html = lobbyScreen(model);
  else {
    html = tableScreen(model);
    if (phase === "between" || phase === "over" || showScores) html += resultsPanel(model);
  }
  if (model.conn === "reconnecting" || model.conn === "connecting") {
    html = `<div class="conn" data-test="conn" role="status">${t("conn.reconnecting")}</div>` + html;
  }
  root.innerHTML = html;
  updateCountdowns(model, root);
  if (focus) root.querySelector(`[data-action="${focus}"], #${CSS.escape(focus)}`)?.focus();
}

setInterval(() => {
  if (!model.room || model.room.phase === "lobby") return;
  const actions = [...choices(model)].sort().join();
  if (actions !== model.lastChoices) {
    model.lastChoices = actions;
    render(); // a draw becomes possible at 2 s, a crisp window closes at 3 s
    return;
  }
  const now = performance.now();
  if (Object.values(model.flash).some((f) => f.until <= now)) {
    for (const [slot, f] of Object.entries(model.flash)) if (f.until <= now) delete model.flash[slot];
    render();
    return;
  }
  updateCountdowns(model, root);
}, 100);

async function keepAwake(on) {
  try {
    if (on && !wakeLock && navigator.wakeLock && document.visibilityState === "visible") {
      wakeLock = await navigator.wakeLock.request("screen");
      wakeLock.addEventListener("release", () => { wakeLock = null; });
    } else if (!on && wakeLock) {
      await wakeLock.release();
      wakeLock = null;
    }
  } catch {
    wakeLock = null;
  }
}

document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible" && model.room && model.room.phase !== "lobby") keepAwake(true);
});

// -- input: taps and keys become protocol messages ------------------------------------------------

function act(action, fields = {}) {
  conn.send({ type: "act", v: model.v, do: action, ...fields });
  model.ui = {};
}

root.addEventListener("click", (event) => {
  const el = event.target.closest("[data-action], [data-slot]");
  if (!el || el.disabled) return;
  if (el.dataset.action) return onAction(el.dataset.action, el);
  return onCard(Number(el.dataset.seat), el.dataset.slot);
});

root.addEventListener("change", async (event) => {
  const el = event.target;
  if (el.id === "lang") {
    await setLanguage(el.value);
    if (model.room) render();
    else route();
    return;
  }
  if (el.dataset.option) {
    const o = { ...model.options };
    if (el.dataset.option === "limit") o.limit = Number(el.value);
    if (el.dataset.option === "timer") o.timer = el.value ? Number(el.value) : null;
    if (el.dataset.option === "take_discard") o.take_discard = el.checked;
    if (!conn.send({ type: "options", ...o })) return render(); // offline: the change is undone
    model.options = o; // a second change before the server's "room" must not undo this one
    model.optionsSent = o;
  }
});

function onAction(action, el) {
  const ui = model.ui;
  switch (action) {
    case "ready": case "draw": case "discard": case "jack": case "king": case "crisp":
      act(action);
      break;
    case "take":
      model.ui = { mode: "take" };
      break;
    case "queen":
      model.ui = { mode: "queen-mine", queen: {} };
      break;
    case "confirm":
      if (ui.mode === "queen-confirm") {
        const q = ui.queen;
        act("queen", { slot: q.slot, target: q.target, target_slot: q.targetSlot });
      }
      break;
    case "cancel":
      model.ui = {};
      break;
    case "start": case "continue": case "rematch": case "leave":
      conn.send({ type: action });
      break;
    case "kick":
      conn.send({ type: "kick", member: Number(el.dataset.member) });
      break;
    case "makehost":
      conn.send({ type: "host", member: Number(el.dataset.member) });
      break;
    case "add-bot":
      conn.send({ type: "add_bot", level: root.querySelector("#bot-level")?.value || "normal" });
      break;
    case "scores":
      showScores = !showScores;
      break;
    case "copy":
      navigator.clipboard?.writeText(`${location.origin}/r/${model.room.code}`).then(() => {
        el.textContent = t("lobby.copied");
      }).catch(() => {});
      return;
    case "share":
      navigator.share?.({ title: "Crisp", text: t("lobby.invite"), url: `${location.origin}/r/${model.room.code}` }).catch(() => {});
      return;
    default:
      if (action.startsWith("grace-")) conn.send({ type: "grace", seat: Number(action.slice(6)) });
      if (action.startsWith("standin-")) conn.send({ type: "bot", seat: Number(action.slice(8)), level: "normal" });
  }
  render();
}

function onCard(seat, slot) {
  const ui = model.ui;
  const me = model.you.seat;
  if (seat === me && !ui.mode && choices(model).has("swap")) {
    act("swap", { slot });
  } else if (ui.mode === "take" && seat === me) {
    act("take_discard", { slot });
  } else if (ui.mode === "queen-mine" && seat === me) {
    model.ui = { mode: "queen-theirs", queen: { slot } };
  } else if ((ui.mode === "queen-theirs" || ui.mode === "queen-confirm") && seat !== me) {
    model.ui = { mode: "queen-confirm", queen: { ...ui.queen, target: seat, targetSlot: slot } };
  } else if (ui.mode === "queen-confirm" && seat === me) {
    model.ui = { mode: "queen-confirm", queen: { ...ui.queen, slot } };
  } else {
    return;
  }
  render();
}

// -- start ------------------------------------------------------------------------------------

window.addEventListener("popstate", () => {
  if (conn) {
    conn.stopped = true;
    conn.ws?.close();
    conn = null;
  }
  route();
});

await setLanguage(pickLanguage());
route();
