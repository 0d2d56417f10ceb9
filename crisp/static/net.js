// The WebSocket to the room: hello with the seat token, automatic reconnection with a visible
// state, a full resync when the page becomes visible again, and a ping to notice dead links.

export class Connection extends EventTarget {
  constructor(code, token) {
    super();
    this.code = code;
    this.token = token;
    this.ws = null;
    this.tries = 0;
    this.stopped = false;
    this.timer = null;
    this.pinger = null;
    this.lastHeard = 0;
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState !== "visible" || this.stopped) return;
      if (this.ws && this.ws.readyState === WebSocket.OPEN) this.send({ type: "sync" });
      else this.reconnectNow();
    });
    window.addEventListener("online", () => this.reconnectNow());
  }

  open() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const ws = new WebSocket(`${scheme}://${location.host}/ws/${this.code}`);
    this.ws = ws;
    this.emit("status", "connecting");
    ws.onopen = () => {
      this.tries = 0;
      this.lastHeard = performance.now();
      ws.send(JSON.stringify({ type: "hello", token: this.token }));
      this.emit("status", "open");
      clearInterval(this.pinger);
      this.pinger = setInterval(() => this.ping(), 10000);
    };
    ws.onmessage = (event) => {
      this.lastHeard = performance.now();
      let msg;
      try {
        msg = JSON.parse(event.data);
      } catch {
        return;
      }
      if (msg.type !== "pong") this.emit("message", msg);
    };
    ws.onclose = (event) => {
      clearInterval(this.pinger);
      if (this.ws !== ws) return;
      this.ws = null;
      if (event.code === 4409 || event.code === 4401 || event.code === 4404) {
        this.stopped = true;
        this.emit("status", `closed-${event.code}`);
        return;
      }
      if (!this.stopped) this.retry();
    };
  }

  ping() {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return;
    if (performance.now() - this.lastHeard > 25000) {
      this.ws.close(); // silent for too long: start again
      return;
    }
    this.send({ type: "ping" });
  }

  retry() {
    this.emit("status", "reconnecting");
    const delay = Math.min(8000, 300 * 2 ** this.tries) * (0.7 + Math.random() * 0.6);
    this.tries += 1;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.open(), delay);
  }

  reconnectNow() {
    if (this.stopped || (this.ws && this.ws.readyState <= WebSocket.OPEN)) return;
    clearTimeout(this.timer);
    this.open();
  }

  send(msg) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(msg));
      return true;
    }
    return false;
  }

  emit(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail }));
  }
}
