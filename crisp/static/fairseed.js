// The phone's part of the server protocol (docs/fairness.md, "What a phone sees and
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
    if (!you || you.member == null) {
      remember(room, null); // a watcher keeps the commitment it saw, and sends no seed
      return null;
    }
    if (this.sentFor === room.commitment) return null;
    const seed = clientSeed();
    this.send({ type: "client_seed", seed });
    this.sentFor = room.commitment;
    remember(room, seed);
    return seed;
  }
}

// What this phone saw before the deal, kept per room and game in
// localStorage ("crisp.fair.<game>.<ROOM>": a JSON list of {commitment, seed}, newest last, the
// latest 8), so that "Verify the shuffle" checks the record against the phone, not only against
// itself. `seed` is the client seed this phone sent for that commitment (null: it sent none).
const MEMORY = 8;
const memoryKey = (game, code) => `crisp.fair.${game || "room"}.${code}`;

export function phoneSaw(game, code, store = globalThis.localStorage) {
  try {
    const list = JSON.parse(store?.getItem(memoryKey(game, code)) || "[]");
    return Array.isArray(list) ? list.filter((x) => x && typeof x.commitment === "string") : [];
  } catch {
    return [];
  }
}

function remember(room, seed, store = globalThis.localStorage) {
  if (!room.code) return;
  try {
    const list = phoneSaw(room.game_type, room.code, store);
    const old = list.find((x) => x.commitment === room.commitment);
    if (old && (seed == null || old.seed === seed)) return;
    const rest = list.filter((x) => x.commitment !== room.commitment);
    rest.push({ commitment: room.commitment, seed: seed ?? old?.seed ?? null });
    store?.setItem(memoryKey(room.game_type, room.code), JSON.stringify(rest.slice(-MEMORY)));
  } catch {
    // storage full or refused (private mode): the verification then says it has nothing to compare
  }
}
