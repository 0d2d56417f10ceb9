// "Verify the shuffle": the commit–reveal check of a finished game's record, in the browser,
// with no server call (docs/fairness.md; the same checks and sentences as `crisp verify`).
//
//   import { verifyRecord } from "./fairness.js";
//   const { ok, message, rounds } = await verifyRecord(record);
//   // message: "verified", or the first difference; rounds: the decks found right
// The record's `fairness` holds the commitment published before the start, the server seed
// revealed at the end and the client seeds in seat order. The derivation (hmac-sha256/1):
//   game_key = HMAC-SHA256(server_seed, UTF-8 of JSON.stringify(client_seeds))
//   stream(label) = HMAC-SHA256(game_key, label + i as 4 bytes big-endian), i = 0, 1, …, read
//                   as 8-byte big-endian integers;
//   below(n) rejects x >= 2^64 - (2^64 mod n) and gives x mod n
//   first dealer = below(players) on "dealer"; round r's deck: Fisher–Yates of the sorted deck on
//   "deck" + r (4 bytes big-endian), i from 51 down to 1, j = below(i + 1); position 0 the top.
// WebCrypto (crypto.subtle) does the hashing where the page has it; a page served over plain http
// from a LAN address (not a secure context) has no crypto.subtle, so a small SHA-256 below takes
// over, giving the same bytes.

const SORTED_DECK = [..."SHDC"].flatMap((s) => [..."A23456789TJQK"].map((r) => r + s));
const TWO64 = 1n << 64n;
const HEX64 = /^[0-9a-f]{64}$/;
const enc = new TextEncoder();

class Unverifiable extends Error {}

function hexOf(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function bytesOf(hex) {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

function concat(a, b) {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

function be32(n) {
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
function cryptoOf(subtle) {
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

class Stream {
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

async function deckOf(hmac, round) {
  const stream = new Stream(hmac, concat(enc.encode("deck"), be32(round)));
  const deck = SORTED_DECK.slice();
  for (let i = deck.length - 1; i > 0; i--) {
    const j = await stream.below(i + 1);
    [deck[i], deck[j]] = [deck[j], deck[i]];
  }
  return deck;
}

// -- the record -----------------------------------------------------------------------------------

function need(ok, why) {
  if (!ok) throw new Unverifiable(why);
}

const isSeat = (x, n) => Number.isInteger(x) && x >= 0 && x < n;
const CARDS = new Set(SORTED_DECK);
const isDeck = (d) =>
  Array.isArray(d) && d.length === 52 && new Set(d).size === 52 && d.every((c) => CARDS.has(c));

function fairnessOf(record) {
  need(record && typeof record === "object" && !Array.isArray(record), "a record is a JSON object");
  need(record.format === "crisp-record/1", "format must be 'crisp-record/1'");
  const players = record.players;
  need(Array.isArray(players) && players.length >= 2 && players.length <= 8,
    "players must be a list of 2 to 8 names");
  const fair = record.fairness;
  need(fair && typeof fair === "object",
    "the record has no fairness (made before hmac-sha256/1, or by hand)");
  need(record.shuffle === "hmac-sha256/1", "shuffle must be 'hmac-sha256/1'");
  need(typeof fair.commitment === "string" && HEX64.test(fair.commitment),
    "fairness: commitment is not 64 lower-case hex digits");
  const seeds = fair.client_seeds;
  need(Array.isArray(seeds) && seeds.length === players.length &&
    seeds.every((s) => typeof s === "string" && s.length <= 64),
    "fairness: client_seeds must be one string (at most 64 characters) a seat");
  need("server_seed" in fair, "the server seed is revealed only once the game is over");
  need(typeof fair.server_seed === "string" && HEX64.test(fair.server_seed),
    "fairness: server_seed is 64 lower-case hex digits (32 bytes)");
  const rounds = record.rounds;
  need(Array.isArray(rounds) && rounds.length > 0, "the record has no rounds");
  rounds.forEach((rnd, ri) => {
    need(rnd && typeof rnd === "object", `rounds[${ri}]: a round is an object`);
    for (const name of ["dealer", "deck"]) {
      need(name in rnd, `rounds[${ri}] has no ${name} (a finished game lists them)`);
    }
    need(isSeat(rnd.dealer, players.length), `rounds[${ri}].dealer must be a seat`);
    need(isDeck(rnd.deck), `rounds[${ri}].deck: a deck is the 52 distinct card codes`);
  });
  const { server_seed: seed, commitment } = fair;
  return { players: players.length, seed, seeds, commitment, rounds };
}

const differs = (message, rounds) => ({ ok: false, message, rounds });
const short = (hex) => `${String(hex).slice(0, 12)}…`;

// The record against what this phone kept (issue 20, finding 11): every difference, in words.
function againstPhone(fair, { seen, seat }, result) {
  const kept = Array.isArray(seen) ? seen : [];
  if (!kept.length) {
    return { ...result, message: "verified by itself only: this phone kept nothing from before the deal to compare" };
  }
  const mine = kept.find((x) => x.commitment === fair.commitment);
  if (!mine) {
    const last = kept[kept.length - 1].commitment;
    const why = [`not what this phone saw: the record's commitment ${short(fair.commitment)} is new ` +
      `(this phone saw ${short(last)} in the lobby)`];
    const own = kept.map((x) => x.seed).filter(Boolean);
    if (own.length && !own.some((s) => fair.seeds.includes(s))) {
      why.push("this phone's client seed is missing from the record");
    }
    return { ok: false, message: why.join("; "), rounds: result.rounds };
  }
  if (mine.seed) {
    const at = Number.isInteger(seat) ? fair.seeds[seat] : undefined;
    const there = Number.isInteger(seat) ? at === mine.seed : fair.seeds.includes(mine.seed);
    if (!there) {
      const what = !at ? "is missing from the record" : `differs: it sent ${short(mine.seed)}, the record has ${short(at)}`;
      return { ok: false, message: `not what this phone saw: this phone's client seed ${what}`, rounds: result.rounds };
    }
  }
  return { ...result, message: "verified: matches what this phone saw before the deal" };
}

async function compare(fair, crypto) {
  const seed = bytesOf(fair.seed);
  const real = hexOf(await crypto.digest(seed));
  if (real !== fair.commitment) {
    return differs(`fairness.commitment differs: SHA-256(server_seed) is ${real}, ` +
      `the record says ${fair.commitment}`, 0);
  }
  const key = await (await crypto.hmac(seed))(enc.encode(JSON.stringify(fair.seeds)));
  const hmac = await crypto.hmac(key);
  const { rounds, players: n } = fair;
  let dealer = await new Stream(hmac, enc.encode("dealer")).below(n);
  for (let ri = 0; ri < rounds.length; ri++) {
    if (ri) dealer = (rounds[ri - 1].dealer + 1) % n;
    const said = rounds[ri].dealer;
    if (said !== dealer) {
      const why = ri === 0 ? "the seeds give" : "R-DEALER gives";
      return differs(`rounds[${ri}].dealer differs: ${why} seat ${dealer}, ` +
        `the record says seat ${said}`, ri);
    }
    const deck = await deckOf(hmac, ri + 1);
    const got = rounds[ri].deck;
    for (let pos = 0; pos < 52; pos++) {
      if (deck[pos] !== got[pos]) {
        return differs(`rounds[${ri}].deck differs at position ${pos}: ` +
          `the seeds give ${deck[pos]}, the record says ${got[pos]}`, ri);
      }
    }
  }
  return { ok: true, message: "verified", rounds: rounds.length };
}

// Verify a finished game's record (an object, or its JSON text). Never throws: a record that
// cannot be checked (malformed, unfinished, made before the scheme) gives
// {ok: false, message: "cannot verify: …", rounds: 0}. `options.subtle` replaces crypto.subtle
// (null: the built-in SHA-256), for tests.
//
// `options.phone` ({seen, seat}: what this phone kept before the deal, fairseed.js's `phoneSaw`,
// and its seat) adds the check that matters to a player (issue 20): the record's commitment is
// one this phone saw in the lobby, and its client seed is the one this phone sent, at its seat.
// Then the message is "verified: matches what this phone saw before the deal", or says what
// differs (ok false).
export async function verifyRecord(record, options = {}) {
  const subtle = "subtle" in options ? options.subtle : globalThis.crypto?.subtle;
  try {
    const data = typeof record === "string" ? JSON.parse(record) : record;
    const fair = fairnessOf(data);
    const result = await compare(fair, cryptoOf(subtle));
    return options.phone && result.ok ? againstPhone(fair, options.phone, result) : result;
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    return { ok: false, message: `cannot verify: ${why}`, rounds: 0 };
  }
}
