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
// from a LAN address (not a secure context) has no crypto.subtle, so a small SHA-256 takes over,
// giving the same bytes. Those pieces, shared with Crisps!'s verifier, are ../common/fairness.js.

import {
  HEX64, bytesOf, commitmentDiffers, differs, enc, gameHmac, need, roundLabel, sha256, shuffled,
  Stream, verify,
} from "../common/fairness.js";

export { sha256 };

const SORTED_DECK = [..."SHDC"].flatMap((s) => [..."A23456789TJQK"].map((r) => r + s));

const deckOf = (hmac, round) => shuffled(hmac, roundLabel("deck", round), SORTED_DECK);

// -- the record -----------------------------------------------------------------------------------

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

async function compare(fair, crypto) {
  const seed = bytesOf(fair.seed);
  const wrong = await commitmentDiffers(fair, crypto, seed);
  if (wrong) return wrong;
  const hmac = await gameHmac(crypto, seed, fair.seeds);
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
// and its seat) adds the check that matters to a player: the record's commitment is
// one this phone saw in the lobby, and its client seed is the one this phone sent, at its seat.
// Then the message is "verified: matches what this phone saw before the deal", or says what
// differs (ok false).
export function verifyRecord(record, options = {}) {
  return verify(record, options, { read: fairnessOf, compare });
}
