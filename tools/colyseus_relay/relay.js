// A Colyseus 0.16 relay room of 8, for `crisp bench load`'s comparison row (crisp/bench/load_relays.py; in tools/ since it is not part of the wheel).
// Each message a client sends is broadcast to every client of its room (itself included), as
// crisp.bench.load_baseline does on Crisp's own stack. No game logic, no state, no schema.
// Usage: node relay.js PORT  (prints http://127.0.0.1:PORT/ when it listens)
"use strict";
const { Server, Room } = require("@colyseus/core");
const { WebSocketTransport } = require("@colyseus/ws-transport");

class Relay extends Room {
  onCreate() {
    this.maxClients = 8;
    this.onMessage("*", (_client, type, message) => this.broadcast(type, message));
  }
}

const port = Number(process.argv[2] || 2567);
const server = new Server({
  greet: false,
  transport: new WebSocketTransport({ perMessageDeflate: false, pingInterval: 20000 }),
});
server.define("relay", Relay).filterBy(["code"]);
server.listen(port, "127.0.0.1").then(() => console.log(`http://127.0.0.1:${port}/`));
process.on("SIGINT", () => process.exit(0));
process.on("SIGTERM", () => process.exit(0));
