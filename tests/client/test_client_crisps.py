"""The Crisps! table module (crisp/static/games/crisps/) against the engine, under node and
without a browser (tests/js/crisps_check.mjs):

- CS-COMBO, CS-RUN, CS-CRISP-RUN: the table's naming classifier (combos.js) gives the engine's
  answer (kind, rank, size, or the refusing rule) for random card sets, with and without
  CS-OPT-CRISP-RUNS;
- CS-SEE-HAND, CS-SEE-DRAW, CS-SEE-PUBLIC: the client model built from each seat's message
  stream alone (and a watcher's) equals the engine's view for that seat after every step of random
  games (every option, timeouts included): the hand, the counts, the face-up card, the trick, the
  played cards, the points and the decision due;
- the moves the table offers are exactly the engine's legal_moves kinds, and every legal play,
  selected, is named on the Play button from the server's list (and the classifier names it alike);
- every public event gets a feed sentence with no hole in it.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from typing import Any

import pytest
from paths import ROOT, TESTS

from crisp.engine.common.messages import Out, stream
from crisp.engine.crisps.cards import counts_of
from crisp.engine.crisps.combos import Combo, classify
from crisp.engine.crisps.game import CrispsGame
from crisp.engine.crisps.options import CrispsOptions

MODULE = ROOT / "crisp" / "static" / "games" / "crisps"
CHECKER = TESTS / "js" / "crisps_check.mjs"
RANKS = "123456789X"
pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")


def run_checker(lines: list[str]) -> dict[str, Any]:
    out = subprocess.run(
        ["node", str(CHECKER), MODULE.as_uri()],
        input="\n".join(lines),
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def random_set(rnd: random.Random) -> str:
    size = rnd.randint(1, 8)
    pool = [r for r in RANKS for _ in range(4)]
    return "".join(sorted(rnd.sample(pool, size), key=RANKS.index))


def test_naming_classifier_is_the_engines() -> None:
    """CS-COMBO, CS-RUN, CS-CRISP-RUN."""
    rnd = random.Random(16)
    sets = [random_set(rnd) for _ in range(4000)]
    sets += ["789X", "99XX", "8899XX", "19X", "129X", "3345", "5556", "3355", "333444", "XXXX"]
    lines = []
    for cards in sets:
        for crisp_runs in (False, True):
            got = classify(counts_of(cards), crisp_runs)
            expect: Any = got.wire() if isinstance(got, Combo) else got
            if isinstance(expect, dict):
                expect = {k: expect[k] for k in ("kind", "rank", "size")}
            entry = {"classify": cards, "crisp_runs": crisp_runs, "expect": expect}
            lines.append(json.dumps(entry))
    result = run_checker(lines)
    assert result["checked"] == len(lines)
    assert not result["mismatches"], result["mismatches"]


def game_lines(seed: int) -> list[str]:
    """A random game's per-seat (and a watcher's) streams, with the engine's view after each
    step."""
    rnd = random.Random(seed)
    options = CrispsOptions(
        no_faceup=rnd.random() < 0.3,
        crisp_runs=rnd.random() < 0.5,
        auto_skip=rnd.random() < 0.5,
        timer=rnd.choice([None, 30]),
    )
    game = CrispsGame(players=["Ana", "Émile"], options=options, seed=seed)
    lines: list[str] = []
    viewers: list[Any] = [0, 1, None]

    def sink(outs: list[Out]) -> None:
        for seat in viewers:
            key = "w" if seat is None else seat
            lines.extend(json.dumps({"seat": key, "msg": m}) for m in stream(outs, seat))
        for seat in viewers:
            key = "w" if seat is None else seat
            legal = game.legal_moves(seat) if seat is not None and not game.over else []
            lines.append(json.dumps({"seat": key, "view": game.view(seat), "legal": legal}))

    t = 0.0
    sink(game.start())
    steps = 0
    while not game.over and steps < 400:
        steps += 1
        seat, _need = game.due
        deadline = game.next_deadline()
        if deadline is not None and rnd.random() < 0.08:
            t = deadline
            sink(game.advance(t))
            continue
        t += 0.5
        sink(game.apply(seat, rnd.choice(game.legal_moves(seat)), t))
    return lines


def test_client_model_follows_the_engine_for_every_seat() -> None:
    """CS-SEE-HAND, CS-SEE-DRAW, CS-SEE-PUBLIC, CS-TURN, CS-PASS, CS-DRAW, CS-TIMEOUT."""
    lines = [line for seed in range(1, 13) for line in game_lines(seed)]
    result = run_checker(lines)
    assert result["checked"] > 1000 and result["lines"] > 500, result
    assert not result["mismatches"], json.dumps(result["mismatches"][:3], ensure_ascii=False)[:4000]
