#!/usr/bin/env node
// The smallest complete Mau Arena bot: connect, say Hello, answer every turn with the first legal action.
//   node minimal.js --arena 127.0.0.1:50051 --name tiny
// bot.js is the one to grow from (flags, resume after a lost connection, a strategy, --steady pacing); this shows
// the protocol bare.  It answers every turn at once, forced or not, so its timing tells the table nothing.
"use strict";
const path = require("path");
const grpc = require("@grpc/grpc-js");
const loader = require("@grpc/proto-loader");

const flag = (name, fallback) => { const i = process.argv.indexOf(name); return i > 0 ? process.argv[i + 1] : fallback; };
// The protocol file, as bot.js finds it: MAU_ARENA_PROTO, or its place in the repository this kit came from.
const proto = process.env.MAU_ARENA_PROTO || path.join(__dirname, "..", "..", "proto", "mauarena", "v1", "arena.proto");
if (!require("fs").existsSync(proto)) {  // one line, not a stack trace
  console.error(`minimal.js: no arena.proto at ${proto}; set MAU_ARENA_PROTO to the repository's ` +
    "proto/mauarena/v1/arena.proto");
  process.exit(1);
}
const {Arena} = grpc.loadPackageDefinition(loader.loadSync(proto, {keepCase: true, longs: String, enums: String,
  defaults: true, oneofs: true})).mauarena.v1;
const stream = new Arena(flag("--arena", "127.0.0.1:50051"), grpc.credentials.createInsecure()).Play();
let left = Number(flag("--games-limit", "Infinity"));

stream.write({hello: {name: flag("--name", "tiny"), protocol: "PROTOCOL_V1", max_games: Number(flag("--parallel", "1"))}});
stream.on("data", message => {
  if (message.kind === "turn") {
    const turn = message.turn;  // turn.legal_actions: {verb, args, cards, text}; pick one by its index
    stream.write({answer: {game_id: turn.game_id, request_id: turn.request_id, action_index: 0}});
  } else if (message.kind === "game_ended" && --left <= 0) {
    stream.end();
  } else if (message.kind === "error") {
    console.error(`${message.error.code}: ${message.error.message}`);
  }
});
stream.on("error", error => { if (error.code !== grpc.status.CANCELLED) console.error(error.message); });
stream.on("end", () => process.exit(0));
