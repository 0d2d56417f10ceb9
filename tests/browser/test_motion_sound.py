"""Sound and motion (not "off by default and only beeps", and Crisps! plays do not fly face down):
card sounds are on by default on a fresh phone, made with WebAudio (a filtered-noise snap when a
card is drawn), one tap mutes them and a reload keeps the mute (localStorage "crisp.sound"); a
Crisps! play flies face up (the played cards are public once played), a draw still face down, and
under prefers-reduced-motion nothing flies. AudioContext is a stub (an init script) that counts
the sounds started; a MutationObserver records every flying card."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="Python Playwright is not installed")

from browser import CHROMIUM, TIMEOUT_MS, Phone, assert_clean
from crisps_fake import CODE, FakeCrispsRoom, pages
from playwright.sync_api import expect
from statichost import StaticHost

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason=f"{CHROMIUM} is absent (apt-get install chromium)"
)
expect.set_options(timeout=TIMEOUT_MS)

# A stand-in AudioContext: every node WebAudio needs, counting what is started (noise: a buffer
# source, the snap and the swish; tones: oscillators, the chimes and thumps).
AUDIO_STUB = """
window.__sound = { contexts: 0, noise: 0, tones: 0 };
(() => {
  const param = () => ({ value: 0, setValueAtTime() {}, exponentialRampToValueAtTime() {},
    linearRampToValueAtTime() {} });
  const node = (extra = {}) => ({ connect: (n) => n, disconnect() {}, ...extra });
  class StubAudio {
    constructor() { window.__sound.contexts++; this.state = "running"; this.currentTime = 0;
      this.sampleRate = 8000; this.destination = node(); }
    resume() { return Promise.resolve(); }
    createBuffer(ch, n) { const d = new Float32Array(n); return { getChannelData: () => d }; }
    createBufferSource() { return node({ buffer: null,
      start: () => window.__sound.noise++, stop() {} }); }
    createOscillator() { return node({ type: "sine", frequency: param(),
      start: () => window.__sound.tones++, stop() {} }); }
    createGain() { return node({ gain: param() }); }
    createBiquadFilter() { return node({ type: "", Q: param(), frequency: param() }); }
  }
  window.AudioContext = StubAudio;
})();
"""

FLIGHTS = """
window.__flights = [];
new MutationObserver((records) => {
  for (const r of records) for (const el of r.addedNodes) {
    if (el.nodeType === 1 && el.classList.contains("fly")) {
      window.__flights.push({ cls: el.className, card: el.dataset.card ?? null,
        face: el.querySelector(".csface")?.dataset.card ?? null });
    }
  }
}).observe(document, { childList: true, subtree: true });
"""


def noise(phone: Phone) -> int:
    return int(phone.page.evaluate("window.__sound.noise"))


def test_card_sounds_are_on_by_default_and_the_mute_is_kept(server: Any, phones: Any) -> None:
    """A fresh phone: the sound control says on (aria-pressed true) and a drawn card makes a
    sound (a noise snap started); a tap mutes (stored "off"); after a reload the control still
    says muted and a draw starts no sound at all (no AudioContext is even made)."""
    srv = server(5, clock_speed=3)
    ana: Phone = phones(srv, "Pixel 7", "ana")
    ana.page.add_init_script(AUDIO_STUB)
    ana.page.goto("/")
    ana.page.locator('[data-test="game-crisp"]').check()
    ana.create_room("Ana")
    ana.tap('[data-action="add-bot"]')
    expect(ana.loc('[data-test="member"]')).to_have_count(2)
    ana.tap("#start")
    sound = ana.loc('[data-test="sound"]')
    expect(sound).to_have_attribute("aria-pressed", "true")  # on by default
    assert ana.page.evaluate("localStorage.getItem('crisp.sound')") is None
    ana.tap(ana.action("ready"))
    expect(ana.action("draw")).to_be_enabled()
    before = noise(ana)
    ana.tap(ana.action("draw"))
    ana.wait_for(lambda: noise(ana) > before, what="a snap when the card is drawn")
    expect(ana.loc('[data-test="held"]')).to_be_visible()
    ana.tap(sound)  # mute
    expect(sound).to_have_attribute("aria-pressed", "false")
    assert ana.page.evaluate("localStorage.getItem('crisp.sound')") == "off"
    ana.tap(ana.action("discard"))
    ana.page.reload()
    expect(ana.loc('[data-test="sound"]')).to_have_attribute("aria-pressed", "false")
    expect(ana.action("draw")).to_be_enabled()
    ana.tap(ana.action("draw"))
    expect(ana.loc('[data-test="held"]')).to_be_visible()
    assert ana.page.evaluate("window.__sound") == {"contexts": 0, "noise": 0, "tones": 0}
    assert_clean([ana])


HAND0 = "1334555689XX"
HAND1 = "111222234666"
DECK = HAND0 + HAND1 + "7999" + "8" + "344577788XX"


@pytest.fixture(scope="module")
def host() -> Any:
    with StaticHost(pages()) as h:
        yield h


def crisps_phone(phones: Any, host: Any, room: FakeCrispsRoom, **options: Any) -> Phone:
    phone: Phone = phones(host, "Pixel 7", "ana", **options)
    room.attach(phone.page, 0)
    phone.page.add_init_script(FLIGHTS)
    phone.page.goto(f"/r/{CODE}")
    expect(phone.loc('[data-test="hand"]')).to_be_visible()
    return phone


def test_a_crisps_play_flies_face_up_and_a_draw_face_down(phones: Any, host: Any) -> None:
    """Ana plays a pair of 3s, Ben a pair of 6s: each card flies face up (its face, data-card) to
    the trick; Ana passes, Ben draws blind: the drawn cards fly face down (no face in them)."""
    room = FakeCrispsRoom(decks=[DECK], first_starter=0)
    ana = crisps_phone(phones, host, room)
    room.act(0, {"do": "play", "cards": "33"})
    room.act(1, {"do": "play", "cards": "66"})
    expect(ana.loc('[data-test="trick"] li')).to_have_count(2)
    ana.page.wait_for_function("() => window.__flights.length >= 4")
    plays = ana.page.evaluate("window.__flights")
    assert [(f["card"], f["face"]) for f in plays] == [("3", "3")] * 2 + [("6", "6")] * 2, plays
    assert all(" up " in f" {f['cls']} " and " down " not in f" {f['cls']} " for f in plays)
    room.act(0, {"do": "pass"})
    room.act(1, {"do": "draw", "take": "blind"})
    ana.page.wait_for_function("() => window.__flights.length > 4")
    draws = ana.page.evaluate("window.__flights.slice(4)")
    assert draws and all(f["card"] is None and f["face"] is None for f in draws), draws
    assert all(" down " in f" {f['cls']} " for f in draws), draws
    assert_clean([ana])


def test_with_reduced_motion_nothing_flies(phones: Any, host: Any) -> None:
    """prefers-reduced-motion: reduce: the plays land on the trick, nothing flies."""
    room = FakeCrispsRoom(decks=[DECK], first_starter=0)
    ana = crisps_phone(phones, host, room, reduced_motion="reduce")
    room.act(0, {"do": "play", "cards": "33"})
    room.act(1, {"do": "play", "cards": "66"})
    expect(ana.loc('[data-test="trick"] li')).to_have_count(2)
    room.act(0, {"do": "pass"})
    room.act(1, {"do": "draw", "take": "blind"})
    expect(ana.loc('[data-test="trick"] li')).to_have_count(0)
    assert ana.page.evaluate("window.__flights") == []
    assert_clean([ana])


REAL_AUDIO = """async (names) => {
  const started = [];
  for (const P of [AudioBufferSourceNode, OscillatorNode]) {
    const start = P.prototype.start;
    P.prototype.start = function (...args) {
      started.push(P.name);
      return start.apply(this, args);
    };
  }
  const sound = await import("/static/shell/sound.js");
  const out = {};
  for (const name of names) {
    const before = started.length;
    sound.play(name);
    out[name] = started.slice(before);
  }
  return out;
}"""


def test_each_sound_is_made_with_the_real_webaudio(server: Any, phones: Any) -> None:
    """The real AudioContext (no stub), after a first tap: every moment's sound starts its
    sources without an error: the snaps and the swish are noise (AudioBufferSourceNode), the
    chimes oscillators."""
    srv = server(5, clock_speed=3)
    ana: Phone = phones(srv, "Pixel 7", "ana")
    ana.page.goto("/")
    ana.tap('[data-test="game-crisp"]')  # the page's first tap: sound may start
    names = ["draw", "play", "flip", "swap", "yourturn", "call", "low", "timeout"]
    started = ana.page.evaluate(REAL_AUDIO, names)
    for name in ["draw", "play", "flip", "swap", "low", "timeout"]:
        assert "AudioBufferSourceNode" in started[name], (name, started)
    for name in ["yourturn", "call"]:
        assert started[name].count("OscillatorNode") >= 2, (name, started)
    assert_clean([ana])
