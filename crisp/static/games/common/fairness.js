// What the games' "Verify the shuffle" modules share (docs/fairness.md, hmac-sha256/1): SHA-256
// and HMAC (WebCrypto, or a small SHA-256 where the page is not a secure context), the game key,
// the streams and below(n), the Fisher–Yates shuffle of a sorted deck on a stream, the check of a
// record against what this phone kept before the deal, and the wrapper that
// turns a record that cannot be checked into {ok: false, message: "cannot verify: …"}.
// Each game's fairness.js (games/crisp/, games/crisps/) reads its own record and labels.

export const TWO64 = 1n << 64n;
export const HEX64 = /^[0-9a-f]{64}$/;
export const enc = new TextEncoder();

// A record that cannot be checked: verify() answers "cannot verify: <message>".
export class Unverifiable extends Error {}

export function need(ok, why) {
  if (!ok) throw new Unverifiable(why);
}

// -- bytes ----------------------------------------------------------------------------------------

export function hexOf(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

export function bytesOf(hex) {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

export function concat(a, b) {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

export function be32(n) {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, n, false);
  return out;
}

// -- SHA-256 and HMAC: WebCrypto, or the fallback -------------------------------------------------

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

const rotr = (x, n) => (x >>> n) | (x << (32 - n));

// FIPS 180-4 SHA-256 of a Uint8Array (the fallback where crypto.subtle is missing).
export function sha256(bytes) {
  const blocks = ((bytes.length + 9 + 63) >> 6) << 6;
  const m = new Uint8Array(blocks);
  m.set(bytes);
  m[bytes.length] = 0x80;
  const dv = new DataView(m.buffer);
  const bits = bytes.length * 8;
  dv.setUint32(blocks - 8, Math.floor(bits / 2 ** 32), false);
  dv.setUint32(blocks - 4, bits >>> 0, false);
  const H = new Uint32Array([
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
  ]);
  const W = new Uint32Array(64);
  for (let off = 0; off < blocks; off += 64) {
    for (let i = 0; i < 16; i++) W[i] = dv.getUint32(off + 4 * i, false);
    for (let i = 16; i < 64; i++) {
      const a = W[i - 15];
      const b = W[i - 2];
      W[i] = W[i - 16] + (rotr(a, 7) ^ rotr(a, 18) ^ (a >>> 3)) + W[i - 7] +
        (rotr(b, 17) ^ rotr(b, 19) ^ (b >>> 10));
    }
    let [a, b, c, d, e, f, g, h] = H;
    for (let i = 0; i < 64; i++) {
      const s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
      const t1 = (h + s1 + ((e & f) ^ (~e & g)) + K[i] + W[i]) | 0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
      h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
    }
    H[0] += a; H[1] += b; H[2] += c; H[3] += d; H[4] += e; H[5] += f; H[6] += g; H[7] += h;
  }
  const out = new Uint8Array(32);
  const ov = new DataView(out.buffer);
  H.forEach((word, i) => ov.setUint32(4 * i, word, false));
  return out;
}

function fallbackHmac(key) {
  const k = new Uint8Array(64);
  k.set(key.length > 64 ? sha256(key) : key);
  const inner = k.map((b) => b ^ 0x36);
  const outer = k.map((b) => b ^ 0x5c);
  return async (msg) => sha256(concat(outer, sha256(concat(inner, msg))));
}

// The crypto of a verification: `subtle` is crypto.subtle, or null for the fallback.
export function cryptoOf(subtle) {
  if (!subtle) {
    return { digest: async (bytes) => sha256(bytes), hmac: async (key) => fallbackHmac(key) };
  }
  return {
    digest: async (bytes) => new Uint8Array(await subtle.digest("SHA-256", bytes)),
    hmac: async (key) => {
      const algo = { name: "HMAC", hash: "SHA-256" };
      const k = await subtle.importKey("raw", key, algo, false, ["sign"]);
      return async (msg) => new Uint8Array(await subtle.sign("HMAC", k, msg));
    },
  };
}

// -- the derivation -------------------------------------------------------------------------------

export class Stream {
  constructor(hmac, label) {
    this.hmac = hmac;
    this.label = label; // bytes
    this.counter = 0;
    this.view = null;
    this.pos = 4;
  }

  async next64() {
    if (this.pos === 4) {
      const block = await this.hmac(concat(this.label, be32(this.counter)));
      this.view = new DataView(block.buffer, block.byteOffset, 32);
      this.counter += 1;
      this.pos = 0;
    }
    const x = this.view.getBigUint64(8 * this.pos, false);
    this.pos += 1;
    return x;
  }

  async below(n) {
    const big = BigInt(n);
    const limit = TWO64 - (TWO64 % big);
    for (;;) {
      const x = await this.next64();
      if (x < limit) return Number(x % big);
    }
  }
}

// -- the derivation's pieces ----------------------------------------------------------------------

// A verdict that the record differs from its own derivation, from round `rounds` on.
export const differs = (message, rounds) => ({ ok: false, message, rounds });

// The first check of every game: the server seed's SHA-256 is the record's commitment. The
// difference, or null.
export async function commitmentDiffers(fair, crypto, seed) {
  const real = hexOf(await crypto.digest(seed));
  if (real === fair.commitment) return null;
  return differs(`fairness.commitment differs: SHA-256(server_seed) is ${real}, ` +
    `the record says ${fair.commitment}`, 0);
}

// The game key: HMAC-SHA256(key = server seed, msg = UTF-8 of JSON.stringify(client seeds)), as
// the HMAC function of that key (for the streams).
export async function gameHmac(crypto, seed, seeds) {
  const key = await (await crypto.hmac(seed))(enc.encode(JSON.stringify(seeds)));
  return crypto.hmac(key);
}

// A Fisher–Yates shuffle of `sorted` (an array) on the stream `label` (bytes): for i from the
// last position down to 1, j = below(i + 1), swap i and j. Position 0 is the top.
export async function shuffled(hmac, label, sorted) {
  const stream = new Stream(hmac, label);
  const deck = sorted.slice();
  for (let i = deck.length - 1; i > 0; i--) {
    const j = await stream.below(i + 1);
    [deck[i], deck[j]] = [deck[j], deck[i]];
  }
  return deck;
}

// A label and a round number as 4 bytes big-endian ("deck" + r, "crisps-deck" + r).
export const roundLabel = (label, round) => concat(enc.encode(label), be32(round));

// -- against what this phone saw ----------------------------------------------------------------

// The phone's sentences in English; a game may give its own words (`say(key, vars)`, its
// language's), falling back to these.
export const PHONE_WORDS = {
  matches: "verified: matches what this phone saw before the deal",
  itself: "verified by itself only: this phone kept nothing from before the deal to compare",
  commitment: "not what this phone saw: the record's commitment {said} is new (this phone saw {seen} in the lobby)",
  and: "{first}; {second}",
  seedgone: "this phone's client seed is missing from the record",
  seedmissing: "not what this phone saw: this phone's client seed is missing from the record",
  seeddiffers: "not what this phone saw: this phone's client seed differs: it sent {sent}, the record has {has}",
};

export function english(key, vars = {}) {
  return PHONE_WORDS[key].replace(/\{(\w+)\}/g, (m, name) => (name in vars ? String(vars[name]) : m));
}

const short = (hex) => `${String(hex).slice(0, 12)}…`;

// The record (its `commitment` and client `seeds`, in seat order), already verified by itself as
// `result`, against what this phone kept ({seen: [{commitment, seed}], seat}): the commitment is
// one this phone saw in the lobby, and the seed at its seat is the one it sent; every difference
// in words.
export function againstPhone(fair, { seen, seat }, result, say = english) {
  const kept = Array.isArray(seen) ? seen : [];
  if (!kept.length) return { ...result, message: say("itself") };
  const mine = kept.find((x) => x.commitment === fair.commitment);
  if (!mine) {
    const last = kept[kept.length - 1].commitment;
    let message = say("commitment", { said: short(fair.commitment), seen: short(last) });
    const own = kept.map((x) => x.seed).filter(Boolean);
    if (own.length && !own.some((s) => fair.seeds.includes(s))) {
      message = say("and", { first: message, second: say("seedgone") });
    }
    return { ok: false, message, rounds: result.rounds };
  }
  if (mine.seed) {
    const at = Number.isInteger(seat) ? fair.seeds[seat] : undefined;
    const there = Number.isInteger(seat) ? at === mine.seed : fair.seeds.includes(mine.seed);
    if (!there) {
      const message = !at ? say("seedmissing") : say("seeddiffers", { sent: short(mine.seed), has: short(at) });
      return { ok: false, message, rounds: result.rounds };
    }
  }
  return { ...result, message: say("matches") };
}

// -- the verification -----------------------------------------------------------------------------

// Verify a record (an object, or its JSON text) with a game's two halves: `read(data)` checks its
// form (throwing Unverifiable, or anything, to say why it cannot be checked) and gives its
// fairness ({commitment, seeds, ...}); `compare(fair, crypto)` gives {ok, message, rounds}. Never
// throws. `options.subtle` replaces crypto.subtle (null: the built-in SHA-256), for tests;
// `options.phone` adds the check against what this phone saw, in `say`'s words.
export async function verify(record, options, { read, compare, say = english }) {
  const subtle = "subtle" in options ? options.subtle : globalThis.crypto?.subtle;
  try {
    const data = typeof record === "string" ? JSON.parse(record) : record;
    const fair = read(data);
    const result = await compare(fair, cryptoOf(subtle));
    return options.phone && result.ok ? againstPhone(fair, options.phone, result, say) : result;
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    return { ok: false, message: `cannot verify: ${why}`, rounds: 0 };
  }
}
