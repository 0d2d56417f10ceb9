// The games this client knows, by the `game_type` of the server's `room` message ("crisp" when
// absent). A game is a module loaded on demand; its default export is the contract below, which
// the shell (shell/*.js, app.js) relies on and nothing more.
//
// The shell owns: the routes (/, /r/CODE, /r/CODE/tv), home, join, the lobby frame (members,
// Start, link/share/QR), the connection (net.js: reconnection, heartbeat, offline banner), i18n,
// the feed container, toasts, the results frame, sound, and the controller (shell/controller.js)
// that owns the model, the connection and the animation queue. Its model is
//   {code, room, you, conn, clock, v, ui, feed, game: <the game's state>, ...}.
// `ctx` below is what the shell tells a game about the moment:
//   {seat, host, room, now() (game time), speed, ui, online, pending, tv, feed, feedOpen, header}.
//
// A game module exports default {
//   type: "crisp",
//   engine: Set of the message types the game's engine sends (the shell routes them to it),
//   newGame() -> state,                          // the game's part of the model
//   fromView(state, view),                       // a `state` message's view (null: no game)
//   apply(state, msg, seat),                     // the reducer: one engine message
//   describe(state, msg, seat) -> string|null,   // the feed sentence (before apply): public only
//   feedOf(state, view, seat) -> [{text, mine}], // optional: the round's feed rebuilt from a view
//   animate({you, players, round}, msg, arrived) -> Promise,  // awaited before apply
//   Table: class { mount(el); update(state, ctx); unmount() }, // patches what changed
//   tick(el, ctx) -> low seconds | null,         // countdowns between messages
//   choices(state, ctx) -> Set of offered moves,
//   onAction(action, api) -> handled?, onCard(seat, slot, api, ctx),
//        // api: {g, seat, ui, setUi(ui), act(action, fields)}
//   options: {defaults, form(options, host) -> Markup, changed(options, el), same(a, b), body(options)},
//   results: {body(state, {scoresOnly}) -> Markup, title(state) -> string},
//   ruleSentence(ruleId) -> string|null,         // a refused action in words
//   moment(state, msg, seat) -> "yourturn"|"crisp"|"draw"|"swap"|"flip"|"timeout"|null,
//   playing(state) -> bool,                      // a round is on (keeps the screen awake)
//   feedAcrossRounds?: bool,                     // keep the feed at a new round (default: cleared)
// }
export const GAMES = {
  crisp: () => import("./crisp/index.js"),
  crisps: () => import("./crisps/index.js"),
};

// What the home page and the lobby need to know of a game before its module is loaded: its
// name, its bots' levels (the server's `bot_levels`), how many seats, and its rules pages
// (/static/rules/<rules><lang>.html).
export const GAME_INFO = {
  crisp: { name: "Crisp", bots: ["easy", "normal", "hard"], seats: 8, rules: "" },
  crisps: { name: "Crisps!", bots: ["random", "normal", "hard"], seats: 2, rules: "crisps/" },
};

export const gameInfo = (type) => GAME_INFO[type || "crisp"] ?? GAME_INFO.crisp;

export async function loadGame(type) {
  const load = GAMES[type || "crisp"];
  if (!load) throw new Error(`unknown game type: ${type}`);
  return (await load()).default;
}
