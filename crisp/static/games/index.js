// The games this client knows (the registry: the one file of the shell that names them), by the
// `game_type` of the server's `room` message; before any room (the home page, a room link while
// it loads) the first one below. A game is a module loaded on demand, with its strings (its
// i18n/<lang>.js, merged into the shell's); its default export is the contract below, which the
// shell (shell/*.js, app.js) relies on and nothing more.
//
// The shell owns: the routes (/, /r/CODE, /r/CODE/tv), home, join, the lobby frame (members,
// Start, link/share/QR), the connection (net.js: reconnection, heartbeat, offline banner), i18n,
// the feed container, toasts, the results frame, sound, and the controller (shell/controller.js)
// that owns the model, the connection and the animation queue. Its model is
//   {code, room, you, conn, clock, v, ui, feed, game: <the game's state>, ...}.
// `ctx` below is what the shell tells a game about the moment:
//   {seat, host, room, now() (game time, ahead by the round trip: shell/clock.js), since() (game
//   time, unshifted: for what may start), speed, ui, online,
//   pending (the action on its way), pendingMove (its fields), pendingNote (the status while it is),
//   tv, feed, feedOpen, header}.
//
// A game module exports default {
//   type: "<its game_type>",
//   strings: {en, load(lang) -> Promise<module>},  // its catalogue: English, then any language
//   engine: Set of the message types the game's engine sends (the shell routes them to it),
//   newGame() -> state,                          // the game's part of the model
//   fromView(state, view),                       // a `state` message's view (null: no game)
//   apply(state, msg, seat),                     // the reducer: one engine message
//   describe(state, msg, seat) -> string|null,   // the feed sentence (before apply): public only
//   feedOf(state, view, seat) -> [{text, mine}], // optional: the round's feed rebuilt from a view
//   animate({you, players, round}, msg, arrived) -> Promise,  // awaited before apply
//   Table: class { mount(el); update(state, ctx); unmount() }, // patches what changed
//   tick(el, ctx) -> low seconds | null,         // countdowns between messages
//   deciding(state, seat) -> bool,               // this seat's decision now (its low time ticks)
//   choices(state, ctx) -> Set of offered moves,
//   onAction(action, api) -> handled?,
//   cards: a CSS selector of the table's tappable cards,
//   onCard(dataset, api, ctx),                   // a tap on one of them (its data-* attributes)
//        // api: {g, seat, ui, setUi(ui), act(action, fields)}
//   expire?(state, now) -> bool,                 // drop what is shown for a moment (a look) once
//        // past (now: performance.now()); true: something went, render again
//   verifier?() -> Promise<{verifyRecord}>,      // "Verify the shuffle" of a finished game's record
//   onSetting?(name, el) -> handled?,            // a change of its own data-setting control
//   options: {defaults, form(options, host) -> Markup, changed(options, el), same(a, b), body(options)},
//   results: {body(state, {scoresOnly}) -> Markup, title(state) -> string},
//   ruleSentence(ruleId, action) -> string|null, // a refused action in words (action: its `do`)
//   notAnswers?: Set,                              // message types naming a seat that do not answer
//                                                  // its pending action (turn, look, clock never do)
//   moment(state, msg, seat) -> "yourturn"|"call"|"draw"|"swap"|"flip"|"timeout"|null,
//        // "call": a call the table hears (said aloud, a longer buzz)
//   playing(state) -> bool,                      // a round is on (keeps the screen awake)
//   feedAcrossRounds?: bool,                     // keep the feed at a new round (default: cleared)
// }
import { addCatalogue } from "../i18n.js";
import en from "./i18n/en.js";

// One entry a game: what the home page and the lobby need to know of it before its module is
// loaded (its name, its bots' levels: the server's `bot_levels`, how many seats) and how to load
// it. Its rules pages are /static/games/<type>/rules/<lang>.html; what the home page says of it,
// home.about.<type> in ./i18n/<lang>.js.
export const GAMES = {
  crisp: { name: "Crisp", bots: ["easy", "normal", "hard"], seats: 8, load: () => import("./crisp/index.js") },
  crisps: { name: "Crisps!", bots: ["random", "normal", "hard"], seats: 2, load: () => import("./crisps/index.js") },
};

// The game before any room: the first above.
export const FIRST_GAME = Object.keys(GAMES)[0];

addCatalogue("games", en, (lang) => import(`./i18n/${lang}.js`));

export const gameInfo = (type) => GAMES[type ?? FIRST_GAME] ?? GAMES[FIRST_GAME];

export async function loadGame(type = FIRST_GAME) {
  const entry = GAMES[type ?? FIRST_GAME];
  if (!entry) throw new Error(`unknown game type: ${type}`);
  const game = (await entry.load()).default;
  await addCatalogue(game.type, game.strings.en, game.strings.load);
  return game;
}
