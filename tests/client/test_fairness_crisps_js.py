"""``crisp/static/games/crisps/fairness.js`` (the phone's "Verify the shuffle" for Crisps!, a port
of ``crisp/engine/crisps/verify.py`` and ``shuffle.py``), run in Node, agrees with ``crisp verify``
(``verify_crisps``) on 24 finished games dealt by the commit–reveal shuffle (CS-SHUFFLE, CS-START:
``crisps-starter``, ``crisps-deck`` + r, the 40 sorted cards) and on a tampered copy of each (a deck
card, the server seed, a client seed, the commitment, the first starter): the same verdict, the same
first difference, the same count of decks; with WebCrypto and with its own SHA-256. Records it
cannot check (unfinished, seed-dealt, malformed) give ``cannot verify:`` and ``crisp verify``'s
reason. And against what the phone kept before the deal: the true record "matches what this phone
saw before the deal"; a record re-dealt from a new server seed with no client seeds (it verifies by
itself) does not."""

from __future__ import annotations

import copy
import json
import random
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from paths import ROOT

from crisp.engine.common.fairness import Fairness, seed_from_int
from crisp.engine.crisps import CrispsGame, CrispsOptions
from crisp.engine.crisps.verify import CrispsUnverifiable, verify_crisps

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="needs Node")

MODULE = ROOT / "crisp" / "static" / "games" / "crisps" / "fairness.js"
# Client seeds as phones send them (32 hex digits), bots' (""), and what else a seat's may be: the
# game key hashes JSON.stringify's bytes in Node and json.dumps' in Python; 40 emoji are 40
# characters for the engine (at most 64) though 80 UTF-16 units.
ODD_SEEDS = [
    "",
    "a1b2",
    'quote " and \\ back',
    "é 日本 🃏",
    "tab\tnew\nline\x01",
    "x" * 64,
    "🃏" * 40,
]
TAMPERS = ["deck", "server_seed", "client_seed", "commitment", "first_starter"]
GAMES = 24

SCRIPT = """
import { readFileSync } from "node:fs";
import { verifyRecord } from %s;
const { records, phones } = JSON.parse(readFileSync(%s, "utf-8"));
const out = { webcrypto: [], fallback: [], text: [], phones: [] };
for (const r of records) {
  out.webcrypto.push(await verifyRecord(r));
  out.fallback.push(await verifyRecord(r, { subtle: null }));
}
out.text.push(await verifyRecord(JSON.stringify(records[0])), await verifyRecord("{"));
for (const [r, phone] of phones) out.phones.push(await verifyRecord(r, { phone }));
console.log(JSON.stringify(out));
"""


def _seeds(k: int) -> tuple[str, str]:
    if k % 2:
        return (ODD_SEEDS[k % len(ODD_SEEDS)], ODD_SEEDS[(k + 3) % len(ODD_SEEDS)])
    return (seed_from_int(1000 * k).hex()[:32], "" if k % 4 else seed_from_int(k + 77).hex()[:32])


def _finished(fair: Fairness, k: int) -> dict[str, Any]:
    """A random legal game to its end (CS-GAME-END), with the options varied."""
    options = CrispsOptions(
        no_faceup=k % 3 == 1, crisp_runs=k % 4 == 2, auto_skip=k % 5 == 3, timer=(None, 30)[k % 2]
    )
    g = CrispsGame(["Ana", "Ben"], options, fairness=fair)
    g.start()
    rng = random.Random(k)
    while not g.over:
        assert g.due is not None
        g.apply(g.due[0], rng.choice(g.legal_moves(g.due[0])), g.now + 1)
    return g.record()


def _tampered(record: dict[str, Any], k: int) -> dict[str, Any]:
    bad = copy.deepcopy(record)
    kind = TAMPERS[k % len(TAMPERS)]
    fair = bad["fairness"]
    if kind == "deck":
        r = k % len(bad["decks"])
        deck = list(bad["decks"][r])
        i = k % 40
        j = next(x for x in range(40) if deck[x] != deck[i])
        deck[i], deck[j] = deck[j], deck[i]
        bad["decks"][r] = "".join(deck)
    elif kind in ("server_seed", "commitment"):
        fair[kind] = fair[kind][:-1] + ("f" if fair[kind][-1] != "f" else "0")
    elif kind == "client_seed":
        fair["client_seeds"][k % 2] += "!"
    else:
        bad["first_starter"] = 1 - bad["first_starter"]
    return bad


def _python(record: Any) -> dict[str, Any]:
    try:
        ok, message, rounds = verify_crisps(json.loads(json.dumps(record)))
    except CrispsUnverifiable as err:
        return {"ok": False, "message": f"cannot verify: {err}", "rounds": 0}
    return {"ok": ok, "message": message, "rounds": rounds}


def _unverifiable(honest: dict[str, Any]) -> list[Any]:
    """Records ``crisp verify`` cannot check, for reasons of every part of the record."""
    fair = Fairness(seed_from_int(3), ("c0ffee", ""))
    unfinished = CrispsGame(["Ana", "Ben"], fairness=fair)
    unfinished.start()
    seeded = CrispsGame(["Ana", "Ben"], seed=3)
    seeded.start()

    def changed(**fields: Any) -> dict[str, Any]:
        rec = copy.deepcopy(honest)
        for name, v in fields.items():
            if v is None:
                rec.pop(name, None)
            else:
                rec[name] = v
        return rec

    def fairness(**fields: Any) -> dict[str, Any]:
        return changed(fairness={**honest["fairness"], **fields})

    return [
        unfinished.record(),
        seeded.record(),
        {"format": "crisp-record/1"},
        changed(format=None),
        changed(extra=1),
        changed(game="crisp"),
        changed(players=["Ana"]),
        changed(options={"timer": 20}),
        changed(options={"colour": True}),
        changed(options={"no_faceup": 1}),
        changed(decks=["1" * 40]),
        changed(first_starter=2),
        changed(first_starter=True),
        changed(decks=[]),
        changed(first_starter=None),
        changed(actions={}),
        changed(actions=[{"seat": 0}]),
        changed(actions=[{"seat": 0, "do": "pass", "why": 1}]),
        changed(actions=[{"seat": 0, "do": "pass", "t": -1}]),
        fairness(client_seeds=["a"]),
        fairness(client_seeds=["a", 7]),
        fairness(client_seeds=["a", "y" * 65]),
        fairness(client_seeds=["a", "\ud800"]),
        fairness(commitment="ABC"),
        fairness(server_seed="00"),
        fairness(salt="x"),
        changed(shuffle="hmac-sha256/1", fairness=None),
    ]


def _forged(record: dict[str, Any]) -> dict[str, Any]:
    """The game re-dealt from a new server seed (a new commitment) with no client seeds: a record
    that verifies by itself, but is not the game the phone saw committed and seeded."""
    forged = _finished(Fairness(seed_from_int(987654), ("", "")), 5)
    assert forged["fairness"]["commitment"] != record["fairness"]["commitment"]
    assert verify_crisps(forged)[0]
    return forged


def _node(tmp_path: Path, records: list[Any], phones: list[Any]) -> dict[str, Any]:
    data = tmp_path / "records.json"
    data.write_text(json.dumps({"records": records, "phones": phones}), encoding="utf-8")
    script = SCRIPT % (json.dumps(MODULE.as_uri()), json.dumps(str(data)))
    done = subprocess.run(
        ["node", "--input-type=module", "-e", script],
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    out: dict[str, Any] = json.loads(done.stdout)
    return out


@pytest.fixture(scope="module")
def games() -> list[dict[str, Any]]:
    return [_finished(Fairness(seed_from_int(500 + k), _seeds(k)), k) for k in range(GAMES)]


def test_node_agrees_with_crisp_verify_on_honest_tampered_and_unverifiable_records(
    tmp_path: Path, games: list[dict[str, Any]]
) -> None:
    tampered = [_tampered(g, k) for k, g in enumerate(games)]
    odd = _unverifiable(games[0])
    records = [*games, *tampered, *odd]
    python = [_python(r) for r in records]
    honest, bad, cannot = python[:GAMES], python[GAMES : 2 * GAMES], python[2 * GAMES :]
    assert all(v == {"ok": True, "message": "verified", "rounds": v["rounds"]} for v in honest)
    assert sum(v["rounds"] for v in honest) >= 3 * GAMES  # CS-GAME-END: 3 rounds or more
    assert not any(v["ok"] for v in bad)
    firsts = {TAMPERS[k % len(TAMPERS)]: v["message"] for k, v in enumerate(bad)}
    assert firsts["deck"].startswith("decks[")
    assert firsts["server_seed"].startswith("fairness.commitment differs")
    assert firsts["commitment"].startswith("fairness.commitment differs")
    assert firsts["first_starter"].startswith("first_starter differs")
    assert all(v["message"].startswith("cannot verify: ") for v in cannot)
    assert len({v["message"] for v in cannot}) >= 20  # reasons of every part of the form
    js = _node(tmp_path, records, [])
    for name in ("webcrypto", "fallback"):
        for k, (want, got) in enumerate(zip(python, js[name], strict=True)):
            assert got == want, (name, k, records[k] if k >= 2 * GAMES else k)
    assert js["text"][0] == python[0]  # the JSON text of a record, as the phone may pass it
    assert js["text"][1]["ok"] is False and js["text"][1]["message"].startswith("cannot verify")
    print(f"\nnode: {len(records)} records as crisp verify; e.g. {firsts['deck']}")


def test_node_checks_the_record_against_what_the_phone_saw(
    tmp_path: Path, games: list[dict[str, Any]]
) -> None:
    """Against what the phone saw (docs/fairness.md): the commitment it saw in the lobby and
    the seed it sent."""
    true = games[0]
    commitment, mine = true["fairness"]["commitment"], true["fairness"]["client_seeds"][0]
    assert mine  # the phone at seat 0 sent a seed
    saw = {"seen": [{"commitment": commitment, "seed": mine}], "seat": 0}
    forged = _forged(true)
    other_seat = {"seen": [{"commitment": commitment, "seed": mine}], "seat": 1}
    watcher = {"seen": [{"commitment": commitment, "seed": None}], "seat": None}
    nothing = {"seen": [], "seat": 0}
    broken = _tampered(true, 0)  # a deck changed: the record's own difference comes first
    cases = [
        [true, saw],
        [forged, saw],
        [true, other_seat],
        [true, watcher],
        [true, nothing],
        [broken, saw],
    ]
    got = _node(tmp_path, [], cases)["phones"]
    rounds = len(true["decks"])
    assert got[0] == {
        "ok": True,
        "message": "verified: matches what this phone saw before the deal",
        "rounds": rounds,
    }
    assert got[1]["ok"] is False
    assert got[1]["message"] == (
        f"not what this phone saw: the record's commitment {forged['fairness']['commitment'][:12]}…"
        f" is new (this phone saw {commitment[:12]}… in the lobby); this phone's client seed is"
        " missing from the record"
    )
    assert got[2]["ok"] is False and "this phone's client seed differs" in got[2]["message"]
    assert got[3]["ok"] is True and got[3]["message"].endswith("before the deal")
    assert got[4] == {
        "ok": True,
        "message": "verified by itself only: this phone kept nothing from before the deal"
        " to compare",
        "rounds": rounds,
    }
    assert got[5] == _python(broken)
