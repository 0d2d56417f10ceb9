// A line of the move feed, kept as the event and told at display time: a
// language switch re-tells every line in the new language, and card faces show as small card
// icons. `tell(icon)` makes the sentence in the current language, naming a card by
// `icon(face, red)`; it is called again at each display, from values captured when the event
// arrived (never from the game state, which has moved on since).
import { Markup, escape, html } from "../../shell/html.js";

const MARK = "\u0001"; // never in a name: the server strips control characters

export class Line extends Markup {
  constructor(tell) {
    super("");
    this.tell = tell;
  }

  // Markup sets `text` in its constructor; a line's text is made when it is displayed.
  set text(_unused) {}

  get text() {
    const icons = [];
    const sentence = this.tell((face, red = false) => {
      icons.push(html`<span class="${red ? "feed-card red" : "feed-card"}">${face}</span>`.text);
      return `${MARK}${icons.length - 1}${MARK}`;
    });
    if (!sentence) return "";
    return escape(sentence).replace(/\u0001(\d+)\u0001/g, (_, i) => icons[Number(i)]);
  }

  toString() {
    return this.tell((face) => face) ?? "";
  }
}

// The line for a sentence maker, or null when the event is not a move (it tells nothing).
export function line(tell) {
  return tell((face) => face) ? new Line(tell) : null;
}

// The feed's look (a newest line shown whole, the card icons, the full list newest first): a
// stylesheet of its own, added once when a game's feed is first loaded (not in the first load).
export function feedStyle() {
  if (typeof document === "undefined" || document.getElementById("guide-css")) return;
  const link = document.createElement("link");
  link.id = "guide-css";
  link.rel = "stylesheet";
  link.href = new URL("./guide.css", import.meta.url).href;
  document.head.append(link);
}

// Whether this device has had the first-game guide of `game` (skipped, or a game played to its
// end): games/common/guide.js remembers it.
export function guideDone(game) {
  try {
    return localStorage.getItem(`crisp.guide.${game}`) === "done";
  } catch {
    return true; // no storage: no guide rather than one that comes back at every game
  }
}

// Remembers on this device that the first-game guide of `game` is done (skipped, or a game over).
export function guideFinished(game) {
  try {
    localStorage.setItem(`crisp.guide.${game}`, "done");
  } catch {
    /* storage full or refused: the guide goes at the next render anyway */
  }
}

// A game's feed teaches a first game: the guide's line (games/common/guideline.js) takes Skip and
// How to play; `load()` imports the game's guide.js (How to play, lazily); the rules link opens
// How to play in the app. The returned function, given each message, ends the guide with the
// first game's end.
export function teacher(game, load) {
  let mod = null;
  const get = () => (mod ??= load());
  const howto = (href) => get().then((m) => m.howto()).catch(() => href && window.open(href, "_blank", "noopener"));
  if (typeof document !== "undefined") {
    document.addEventListener("click", (ev) => {
      const a = ev.target.closest?.('a[data-test="rules"]');
      if (!a || ev.ctrlKey || ev.metaKey || ev.shiftKey || !a.href.includes(`/games/${game}/`)) return;
      ev.preventDefault();
      howto(a.href);
    }, true);
    document.addEventListener("click", (ev) => {
      const button = ev.target.closest?.("[data-guide]");
      const line = button?.closest(".guide");
      if (!line || line.dataset.game !== game) return;
      if (button.dataset.guide === "howto") return void howto(null);
      guideFinished(game);
      line.remove(); // the next render draws no guide: it is done
    });
  }
  return (players, msg, me) => {
    if (me != null && msg.type === "game_over") guideFinished(game);
  };
}
