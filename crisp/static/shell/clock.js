// The game clock (docs/protocol.md "Time and countdowns"): an anchor, the `t` of the latest game
// message (or a state's `now`), and this page's monotonic clock when it arrived.
//
// The table's countdowns and choices run ahead of this clock by the measured round trip plus
// COUNTDOWN.marginMs (the controller's ctx.now): a message's `t` is one one-way delay old when it
// arrives, and a tap takes another to reach the server, so a countdown that reads 0 is the last
// moment a tap still arrives in time, one one-way delay before the server's own deadline. The
// margin covers the page's own lateness: what may be done is looked at every 100 ms (app.js).
// What may start at a game time (a draw's `at`) is judged by ctx.since, this clock unshifted: a
// tap made then arrives a round trip later, never early.
export const COUNTDOWN = { marginMs: 150 };

export function newClock(speed = 1) {
  return { t: 0, at: 0, speed };
}

// `at`: when the message arrived (performance.now()), not when it was handled: an animation
// that ran first must not make the clock late.
export function syncClock(clock, t, at = performance.now()) {
  if (typeof t === "number") {
    clock.t = t;
    clock.at = at;
  }
}

export function gameNow(clock) {
  return clock.t + ((performance.now() - clock.at) / 1000) * clock.speed;
}

// Real seconds until the game time `until` (never negative).
export function secondsTo(clock, until) {
  return Math.max(0, (until - gameNow(clock)) / clock.speed);
}
