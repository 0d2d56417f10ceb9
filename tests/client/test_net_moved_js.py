"""``crisp/static/net.js`` on close code 4301 (*moved*: the room is served by another node now,
after a move between nodes), run in Node with a stand-in WebSocket: the client opens a new socket at
once, with no reconnection delay, where a lost link (1006) waits its backoff first and 4409 stops
for good."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from paths import ROOT

MODULE = ROOT / "crisp" / "static" / "net.js"
SCRIPT = """
const sockets = [];
class FakeSocket {
  static OPEN = 1;
  constructor(url) { this.url = url; this.readyState = 0; this.sent = []; sockets.push(this); }
  send(m) { this.sent.push(m); }
  close() {}
}
const target = () => ({ addEventListener() {}, removeEventListener() {} });
globalThis.WebSocket = FakeSocket;
globalThis.window = target();
globalThis.document = { ...target(), visibilityState: "visible" };
globalThis.location = { protocol: "http:", host: "example.org" };
Object.defineProperty(globalThis, "navigator", { value: { onLine: true }, configurable: true });
const { Connection } = await import(%s);
const out = {};
for (const code of [4301, 1006, 4409]) {
  sockets.length = 0;
  const c = new Connection("ABCDEFGHJKLM", "tok");
  c.open();
  const ws = sockets[0];
  ws.readyState = 1;
  ws.onopen();
  ws.onclose({ code });
  out[code] = { sockets: sockets.length, status: c.status, url: sockets.at(-1).url };
  c.stop();
}
console.log(JSON.stringify(out));
process.exit(0);
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="needs Node")
def test_moved_reconnects_at_once() -> None:
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
    assert out["4301"]["sockets"] == 2, out  # a new socket at once
    assert out["4301"]["url"] == "ws://example.org/ws/ABCDEFGHJKLM"
    assert out["1006"]["sockets"] == 1 and out["1006"]["status"] == "lost"  # after its delay
    assert out["4409"]["sockets"] == 1 and out["4409"]["status"] == "closed-4409"
