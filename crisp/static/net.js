// The WebSocket to a room: hello with the seat token (none: a watcher), automatic reconnection with
// a growing delay, a heartbeat, the browser's offline/online events, a "retry now", and a full
// resync when the page is visible again. Status events: "connecting", "open", "stalled" (open, but
// nothing heard for a while), "lost" (reconnecting), "offline", "closed-44xx".
// send() returns false when the message could not go out: the caller says so (never queued).
//
// The heartbeat (docs/protocol.md, "The phone's link settings"): a `ping` every heartbeatMs, every
// awaitBeatMs while an answer is awaited (setAwaiting); nothing heard (a pong or any message) for
// quietMs, or awaitQuietMs while an answer is awaited, is told at once ("stalled"); nothing heard
// for lostMs drops the socket and connects again. The pongs also measure the round trip: rttMs is
// the median of the last few.

export const LINK = {
  heartbeatMs: 1000,
  awaitBeatMs: 500,
  quietMs: 3000,
  awaitQuietMs: 1500,
  lostMs: 5000,
  watchMs: 250,
  rttSamples: 8,
};

export class Connection extends EventTarget {
  constructor(code, token = null, settings = {}) {
    super();
    this.code = code;
    this.token = token;
    this.ws = null;
    this.tries = 0;
    this.stopped = false;
    this.timer = null;
    this.pinger = null;
    this.lastHeard = 0;
    this.n = 0;
    this.status = "connecting";
    this.opened = false;
    this.held = []; // events before a listener is attached (an early open), until resume()
    this.holding = true;
    this.link = { ...LINK, ...settings };
    this.awaiting = false;
    this.pings = new Map(); // n -> performance.now() when sent
    this.rtts = []; // the last round trips measured, in ms
    this.onVisible = () => {
      if (document.visibilityState !== "visible" || this.stopped) return;
      if (this.isOpen()) this.send({ type: "sync" });
      else this.retryNow();
    };
    this.onOffline = () => this.lose("offline");
    this.onOnline = () => this.retryNow();
    document.addEventListener("visibilitychange", this.onVisible);
    window.addEventListener("offline", this.onOffline);
    window.addEventListener("online", this.onOnline);
  }

  isOpen() {
    return (this.status === "open" || this.status === "stalled") && this.ws?.readyState === WebSocket.OPEN;
  }

  open() {
    this.opened = true;
    if (this.stopped) return;
    if (navigator.onLine === false) {
      this.setStatus("offline");
      return;
    }
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const ws = new WebSocket(`${scheme}://${location.host}/ws/${this.code}`);
    this.ws = ws;
    if (this.status !== "lost" && this.status !== "offline") this.setStatus("connecting");
    ws.onopen = () => {
      if (this.ws !== ws) return;
      this.tries = 0;
      this.lastHeard = performance.now();
      // frames "array": the server may send several messages in one frame (docs/protocol.md, Frames)
      const hello = this.token ? { type: "hello", token: this.token } : { type: "hello" };
      ws.send(JSON.stringify({ ...hello, frames: "array" }));
      this.pings.clear();
      clearInterval(this.pinger);
      this.pinger = setInterval(() => this.watch(ws), this.link.watchMs);
    };
    ws.onmessage = (event) => {
      if (this.ws !== ws) return;
      const arrived = performance.now();
      this.lastHeard = arrived;
      let frame;
      try {
        frame = JSON.parse(event.data);
      } catch {
        return;
      }
      if (this.status !== "open") this.setStatus("open"); // open once the server is heard
      // One message, or several in order (an array): each is its own "message" event.
      for (const msg of Array.isArray(frame) ? frame : [frame]) {
        if (this.ws !== ws) return; // a message before this one closed the socket
        if (msg?.type === "pong") this.timePong(msg.n, arrived);
        else if (msg) this.emit("message", { msg, arrived });
      }
    };
    ws.onclose = (event) => {
      if (this.ws !== ws) return;
      clearInterval(this.pinger);
      this.ws = null;
      if ([4409, 4401, 4404, 4405].includes(event.code)) { // removed, bad token, no room, closed
        this.stop();
        this.setStatus(`closed-${event.code}`);
        return;
      }
      if (event.code === 4301) return this.open(); // moved to another server: at once
      this.lose(navigator.onLine === false ? "offline" : "lost");
    };
  }

  // Every watchMs: the silence so far decides (stalled, lost), then a ping when one is due.
  watch(ws) {
    if (this.ws !== ws || ws.readyState !== WebSocket.OPEN) return;
    const now = performance.now();
    const quiet = now - this.lastHeard;
    const link = this.link;
    if (quiet > link.lostMs) {
      this.lose("lost");
      return;
    }
    if (this.status === "open" && quiet > (this.awaiting ? link.awaitQuietMs : link.quietMs)) this.setStatus("stalled");
    const every = this.awaiting ? link.awaitBeatMs : link.heartbeatMs;
    if (now - (this.lastPing ?? 0) >= every) this.ping(ws, now);
  }

  ping(ws, now) {
    this.n += 1;
    this.lastPing = now;
    this.pings.set(this.n, now);
    if (this.pings.size > 32) this.pings.delete(this.pings.keys().next().value);
    ws.send(JSON.stringify({ type: "ping", n: this.n }));
  }

  timePong(n, arrived) {
    const sent = this.pings.get(n);
    if (sent == null) return;
    this.pings.delete(n);
    this.rtts = [...this.rtts.slice(1 - this.link.rttSamples), arrived - sent];
  }

  // The median of the last round trips measured, in ms (0 before any).
  get rttMs() {
    if (!this.rtts.length) return 0;
    const sorted = [...this.rtts].sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)];
  }

  // While an answer is awaited the link is watched closer (a ping at once, then every awaitBeatMs).
  setAwaiting(on) {
    if (this.awaiting === on) return;
    this.awaiting = on;
    if (on && this.ws?.readyState === WebSocket.OPEN && this.status === "open") this.ping(this.ws, performance.now());
  }

  // The link is gone (or offline): drop the socket, say so, and try again with a growing delay
  // (offline: at the `online` event, or on "retry now").
  lose(why) {
    if (this.stopped) return;
    const ws = this.ws;
    this.ws = null;
    clearInterval(this.pinger);
    if (ws) {
      ws.onclose = null;
      try { ws.close(); } catch { /* already closed */ }
    }
    this.setStatus(why);
    clearTimeout(this.timer);
    if (why === "offline") return;
    const delay = Math.min(8000, 300 * 2 ** this.tries) * (0.7 + Math.random() * 0.6);
    this.tries += 1;
    this.timer = setTimeout(() => this.open(), delay);
  }

  // Try again at once; false while the browser says it is offline (nothing to try then).
  retryNow() {
    if (this.stopped || this.isOpen()) return true;
    if (navigator.onLine === false) {
      this.setStatus("offline");
      return false;
    }
    clearTimeout(this.timer);
    if (this.ws) {
      this.ws.onclose = null;
      try { this.ws.close(); } catch { /* already closed */ }
      this.ws = null;
    }
    this.tries = 0;
    this.open();
    return true;
  }

  send(msg) {
    if (!this.isOpen()) return false;
    this.ws.send(JSON.stringify(msg));
    return true;
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    clearInterval(this.pinger);
    document.removeEventListener("visibilitychange", this.onVisible);
    window.removeEventListener("offline", this.onOffline);
    window.removeEventListener("online", this.onOnline);
    if (this.ws) {
      this.ws.onclose = null;
      this.ws.close();
      this.ws = null;
    }
  }

  setStatus(status) {
    this.status = status;
    this.emit("status", status);
  }

  // The controller attaches its listeners, then lets the events through (those of an early
  // open first, in order).
  resume() {
    this.holding = false;
    for (const [type, detail] of this.held.splice(0)) this.dispatchEvent(new CustomEvent(type, { detail }));
  }

  emit(type, detail) {
    if (this.holding) this.held.push([type, detail]);
    else this.dispatchEvent(new CustomEvent(type, { detail }));
  }
}
