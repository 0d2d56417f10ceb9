// "Verify the shuffle" for Crisps!: the commit–reveal check of a finished game's record
// (crisps-record/1), in the browser, with no server call: a port of crisp/engine/crisps/verify.py
// (the same checks, in the same order, and the same sentences as `crisp verify`).
//
//   import { verifyRecord } from "./fairness.js";
//   const { ok, message, rounds } = await verifyRecord(record, { phone });
//   // message: "verified", or the first difference; rounds: the decks found right
// The derivation is Crisp's (docs/fairness.md, hmac-sha256/1: the game key, the streams and
// below(n), shared in ../common/fairness.js) with Crisps!'s labels and deck (CS-SHUFFLE, CS-START):
//   first starter = below(2) on "crisps-starter";
//   round r's deck: Fisher–Yates of the sorted 40 cards 1111…9999XXXX on "crisps-deck" + r
//   (4 bytes big-endian), i from 39 down to 1, j = below(i + 1); position 0 the top.
// With `options.phone` the record is also checked against what this phone kept before the deal
// too; those sentences are in the phone's language (the cs.verify.* strings).

import { t } from "../../i18n.js";
import {
  HEX64, bytesOf, commitmentDiffers, differs, enc, english, gameHmac, need, roundLabel, shuffled,
  Stream, verify,
} from "../common/fairness.js";

const RANKS = "123456789X";
const SORTED_DECK = [...RANKS].flatMap((r) => [r, r, r, r]);
const FIELDS = new Set(["format", "game", "players", "options", "first_starter", "decks", "seed",
  "actions", "shuffle", "fairness"]);
const ACTION_FIELDS = new Set(["seat", "do", "cards", "take", "t"]);
const OPTION_FIELDS = ["no_faceup", "crisp_runs", "auto_skip", "timer"];
const RECORD_NUMBER_MAX = 1e12;
const MAX_CLIENT_SEED = 64;

// Python's repr of a JSON value, as the engine's messages quote it: 'x' (or "x" if it holds a
// ' and no "), None, True, 2 (a value the messages name is a field name or a format).
function repr(x) {
  if (x === undefined || x === null) return "None";
  if (typeof x === "boolean") return x ? "True" : "False";
  if (typeof x !== "string") return JSON.stringify(x);
  return x.includes("'") && !x.includes('"') ? `"${x}"` : `'${x}'`;
}
const isObject = (x) => x !== null && typeof x === "object" && !Array.isArray(x);
const sortedFirst = (names) => [...names].sort()[0];
// UTF-16 code units sort as Python's code points do for the field names a record may hold.
const firstUnknown = (obj, known) => sortedFirst(Object.keys(obj).filter((k) => !known.has(k)));
const wellFormed = (s) => (typeof s.isWellFormed === "function" ? s.isWellFormed()
  : !/[\ud800-\udbff](?![\udc00-\udfff])|(?:^|[^\ud800-\udbff])[\udc00-\udfff]/.test(s));

// crisp/engine/crisps/cards.py is_deck: 40 characters holding each rank four times.
function isDeck(deck) {
  if (typeof deck !== "string" || deck.length !== 40) return false;
  const counts = new Map();
  for (const c of deck) {
    if (!RANKS.includes(c)) return false;
    counts.set(c, (counts.get(c) ?? 0) + 1);
  }
  return [...RANKS].every((r) => counts.get(r) === 4);
}

// crisp/engine/crisps/options.py CrispsOptions.from_record.
function checkOptions(data) {
  need(isObject(data), "options: options must be an object");
  const unknown = firstUnknown(data, new Set(OPTION_FIELDS));
  need(unknown === undefined, `options: unknown option ${repr(unknown)}`);
  for (const name of ["no_faceup", "crisp_runs", "auto_skip"]) {
    need(!(name in data) || typeof data[name] === "boolean", `options: ${name} is true or false`);
  }
  const timer = data.timer ?? null;
  need(timer === null || [30, 45, 60].includes(timer), "options: timer is 30, 45, 60 or null");
}

// crisp/engine/common/fairness.py fairness_from_record(data, 2), its messages prefixed
// "fairness: " as record.load does; the fairness as verify needs it.
function fairnessOf(data) {
  const bad = (why) => need(false, `fairness: ${why}`);
  if (!isObject(data)) bad("fairness must be an object");
  const unknown = firstUnknown(data, new Set(["commitment", "server_seed", "client_seeds"]));
  if (unknown !== undefined) bad(`unknown field ${repr(unknown)}`);
  const seeds = data.client_seeds;
  if (!Array.isArray(seeds)) bad("client_seeds must be a list of strings, one a seat");
  if (seeds.length !== 2) bad(`client_seeds has ${seeds.length} seeds for 2 seats`);
  if (typeof data.commitment !== "string" || !HEX64.test(data.commitment)) {
    bad("commitment: a commitment is 64 lower-case hex digits (a SHA-256)");
  }
  seeds.forEach((s, i) => {
    if (typeof s !== "string") bad(`client seed ${i} must be a string, not ${repr(s)}`);
    if ([...s].length > MAX_CLIENT_SEED) bad(`client seed ${i} is longer than ${MAX_CLIENT_SEED} characters`);
    if (!wellFormed(s)) bad(`client seed ${i} is not valid Unicode text`);
  });
  if (!("server_seed" in data)) return { commitment: data.commitment, seeds, seed: null };
  const seed = data.server_seed;
  if (typeof seed !== "string" || !HEX64.test(seed)) bad("server_seed is 64 lower-case hex digits (32 bytes)");
  return { commitment: data.commitment, seeds, seed };
}

// crisp/engine/crisps/record.py load, then verify.py's own checks: the fairness to compare.
function read(data) {
  need(isObject(data), "a record is a JSON object");
  need(data.format === "crisps-record/1", `format must be 'crisps-record/1', not ${repr(data.format)}`);
  const unknown = firstUnknown(data, FIELDS);
  need(unknown === undefined, `unknown field ${repr(unknown)}`);
  need(!("game" in data) || data.game === "crisps", "game must be 'crisps'");
  const players = data.players;
  need(Array.isArray(players) && players.length === 2 && players.every((p) => typeof p === "string"),
    "players must be a list of two names (CS-PLAYERS)");
  checkOptions("options" in data ? data.options : {});
  const decks = "decks" in data ? data.decks : [];
  need(Array.isArray(decks), "decks must be a list of 40-card strings, one a round");
  decks.forEach((deck, i) => need(isDeck(deck), `decks[${i}] is not 40 cards holding each of 1-9 and X four times`));
  need(!("first_starter" in data) || data.first_starter === 0 || data.first_starter === 1,
    "first_starter must be 0 or 1");
  need(!("seed" in data) || Number.isInteger(data.seed), "seed must be an integer");
  const fair = "fairness" in data ? fairnessOf(data.fairness) : null;
  const revealed = Boolean(fair?.seed);
  need("seed" in data || revealed || ("first_starter" in data && decks.length > 0),
    "a record has a seed, or first_starter and decks");
  const actions = data.actions;
  need(Array.isArray(actions), "actions must be a list");
  actions.forEach((a, i) => {
    const where = `actions[${i}]`;
    need(isObject(a), `${where}: an action is an object`);
    const odd = firstUnknown(a, ACTION_FIELDS);
    need(odd === undefined, `${where}: unknown field ${repr(odd)}`);
    need("seat" in a && "do" in a, `${where}: an action has a seat and a do`);
    if ("t" in a) {
      need(typeof a.t === "number" && Number.isFinite(a.t) && a.t >= 0,
        `${where}: t is a finite, non-negative number of seconds`);
      need(a.t <= RECORD_NUMBER_MAX, `${where}: t is at most 1e+12 seconds`);
    }
  });
  // verify.py
  need(fair, "the record has no fairness (dealt from a seed or by hand)");
  need(revealed, "the server seed is revealed only once the game is over");
  need(decks.length > 0 && "first_starter" in data,
    "the record lists no decks and first starter (a server's does)");
  return { ...fair, decks, firstStarter: data.first_starter };
}

async function compare(fair, crypto) {
  const seed = bytesOf(fair.seed);
  const wrong = await commitmentDiffers(fair, crypto, seed);
  if (wrong) return wrong;
  const hmac = await gameHmac(crypto, seed, fair.seeds);
  const starter = await new Stream(hmac, enc.encode("crisps-starter")).below(2);
  if (fair.firstStarter !== starter) {
    return differs(`first_starter differs: the seeds give seat ${starter}, ` +
      `the record says seat ${fair.firstStarter}`, 0);
  }
  for (let r = 0; r < fair.decks.length; r++) {
    const want = await shuffled(hmac, roundLabel("crisps-deck", r + 1), SORTED_DECK);
    const got = fair.decks[r];
    for (let pos = 0; pos < 40; pos++) {
      if (want[pos] !== got[pos]) {
        return differs(`decks[${r}] differs at position ${pos}: ` +
          `the seeds give ${want[pos]}, the record says ${got[pos]}`, r);
      }
    }
  }
  return { ok: true, message: "verified", rounds: fair.decks.length };
}

// The phone's sentences in its language (the cs.verify.* strings of the Crisps! catalogue), or
// English where the catalogue is not loaded (Node, a test page: the key comes back as is).
const WORDS = {
  matches: (v) => t("cs.verify.matches", v),
  itself: (v) => t("cs.verify.itself", v),
  commitment: (v) => t("cs.verify.commitment", v),
  and: (v) => t("cs.verify.and", v),
  seedgone: (v) => t("cs.verify.seedgone", v),
  seedmissing: (v) => t("cs.verify.seedmissing", v),
  seeddiffers: (v) => t("cs.verify.seeddiffers", v),
};

function say(key, vars) {
  const text = WORDS[key](vars);
  return text.startsWith("cs.verify.") ? english(key, vars) : text;
}

// Verify a finished Crisps! game's record (an object, or its JSON text). Never throws: a record
// that cannot be checked gives {ok: false, message: "cannot verify: …", rounds: 0} (the reason is
// `crisp verify`'s). `options.subtle` replaces crypto.subtle (null: the built-in SHA-256), for
// tests. `options.phone` ({seen, seat}, fairseed.js's `phoneSaw` and this phone's seat) adds the
// check against what this phone saw in the lobby: "verified: matches what this phone saw before
// the deal", or what differs (ok false), in the phone's language.
export function verifyRecord(record, options = {}) {
  return verify(record, options, { read, compare, say });
}
