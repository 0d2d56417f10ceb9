"""``crisp/static/fairseed.js`` (the shuffle's phone side, docs/fairness.md), run in Node:
``clientSeed()`` is 32 lower-case hex digits from ``crypto.getRandomValues`` (a new one each call);
``answerProbe`` answers a ``probe`` with a ``probe_ack`` of the same ``n`` and nothing else;
``SeedSender`` sends one seed per commitment, in the lobby, for a member only."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from paths import ROOT

MODULE = ROOT / "crisp" / "static" / "fairseed.js"
SCRIPT = """
import { clientSeed, answerProbe, SeedSender } from %s;
const sent = [];
const send = (m) => sent.push(m);
const out = { seeds: [clientSeed(), clientSeed()] };
out.probe = answerProbe({ type: "probe", n: 7 }, send);
out.other = answerProbe({ type: "room", n: 7 }, send);
out.bad = answerProbe({ type: "probe", n: "7" }, send);
const s = new SeedSender(send);
const lobby = { type: "room", phase: "lobby", commitment: "a".repeat(64) };
const member = { member: 1 };
out.watcher = s.onRoom(lobby, { member: null });
out.first = s.onRoom(lobby, member);
out.again = s.onRoom(lobby, member);
out.playing = s.onRoom({ ...lobby, phase: "playing", commitment: "b".repeat(64) }, member);
out.rematch = s.onRoom({ ...lobby, commitment: "c".repeat(64) }, member);
out.sent = sent;
console.log(JSON.stringify(out));
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="needs Node")
def test_fairseed_module_in_node() -> None:
    script = SCRIPT % json.dumps(MODULE.as_uri())
    done = subprocess.run(
        ["node", "--input-type=module", "-e", script],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    a, b = out["seeds"]
    assert len(a) == 32 and set(a) <= set("0123456789abcdef") and a != b
    assert (out["probe"], out["other"], out["bad"]) == (True, False, False)
    assert out["watcher"] is None and out["again"] is None and out["playing"] is None
    assert out["first"] and out["rematch"] and out["first"] != out["rematch"]
    assert out["sent"] == [
        {"type": "probe_ack", "n": 7},
        {"type": "client_seed", "seed": out["first"]},
        {"type": "client_seed", "seed": out["rematch"]},
    ]
