// The durable relay's checkpointer (a worker thread, as Crisp's crisp-checkpoint thread): a PASSIVE
// WAL checkpoint of the database every second, on a connection of its own, off the event loop.
"use strict";
const { workerData } = require("node:worker_threads");
const Database = require("better-sqlite3");

const db = new Database(workerData);
setInterval(() => {
  try {
    db.pragma("wal_checkpoint(PASSIVE)");
  } catch (err) {
    console.error(`WAL checkpoint failed: ${err.message}`);
  }
}, 1000);
