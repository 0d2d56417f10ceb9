// Keyboard play: a hand is one tab stop ([data-rove]: the arrow keys, Home and End move within
// it), a card that cannot be chosen now is out of the tab order (still read by a screen reader),
// a skip link goes straight to the moves, and the focus is never dropped: when the move or card
// that held it goes (sent, played, the turn over), the next place to play takes it.

const MOVES = new Map([["ArrowRight", 1], ["ArrowDown", 1], ["ArrowLeft", -1], ["ArrowUp", -1]]);

const choosable = (el) => !el.disabled && el.getAttribute("aria-disabled") !== "true";
const PLAY = "[data-rove], nav.actions";

export class Keys {
  constructor() {
    this.last = new Map(); // a hand's data-key -> the data-key of its card last moved to
    this.playing = null; // where the focus was last: "move", "card" (keyboard play), else null
  }

  // Before each render: where the focus is (on the page itself: where it was last).
  before(root) {
    const el = document.activeElement;
    if (!el || el === document.body) return;
    const place = root.contains(el) ? el.closest(PLAY) : null;
    this.playing = !place ? null : place.matches("nav.actions") ? "move" : "card";
  }

  // After each render: a focus dropped from a move or a card (gone, or disabled) goes to the same
  // kind of place that can be used now — from a move, the first move that can be made, else the
  // hand's tab stop; from a card, the other way round — or stays where it is.
  keep(root) {
    const el = document.activeElement;
    if (!this.playing || (el && el !== document.body && el.isConnected && choosable(el))) return;
    const move = [...root.querySelectorAll("nav.actions button")].find(choosable);
    const card = root.querySelector('[data-rove] button[tabindex="0"]');
    (this.playing === "move" ? move ?? card : card ?? move)?.focus({ preventScroll: true });
  }

  // After each render: one tab stop per hand (the card last moved to, else the first choosable).
  rove(root) {
    for (const group of root.querySelectorAll("[data-rove]")) {
      const cards = [...group.querySelectorAll("button")];
      const live = cards.filter(choosable);
      const kept = this.last.get(group.dataset.key);
      const stop = live.find((b) => b === document.activeElement) ?? live.find((b) => b.dataset.key === kept) ?? live[0];
      for (const b of cards) b.tabIndex = b === stop ? 0 : -1;
    }
    for (const b of root.querySelectorAll('button[data-seat][aria-disabled="true"]')) {
      if (!b.closest("[data-rove]")) b.tabIndex = -1;
    }
  }

  // An arrow key (or Home, End) on a card of a hand: the next choosable card takes the focus.
  onKey(event) {
    const group = event.target.closest?.("[data-rove]");
    if (!group || event.altKey || event.ctrlKey || event.metaKey) return false;
    const live = [...group.querySelectorAll("button")].filter(choosable);
    const at = live.indexOf(event.target);
    if (at < 0) return false;
    let to = null;
    if (MOVES.has(event.key)) to = (at + MOVES.get(event.key) + live.length) % live.length;
    else if (event.key === "Home") to = 0;
    else if (event.key === "End") to = live.length - 1;
    if (to == null) return false;
    event.preventDefault();
    this.last.set(group.dataset.key, live[to].dataset.key);
    for (const b of live) b.tabIndex = b === live[to] ? 0 : -1;
    live[to].focus();
    return true;
  }

  // The skip link: the first move that can be made, else the first choosable card of a hand.
  toMoves(root) {
    const move = [...root.querySelectorAll("nav.actions button")].find(choosable);
    const card = [...root.querySelectorAll("[data-rove] button")].find(choosable);
    (move ?? card)?.focus();
  }
}
