// Sound, off by default, one toggle (kept in localStorage "crisp.sound"): short tones made with
// WebAudio (no files): draw, flip, swap, a call, your turn, low time (the game's moments).
const KEY = "crisp.sound";
const TONES = {
  draw: [[520, 0.06]],
  flip: [[700, 0.05], [900, 0.05]],
  swap: [[440, 0.06], [330, 0.08]],
  call: [[660, 0.1], [880, 0.1], [1100, 0.16]],
  yourturn: [[600, 0.09], [800, 0.12]],
  low: [[1000, 0.04]],
  timeout: [[300, 0.2]],
};
let audio = null;

export function soundOn() {
  return localStorage.getItem(KEY) === "on";
}

export function toggleSound() {
  const on = !soundOn();
  localStorage.setItem(KEY, on ? "on" : "off");
  if (on) play("flip");
  return on;
}

export function play(name) {
  if (!soundOn() || !TONES[name]) return;
  try {
    audio ??= new AudioContext();
    let at = audio.currentTime;
    for (const [freq, len] of TONES[name]) {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.15, at);
      gain.gain.exponentialRampToValueAtTime(0.001, at + len);
      osc.connect(gain).connect(audio.destination);
      osc.start(at);
      osc.stop(at + len);
      at += len;
    }
  } catch {
    // no audio here: the game goes on silently
  }
}
