// Issue 14, the phone's part of the server protocol (docs/fairness.md, "What a phone sees and
// does"): its client seed for the commit–reveal shuffle, and its answers to the server's probes
// (R-WINDOW-LAG). Plain ES module, no dependency.

// 16 random bytes from crypto.getRandomValues, as 32 lower-case hex digits.
export function clientSeed() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

// Answer a server message if it is a probe: send {type: "probe_ack", n} at once (before any
// other work, so the round trip the server measures is the network's). True if it was one (the
// caller need not handle it further).
export function answerProbe(msg, send) {
  if (!msg || msg.type !== "probe" || !Number.isInteger(msg.n)) return false;
  send({ type: "probe_ack", n: msg.n });
  return true;
}

// When to send the seed: feed it every `room` message with the `you` of the latest `welcome`
// (or `state`). It sends one fresh client seed per commitment, once the phone is a member and
// the room is in the lobby: after joining, and again after each rematch (a new commitment).
// Watchers send none. Returns the seed sent, or null.
export class SeedSender {
  constructor(send) {
    this.send = send;
    this.sentFor = null;
  }

  onRoom(room, you) {
    if (!room || room.phase !== "lobby" || !room.commitment) return null;
    if (!you || you.member == null || this.sentFor === room.commitment) return null;
    const seed = clientSeed();
    this.send({ type: "client_seed", seed });
    this.sentFor = room.commitment;
    return seed;
  }
}
