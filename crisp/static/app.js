// The shell's entry: routes (/, /r/CODE, /r/CODE/tv), home, join and practice, then a controller
// per room (shell/controller.js) with its connection (net.js) and renderer (shell/renderer.js)
// injected; taps and keys become the controller's intents. The game is chosen by the room's
// `game_type` (games/index.js).
import { pickLanguage, setLanguage, t } from "./i18n.js";
import { Connection } from "./net.js";
import { phoneSaw } from "./fairseed.js";

// A room link with a seat token here (or the TV view): the WebSocket opens at once, while the
// rest of the client loads (its messages wait in the connection until the controller listens).
const tokenKey = (code) => `crisp.token.${code}`;
const early = (() => {
  const found = location.pathname.match(/^\/r\/([A-Za-z]{12}|[A-Za-z]{5})(\/tv)?\/?$/);
  if (!found) return null;
  const code = found[1].toUpperCase();
  const token = found[2] ? null : localStorage.getItem(tokenKey(code));
  if (!found[2] && !token) return null;
  const conn = new Connection(code, token);
  conn.open();
  return { code, conn };
})();

const [{ Controller, newModel }, { patch }, { Renderer }, { homeScreen, joinScreen, waitingScreen },
  { play, soundOn, toggleSound }, { FIRST_GAME, GAMES, loadGame }] = await Promise.all([
  import("./shell/controller.js"), import("./shell/morph.js"), import("./shell/renderer.js"),
  import("./shell/screens.js"), import("./shell/sound.js"), import("./games/index.js")]);

const root = document.getElementById("app");
const live = document.getElementById("announce");
let controller = null;
let fairness = null;
let wakeLock = null;
let lowSeen = null;

const nameKey = "crisp.name";
const gameKey = "crisp.game"; // the game last chosen on the home page

// The shuffle verifier (another module, maybe not there): asked for once a game is over; the
// results menu offers "Verify the shuffle" only if it loaded.
// It is the game's (its `verifier` hook): a game without one offers no verification.
let fairnessAsked = null;
function verifier(c) {
  if (fairnessAsked !== c.game) {
    fairnessAsked = c.game;
    fairness = null;
    c.game?.verifier?.().then((m) => { fairness = m; c.render(); }).catch(() => { fairness = null; });
  }
  return fairness;
}
// Fetch the table while the page settles: the game chosen at home; for a room link, the first
// game (the room's `game_type` decides once it is there).
loadGame(location.pathname === "/" ? chosenGame() : FIRST_GAME).catch(() => {});

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
  const tv = location.pathname.match(/^\/r\/([A-Za-z]{12}|[A-Za-z]{5})\/tv\/?$/);
  if (tv) return connect(tv[1].toUpperCase(), null, { tv: true });
  const match = location.pathname.match(/^\/r\/([A-Za-z]{12}|[A-Za-z]{5})\/?$/);
  if (match) return openRoom(match[1].toUpperCase());
  return showHome();
}

// A screen of its own (home, join, waiting): fresh elements, so that no listener is added twice.
function show(markup) {
  root.replaceChildren();
  patch(root, markup);
}

function chosenGame() {
  const saved = localStorage.getItem(gameKey);
  return saved && GAMES[saved] ? saved : FIRST_GAME;
}

function showHome(error = "") {
  document.title = "Crisp";
  const game = chosenGame();
  show(homeScreen(error, localStorage.getItem(nameKey) || "", game));
  import("./games/showcase.js").then((m) => m.showcase(root)).catch(() => {}); // the games' cards, after the page
  const nameNow = () => root.querySelector("#name").value.trim();
  for (const radio of root.querySelectorAll('input[name="game"]')) {
    radio.addEventListener("change", () => {
      const typed = nameNow();
      if (typed) localStorage.setItem(nameKey, typed);
      localStorage.setItem(gameKey, radio.value);
      loadGame(radio.value).catch(() => {});
      showHome();
      root.querySelector(`input[name="game"][value="${radio.value}"]`)?.focus();
    });
  }
  root.querySelector("#create-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const name = nameNow();
    if (!name) return showHome(t("err.name"));
    localStorage.setItem(nameKey, name);
    await createAndOpen(name, null, game);
  });
  root.querySelector("#practice-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const name = nameNow() || t("practice.name");
    if (nameNow()) localStorage.setItem(nameKey, name);
    const bots = root.querySelector("#practice-bots");
    const practice = { level: root.querySelector("#practice-level").value, bots: bots ? Number(bots.value) : 1 };
    await createAndOpen(name, practice, game);
  });
  root.querySelector("#join-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const code = root.querySelector("#code").value.replace(/[\s-]+/g, "").toUpperCase();
    if (!/^([A-Z]{12}|[A-Z]{5})$/.test(code)) return showHome(t("err.code"));
    const name = nameNow(); // typed above: carried to the join form
    if (name) localStorage.setItem(nameKey, name);
    history.pushState(null, "", `/r/${code}`);
    openRoom(code);
  });
}

async function createAndOpen(name, practice, game) {
  try {
    const joined = await api("/api/rooms", { name, game });
    localStorage.setItem(tokenKey(joined.code), joined.token);
    history.pushState(null, "", `/r/${joined.code}`);
    connect(joined.code, joined.token, { practice });
  } catch (err) {
    showHome(err.message);
  }
}

async function openRoom(code) {
  document.title = `Crisp ${code}`;
  const token = localStorage.getItem(tokenKey(code));
  if (token) return connect(code, token);
  show(waitingScreen()); // nothing to type into while the room is looked up
  let summary = null;
  try {
    summary = await api(`/api/rooms/${code}`);
  } catch {
    summary = null;
  }
  const draw = (error = "") => {
    show(joinScreen(code, summary, error, localStorage.getItem(nameKey) || ""));
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

// -- a room: its controller -------------------------------------------------------------------

function connect(code, token, { tv = false, practice = null } = {}) {
  controller?.stop();
  document.title = tv ? `Crisp ${code} — TV` : `Crisp ${code}`;
  document.body.classList.toggle("tv-mode", tv);
  show(waitingScreen());
  const model = newModel(code, { tv });
  model.practice = practice;
  const renderer = new Renderer(root, { sound: soundOn, verify: () => verifier(controller) });
  const opened = early && early.code === code && !early.used ? early.conn : null;
  if (early) early.used = true;
  controller = new Controller({
    model,
    connection: opened ?? new Connection(code, token),
    renderer,
    loadGame,
    effects: {
      moment: (name) => {
        play(name);
        if (name === "yourturn") buzz(120);
        if (name === "call") buzz([80, 60, 80]);
      },
      announce,
      keepAwake,
      closed: (status) => {
        localStorage.removeItem(tokenKey(code));
        if (status === "closed-4404") showHome(t("join.noroom", { code }));
        else if (status === "closed-4405") showHome(t("conn.roomclosed", { code }));
        else showHome(status === "closed-4409" ? t("conn.removed") : t("conn.badtoken"));
        controller = null;
      },
      left: () => {
        localStorage.removeItem(tokenKey(code));
        history.pushState(null, "", "/");
        controller?.stop();
        controller = null;
        showHome();
      },
    },
  });
  controller.start();
}

// Between messages: what may be done changes with the game clock (the game's `choices`), what is
// shown for a moment goes (its `expire`), the countdowns run, and the last seconds of your own
// decision tick (and buzz once).
setInterval(() => {
  const c = controller;
  if (!c || !c.game || !c.model.room || c.model.room.phase === "lobby") return;
  const m = c.model;
  const acts = [...c.game.choices(m.game, c.ctx())].sort().join();
  const now = performance.now();
  const gone = Boolean(c.game.expire?.(m.game, now));
  if (acts !== m.lastChoices || gone) {
    m.lastChoices = acts;
    c.render();
    return;
  }
  const low = c.renderer.tick(c);
  const mine = c.game.deciding(m.game, m.you.seat);
  if (low != null && mine && low !== lowSeen) {
    if (lowSeen == null) buzz([60, 40, 60]);
    play("low");
  }
  lowSeen = low != null && mine ? low : null;
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
  const phase = controller?.model.room?.phase;
  if (document.visibilityState === "visible" && phase && phase !== "lobby") keepAwake(true);
});

// -- input: taps and keys become the controller's intents ------------------------------------------

root.addEventListener("click", (event) => {
  const c = controller;
  const el = c && event.target.closest(`[data-action], ${c.game?.cards ?? "[data-action]"}`);
  if (!el || el.disabled) return;
  if (el.dataset.action) return onAction(c, el.dataset.action, el);
  if (el.getAttribute("aria-disabled") === "true" || c.model.pending) return; // one move at a time
  c.game.onCard(el.dataset, gameApi(c), c.ctx()); // a card of the game's (its `cards`)
  c.render();
});

root.addEventListener("keydown", (event) => {
  if (controller?.renderer.keys.onKey(event)) event.stopPropagation();
});

root.addEventListener("change", async (event) => {
  const el = event.target;
  if (el.dataset.setting === "lang") {
    await setLanguage(el.value);
    if (controller?.model.room) controller.render();
    else route();
    return;
  }
  const c = controller;
  if (el.dataset.setting && c?.game?.onSetting?.(el.dataset.setting, el)) return; // the game's own
  if (c && el.dataset.option) {
    c.setOptions(c.game.options.changed(c.model.options, el));
    c.render();
  }
});

function gameApi(c) {
  return {
    g: c.model.game,
    seat: c.model.you.seat,
    ui: c.model.ui,
    setUi: (ui) => { c.model.ui = ui; },
    act: (action, fields) => c.act(action, fields),
  };
}

function onAction(c, action, el) {
  const m = c.model;
  if (c.game.onAction(action, gameApi(c))) return c.render();
  switch (action) {
    case "start": case "continue": case "rematch": case "leave":
      if (c.send({ type: action })) m.pending = { action, at: performance.now() }; // until the room answers
      break;
    case "kick-ask":
      m.shell.confirmKick = Number(el.dataset.member);
      break;
    case "kick-cancel":
      m.shell.confirmKick = null;
      break;
    case "kick":
      c.send({ type: "kick", member: Number(el.dataset.member) });
      m.shell.confirmKick = null;
      break;
    case "makehost":
      c.send({ type: "host", member: Number(el.dataset.member) });
      break;
    case "add-bot":
      c.send({ type: "add_bot", level: root.querySelector("#bot-level")?.value || "normal" });
      break;
    case "scores": // one overlay at a time: the ≡ menu closes the move list
      m.shell.scores = !m.shell.scores;
      m.shell.feedOpen = false;
      break;
    case "skip-moves":
      c.renderer.keys.toMoves(root.querySelector("#stage"));
      return;
    case "feed": // ... and the move list closes the ≡ menu
      m.shell.feedOpen = !m.shell.feedOpen;
      m.shell.scores = false;
      break;
    case "qr":
      m.shell.qrBig = !m.shell.qrBig;
      break;
    case "sound":
      toggleSound();
      break;
    case "retry":
      if (!c.conn.retryNow()) c.toast(t("conn.offline"), "warn");
      break;
    case "verify":
      verify(c);
      return;
    case "copy":
      navigator.clipboard?.writeText(`${location.origin}/r/${m.room.code}`).then(() => {
        m.shell.copied = true;
        c.render();
      }).catch(() => {});
      return;
    case "share":
      navigator.share?.({ title: "Crisp", text: t("lobby.invite"), url: `${location.origin}/r/${m.room.code}` }).catch(() => {});
      return;
    default:
      if (action.startsWith("grace-")) c.send({ type: "grace", seat: Number(action.slice(6)) });
      if (action.startsWith("standin-")) c.send({ type: "bot", seat: Number(action.slice(8)), level: "normal" });
  }
  c.render();
}

async function verify(c) {
  try {
    const record = await api(`/api/rooms/${c.model.room.code}/record`);
    const room = c.model.room;
    const phone = { seen: phoneSaw(room.game_type, room.code), seat: c.model.you.seat };
    const result = await fairness.verifyRecord(record, { phone });
    c.model.shell.verified = result.message;
  } catch (err) {
    c.model.shell.verified = err.message;
  }
  c.render();
}

// -- start ------------------------------------------------------------------------------------

window.addEventListener("popstate", () => {
  controller?.stop();
  controller = null;
  route();
});

await setLanguage(pickLanguage());
route();

// The service worker (sw.js, served at /sw.js): the shell kept for an instant reload, and for a
// reload without a network. Registered once the page has loaded, so that it never slows a first
// load.
function registerWorker() {
  navigator.serviceWorker?.register("/sw.js").catch((err) => console.info("no service worker:", err.message));
}
if (document.readyState === "complete") registerWorker();
else window.addEventListener("load", registerWorker, { once: true });
