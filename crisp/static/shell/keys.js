// Keyboard play: a hand is one tab stop ([data-rove]: the arrow keys, Home and End move within
// it), a card that cannot be chosen now is out of the tab order (still read by a screen reader),
// and a skip link goes straight to the moves.

const MOVES = new Map([["ArrowRight", 1], ["ArrowDown", 1], ["ArrowLeft", -1], ["ArrowUp", -1]]);

const choosable = (el) => !el.disabled && el.getAttribute("aria-disabled") !== "true";

export class Keys {
  constructor() {
    this.last = new Map(); // a hand's data-key -> the data-key of its card last moved to
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
