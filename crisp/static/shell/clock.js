// The game clock (docs/protocol.md "Time and countdowns"): an anchor, the `t` of the latest game
// message (or a state's `now`), and this page's monotonic clock when it arrived.

export function newClock(speed = 1) {
  return { t: 0, at: 0, speed };
}

export function syncClock(clock, t) {
  if (typeof t === "number") {
    clock.t = t;
    clock.at = performance.now();
  }
}

export function gameNow(clock) {
  return clock.t + ((performance.now() - clock.at) / 1000) * clock.speed;
}

// Real seconds until the game time `until` (never negative).
export function secondsTo(clock, until) {
  return Math.max(0, (until - gameNow(clock)) / clock.speed);
}
