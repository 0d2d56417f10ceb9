"""The client does not re-implement the rules wrongly: its ``choices()`` (crisp/static/games/crisp/
model.js, the moves the table offers) is run under node on the message stream of every seat of
random games (crisp.engine.crisp.simulate's random-legal policy, 2 to 8 players, every option) and,
after every change of the game, compared with the engine's ``legal_actions`` for that seat at that
game time (kinds of action: ready, draw, take_discard, swap, discard, jack, queen, king, crisp)."""

from __future__ import annotations

import json
import random
import shutil
import subprocess

import pytest
from paths import ROOT, TESTS

from crisp.engine.crisp.game import Game
from crisp.engine.crisp.messages import Out, stream
from crisp.engine.crisp.options import Options
from crisp.engine.crisp.rng import Rng
from crisp.engine.crisp.simulate import RANDOM_LEGAL, _Player
from crisp.engine.crisp.timing import to_seconds

MODEL = ROOT / "crisp" / "static" / "games" / "crisp" / "model.js"
CHECKER = TESTS / "js" / "choices_check.mjs"


def game_lines(seed: int) -> list[str]:
    """A random game's per-seat streams, with a check after every batch of messages."""
    rnd = random.Random(seed)
    players = rnd.randint(2, 8)
    options = Options(
        limit=rnd.choice([50, 100]), timer=rnd.choice([None, 30]), take_discard=rnd.random() < 0.5
    )
    game = Game([f"P{i + 1}" for i in range(players)], options, seed=seed)
    lines: list[str] = []

    def sink(outs: list[Out]) -> None:
        for seat in range(players):
            lines.extend(json.dumps({"seat": seat, "msg": m}) for m in stream(outs, seat))
        r = game.round
        if r.over:
            return
        now = to_seconds(r.now)
        for seat in range(players):
            legal = [a.do for a in r.legal_actions(seat)]
            lines.append(json.dumps({"seat": seat, "check": {"now": now, "legal": legal}}))

    player = _Player(game, Rng(seed ^ 0x5EED5EED5EED5EED), RANDOM_LEGAL, sink)
    rounds = 0
    while not game.over and rounds < 3:
        rounds += 1
        player.play_round(1 << 30)
    return lines


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_client_choices_match_the_engines_legal_actions() -> None:
    lines = [line for seed in range(1, 41) for line in game_lines(seed)]
    out = subprocess.run(
        ["node", str(CHECKER), MODEL.as_uri()],
        input="\n".join(lines),
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    result = json.loads(out.stdout)
    print(f"client choices() checked against legal_actions on {result['checked']} states")
    assert result["checked"] > 5000, result["checked"]
    assert not result["mismatches"], json.dumps(result["mismatches"][:5], indent=1)
