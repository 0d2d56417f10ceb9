// Card sounds, on by default; one toggle per device (localStorage "crisp.sound": "off" mutes).
// Made with WebAudio, no files: a short filtered-noise snap when a card is drawn or played (flip:
// a lighter one), a swish of sweeping noise for a swap, a chime for your turn and a call, a tick
// for low time and a soft thud for a timeout. The context starts at the first tap (browsers keep
// sound from a page nobody touched); until then a moment stays silent rather than queue up.
const KEY = "crisp.sound";
let audio = null;
let noise = null;

export function soundOn() {
  return localStorage.getItem(KEY) !== "off";
}

export function toggleSound() {
  const on = !soundOn();
  localStorage.setItem(KEY, on ? "on" : "off");
  if (on) {
    wake();
    play("flip");
  }
  return on;
}

function wake() {
  // before the page's first tap a context would only start suspended (and the browser warns)
  if (!soundOn() || navigator.userActivation?.hasBeenActive === false) return;
  try {
    audio ??= new AudioContext();
    if (audio.state === "suspended") audio.resume().catch(() => {});
  } catch {
    audio = null; // no audio here
  }
}
for (const ev of ["pointerdown", "pointerup", "keydown"]) addEventListener(ev, wake, { capture: true, passive: true });

function noiseBuffer() {
  if (noise) return noise;
  const n = Math.floor(audio.sampleRate * 0.5);
  noise = audio.createBuffer(1, n, audio.sampleRate);
  const data = noise.getChannelData(0);
  for (let i = 0; i < n; i++) data[i] = Math.random() * 2 - 1;
  return noise;
}

// A burst of noise through a filter whose centre moves from f0 to f1, shaped by an envelope.
function burst(at, { len, f0, f1 = f0, q = 1, type = "bandpass", vol = 0.5, attack = 0.003 }) {
  const src = audio.createBufferSource();
  src.buffer = noiseBuffer();
  const filter = audio.createBiquadFilter();
  filter.type = type;
  filter.Q.value = q;
  filter.frequency.setValueAtTime(f0, at);
  if (f1 !== f0) filter.frequency.exponentialRampToValueAtTime(f1, at + len);
  const gain = audio.createGain();
  gain.gain.setValueAtTime(0.0001, at);
  gain.gain.exponentialRampToValueAtTime(vol, at + attack);
  gain.gain.exponentialRampToValueAtTime(0.0001, at + len);
  src.connect(filter).connect(gain).connect(audio.destination);
  src.start(at, Math.random() * 0.2);
  src.stop(at + len + 0.02);
}

// A bell-like note: a sine and two quieter partials, a quick attack and a long decay.
function bell(at, freq, { len = 0.6, vol = 0.18, partials = [[1, 1], [2.01, 0.35], [3.02, 0.12]] } = {}) {
  for (const [ratio, level] of partials) {
    const osc = audio.createOscillator();
    osc.type = "sine";
    osc.frequency.setValueAtTime(freq * ratio, at);
    const gain = audio.createGain();
    gain.gain.setValueAtTime(0.0001, at);
    gain.gain.exponentialRampToValueAtTime(vol * level, at + 0.008);
    gain.gain.exponentialRampToValueAtTime(0.0001, at + len / ratio);
    osc.connect(gain).connect(audio.destination);
    osc.start(at);
    osc.stop(at + len + 0.02);
  }
}

// A short low thump (the card's body landing on the table).
function thump(at, { freq = 160, to = 70, len = 0.09, vol = 0.25 } = {}) {
  const osc = audio.createOscillator();
  osc.frequency.setValueAtTime(freq, at);
  osc.frequency.exponentialRampToValueAtTime(to, at + len);
  const gain = audio.createGain();
  gain.gain.setValueAtTime(vol, at);
  gain.gain.exponentialRampToValueAtTime(0.0001, at + len);
  osc.connect(gain).connect(audio.destination);
  osc.start(at);
  osc.stop(at + len + 0.02);
}

const SOUNDS = {
  draw: (at) => { burst(at, { len: 0.07, f0: 2600, f1: 1800, q: 0.9, vol: 0.55 }); thump(at, { vol: 0.12 }); },
  play: (at) => { burst(at, { len: 0.06, f0: 3200, q: 0.8, vol: 0.6 }); thump(at + 0.005, { vol: 0.2 }); },
  flip: (at) => burst(at, { len: 0.045, f0: 4200, q: 1.2, vol: 0.4 }),
  swap: (at) => { burst(at, { len: 0.26, f0: 700, f1: 4500, q: 1.4, vol: 0.35, attack: 0.09 }); burst(at + 0.24, { len: 0.06, f0: 3000, vol: 0.45 }); },
  yourturn: (at) => { bell(at, 784); bell(at + 0.12, 1175, { len: 0.8 }); },
  call: (at) => { bell(at, 880, { vol: 0.22 }); bell(at + 0.1, 1109, { vol: 0.22 }); bell(at + 0.2, 1319, { len: 1, vol: 0.22 }); },
  low: (at) => burst(at, { len: 0.03, f0: 5000, q: 3, vol: 0.3 }),
  timeout: (at) => { thump(at, { freq: 220, to: 90, len: 0.3, vol: 0.3 }); burst(at, { len: 0.2, f0: 400, type: "lowpass", vol: 0.2 }); },
};

export function play(name) {
  if (!soundOn() || !SOUNDS[name]) return;
  try {
    wake();
    if (!audio || audio.state !== "running") return; // not touched yet: silent, not queued
    SOUNDS[name](audio.currentTime + 0.005);
  } catch {
    // no audio here: the game goes on silently
  }
}
