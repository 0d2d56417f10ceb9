// The durable relay's store: Crisp's SQLite store (crisp/server/store/sqlite.py) on better-sqlite3,
// with its schema, settings and statements, and its group commit (crisp/server/rooms/batch.py).
// WAL with synchronous=NORMAL, automatic checkpoints off: a worker thread checkpoints every second
// (checkpoint.js), so a commit on the event loop never waits for one. Each change a room receives
// is queued; at the end of the event-loop turn (setImmediate) every queued change is written in ONE
// transaction (per room: one UPDATE of its row with its latest version, one INSERT into its log per
// change), and only then are the changes' messages sent, in order.
"use strict";
const path = require("node:path");
const { Worker } = require("node:worker_threads");
const Database = require("better-sqlite3");

const SCHEMA = [
  "CREATE TABLE IF NOT EXISTS rooms (code TEXT PRIMARY KEY, state TEXT NOT NULL, " +
    "version INTEGER NOT NULL DEFAULT 0, updated REAL NOT NULL)",
  "CREATE TABLE IF NOT EXISTS log (code TEXT NOT NULL, seq INTEGER NOT NULL, " +
    "entry TEXT NOT NULL, PRIMARY KEY (code, seq)) WITHOUT ROWID",
];

class Store {
  constructor(file) {
    this.db = new Database(file);
    this.db.pragma("journal_mode = WAL");
    this.db.pragma("synchronous = NORMAL");
    this.db.pragma("wal_autocheckpoint = 0");
    for (const statement of SCHEMA) this.db.exec(statement);
    this.upsert = this.db.prepare(
      "INSERT INTO rooms (code, state, version, updated) VALUES (?, ?, ?, ?) " +
        "ON CONFLICT(code) DO UPDATE SET state = excluded.state, " +
        "version = excluded.version, updated = excluded.updated",
    );
    this.update = this.db.prepare("UPDATE rooms SET updated = ?, version = ? WHERE code = ?");
    this.insert = this.db.prepare("INSERT INTO log (code, seq, entry) VALUES (?, ?, ?)");
    this.writeBatch = this.db.transaction((rooms) => this.writeRooms(rooms));
    this.versions = new Map(); // a room's code -> its version (the seq of its last log entry)
    this.open = new Map(); // this turn's changes: a room's code -> [[entry, send], ...]
    this.scheduled = false;
    this.figures = { commits: 0, changes: 0, commitNs: 0n };
    this.checkpointer = new Worker(path.join(__dirname, "checkpoint.js"), { workerData: file });
  }

  // A new room's row, written at once (as Crisp writes a room it creates).
  createRoom(code) {
    const version = this.versions.get(code) ?? 0;
    this.versions.set(code, version);
    this.upsert.run(code, JSON.stringify({ code }), version, Date.now() / 1000);
  }

  // Queue one change of the room `code` (its log entry, a text); `send` runs once it is stored.
  add(code, entry, send) {
    let changes = this.open.get(code);
    if (changes === undefined) this.open.set(code, (changes = []));
    changes.push([entry, send]);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  // The turn's changes in one transaction, then their messages.
  flush() {
    this.scheduled = false;
    const rooms = this.open;
    if (rooms.size === 0) return;
    this.open = new Map();
    const start = process.hrtime.bigint();
    this.writeBatch(rooms);
    this.figures.commitNs += process.hrtime.bigint() - start;
    this.figures.commits += 1;
    for (const changes of rooms.values()) {
      this.figures.changes += changes.length;
      for (const [, send] of changes) send();
    }
  }

  writeRooms(rooms) {
    const now = Date.now() / 1000;
    for (const [code, changes] of rooms) {
      const first = (this.versions.get(code) ?? 0) + 1;
      const version = first + changes.length - 1;
      this.update.run(now, version, code);
      changes.forEach(([entry], i) => this.insert.run(code, first + i, entry));
      this.versions.set(code, version);
    }
  }

  // What the store did: commits, changes and the mean time of a commit (µs, on the event loop).
  summary() {
    const { commits, changes, commitNs } = this.figures;
    const us = commits ? Number(commitNs / BigInt(commits)) / 1000 : 0;
    return { commits, changes, commit_us: Math.round(us * 10) / 10 };
  }

  // What is queued, stored; the connection closed (the checkpointer ends with the process).
  close() {
    this.flush();
    this.db.close();
  }
}

module.exports = { Store };
