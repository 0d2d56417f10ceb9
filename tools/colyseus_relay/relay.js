// A Colyseus 0.16 relay room of 8, for `crisp bench load`'s comparison rows
// (crisp/bench/load_relays.py; in tools/ since it is not part of the wheel).
// Each message a client sends is broadcast to every client of its room (itself included), as
// crisp.bench.load_baseline does on Crisp's own stack. No game logic, no room state, no Colyseus
// schema.
// Durable (given DB_FILE): each message is first stored as Crisp stores a change (store.js: its
// SQLite settings and statements, one transaction per event-loop turn), then broadcast; at a stop,
// the store's figures (commits, changes, µs a commit) are written to DB_FILE.figures.json.
// Usage: node relay.js PORT [DB_FILE]  (prints http://127.0.0.1:PORT/ when it listens)
"use strict";
const fs = require("node:fs");
const { Server, Room } = require("@colyseus/core");
const { WebSocketTransport } = require("@colyseus/ws-transport");

const port = Number(process.argv[2] || 2567);
const dbFile = process.argv[3];
const store = dbFile ? new (require("./store").Store)(dbFile) : null;

class Relay extends Room {
  onCreate() {
    this.maxClients = 8;
    this.onMessage("*", (_client, type, message) => this.broadcast(type, message));
  }
}

// A message's log entry: the bench's messages are JSON texts, stored as they came.
function entryText(message) {
  return typeof message === "string" ? message : JSON.stringify(message);
}

class DurableRelay extends Room {
  onCreate(options) {
    this.maxClients = 8;
    const code = String(options.code);
    store.createRoom(code);
    this.onMessage("*", (_client, type, message) =>
      store.add(code, entryText(message), () => this.broadcast(type, message)),
    );
  }
}

// Colyseus's own graceful shutdown is off: a stop is this process's (stop, below).
const server = new Server({
  greet: false,
  gracefullyShutdown: false,
  transport: new WebSocketTransport({ perMessageDeflate: false, pingInterval: 20000 }),
});
server.define("relay", store ? DurableRelay : Relay).filterBy(["code"]);
server.listen(port, "127.0.0.1").then(() => console.log(`http://127.0.0.1:${port}/`));

function stop() {
  if (store) {
    store.close();
    fs.writeFileSync(`${dbFile}.figures.json`, JSON.stringify(store.summary()));
  }
  process.exit(0);
}
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
