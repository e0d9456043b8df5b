#!/usr/bin/env node
// A Mau Arena bot in JavaScript, built from proto/mauarena/v1/arena.proto and nothing else.
//
//   node bot.js --arena 127.0.0.1:50051 --name mybot [--token T] [--games r1,r2] [--parallel N] [--games-limit N]
//               [--steady] [--verbose]
//
// It opens one Play stream, says Hello (protocol PROTOCOL_V1), and answers every TurnRequest with the index of
// one of its legal actions.  `choose` is the part to make your own: it gets the turn's observation
// (details_json already parsed) and the structured legal actions ({verb, args, cards, text}), and returns an
// index into them.  With --steady it holds each answer to a steady pace (pace.js), so that how fast it answers
// does not tell the table which decisions were forced.
"use strict";

const fs = require("fs");
const path = require("path");
const {performance} = require("perf_hooks");
const grpc = require("@grpc/grpc-js");
const protoLoader = require("@grpc/proto-loader");
const {Pacer} = require("./pace");

const KIT_VERSION = "node-kit 0.4.0";  // informative: Hello.protocol is what the arena checks
// The protocol file: MAU_ARENA_PROTO, or where it is in the repository this kit came from.  A copy of the kit
// elsewhere must set MAU_ARENA_PROTO to the repository's proto/mauarena/v1/arena.proto.
const PROTO = process.env.MAU_ARENA_PROTO || path.join(__dirname, "..", "..", "proto", "mauarena", "v1", "arena.proto");

// Exit statuses, as the Python SDK's: 2 the arena refused the hello, 3 unreachable, 4 connection lost.
const EXIT = {refused: 2, unreachable: 3, lost: 4};
const ENDS_SESSION = new Set(["BAD_HELLO", "AUTH_FAILED", "UNSUPPORTED_VERSION", "SHUTTING_DOWN", "CAPACITY",
  "DUPLICATE_SESSION", "MALFORMED", "MESSAGE_TOO_LARGE"]);

function parseFlags(argv) {
  const flags = {arena: "", name: "node-bot", token: process.env.MAU_ARENA_TOKEN || "", games: [], parallel: 1,
    gamesLimit: 0, botVersion: "starter-kit",
    steady: false,    // hold answers to a steady pace (--steady); off by default, as the Python SDK's Bot.steady
    verbose: false};  // one line per answer: its think time, pace and hold (--verbose)
  for (let i = 0; i < argv.length; i++) {
    const [key, inline] = argv[i].split("=", 2);
    const value = () => (inline !== undefined ? inline : argv[++i]);
    switch (key) {
      case "--arena": flags.arena = value(); break;
      case "--name": flags.name = value(); break;
      case "--token": flags.token = value(); break;
      case "--games": flags.games = value().split(",").filter(Boolean); break;
      case "--parallel": case "--max-games": flags.parallel = Number(value()); break;  // games at once
      case "--games-limit": flags.gamesLimit = Number(value()); break;
      case "--bot-version": flags.botVersion = value(); break;
      case "--steady": flags.steady = true; break;
      case "--no-steady": flags.steady = false; break;
      case "--verbose": flags.verbose = true; break;
      default:  // a flag this bot does not use (another kit's): skip it and its value
        if (inline === undefined && i + 1 < argv.length && !argv[i + 1].startsWith("--")) i++;
    }
  }
  if (!/^[^:]+:\d+$/.test(flags.arena)) usage(`--arena HOST:PORT is required, not ${JSON.stringify(flags.arena)}`);
  if (!(flags.parallel >= 1)) usage("--parallel must be a positive count");
  return flags;
}

function usage(message) {
  console.error(`bot.js: ${message}\nusage: node bot.js --arena HOST:PORT --name NAME [--token T] [--games r1,r2] ` +
    "[--parallel N] [--games-limit N] [--steady] [--verbose]");
  process.exit(EXIT.refused);
}

// ---------------------------------------------------------------- the strategy: make it yours

// Shed as many cards as possible, make a call (with 2 cards or fewer: Online Mau-Mau also offers a false
// one with 3) or an accusation when offered, otherwise play, and draw or pass only when nothing else is legal.  `legal` is the list of action texts ("play 7h", "draw",
// "suit h", "meld 7h 8h 9h"); the first word is the verb, the rest its arguments.
function choose(observation, legal) {
  // legal: the turn's structured actions ({verb, args, cards, text}), no text to parse
  let best = 0, bestScore = -Infinity;
  legal.forEach(({verb, args}, index) => {
    const score = {call: 100, accuse: 90, catch: 90, block: 80, meld: 50, layoff: 40, play: 10, discard: 5,
      suit: 1, color: 1, declare: 1}[verb] ?? 0;
    const total = verb === "call" && (observation.hand || []).length > 2 ? -1 : score + args.length;
    if (total > bestScore) { best = index; bestScore = total; }
  });
  return best;
}

// ---------------------------------------------------------------- the protocol

// The .proto's definitions; a missing or unreadable file is one line and exit status 1, not a stack trace.
function loadProto() {
  const where = process.env.MAU_ARENA_PROTO ? "the file MAU_ARENA_PROTO names"
    : "where the kit looks when it sits in the Mau Arena repository";
  if (!fs.existsSync(PROTO)) {
    console.error(`bot.js: no arena.proto at ${PROTO} (${where}); set MAU_ARENA_PROTO to the repository's ` +
      "proto/mauarena/v1/arena.proto");
    process.exit(1);
  }
  try {
    return protoLoader.loadSync(PROTO, {keepCase: true, longs: String, enums: String, defaults: true, oneofs: true});
  } catch (error) {
    console.error(`bot.js: cannot load ${PROTO}: ${String(error.message).split("\n")[0]}; set MAU_ARENA_PROTO to ` +
      "the Mau Arena repository's proto/mauarena/v1/arena.proto");
    process.exit(1);
  }
}

// `strategy` is a function like `choose` (another one lets a program use this file as a library).
function main(strategy = choose) {
  const flags = parseFlags(process.argv.slice(2));
  const definition = loadProto();
  const {Arena} = grpc.loadPackageDefinition(definition).mauarena.v1;
  const client = new Arena(flags.arena, grpc.credentials.createInsecure());
  const deadline = new Date(Date.now() + 10_000);
  client.waitForReady(deadline, error => {
    if (error) {
      console.error(`bot.js: cannot reach an arena at ${flags.arena}: ${error.message}`);
      process.exit(EXIT.unreachable);
    }
    play(client, flags, strategy);
  });
}

// After a lost stream the bot resumes its session: Hello.resume_session and resume_secret from its Welcome, so the
// arena gives it back its seats (and re-sends an open TurnRequest).  Backoff doubles from 0.2 s up to 5 s.
const MAX_RECONNECTS = 8;

function play(client, flags, strategy) {
  const session = {id: "", secret: "", finished: 0, failures: 0};
  const pacer = flags.steady ? new Pacer() : null;
  if (pacer) console.log("answers held to a steady pace (pace.js; --no-steady sends each one when it is ready)");
  // Per game: its table size, and its last answer {requestId, message, held}.  After a resume the arena re-sends
  // an open TurnRequest: the kit sends the same answer again, unless it is still held (then it leaves when its
  // hold ends, on the stream of then).
  const games = new Map();
  let current = null;  // the live stream; null while reconnecting (an answer sent then is dropped, and re-sent)
  const send = message => { if (current) current.write(message); };

  const answer = (turn, received) => {
    if (!games.has(turn.game_id)) games.set(turn.game_id, {seats: 0, last: null});
    const game = games.get(turn.game_id);
    if (game.last && game.last.requestId === turn.request_id) {  // re-sent after a resume: we know our answer
      if (flags.verbose) {
        console.log(`game ${turn.game_id} request ${turn.request_id} re-sent: ` +
          (game.last.held ? "its answer is still held" : "answering it again"));
      }
      if (!game.last.held) send(game.last.message);
      return;
    }
    const observation = {...turn.observation,
      details: turn.observation.details_json ? JSON.parse(turn.observation.details_json) : {}};
    let index = 0;
    try {
      index = strategy(observation, turn.legal_actions);
    } catch (error) {
      console.error(`choose failed (${error.message}); answering the first legal action`);
    }
    // The index decides; action_text is optional (checked when given).
    const last = game.last = {requestId: turn.request_id, held: false,
      message: {answer: {game_id: turn.game_id, request_id: turn.request_id, action_index: index}}};
    if (!pacer) return send(last.message);

    // Pacing: hold the answer until the pace of this (ruleset, table size, decision kind) has passed since the
    // request arrived (at most half its move limit); a decision with a choice teaches the pace its think time.
    const key = [turn.observation.ruleset, game.seats, turn.observation.decision];
    const pace = pacer.pace(key);
    const hold = pacer.holdMs(key, received, turn.time.move_ms, turn.legal_actions.length > 1);
    if (flags.verbose) {
      console.log(`game ${turn.game_id} request ${turn.request_id} (${turn.observation.decision}, ` +
        `${turn.legal_actions.length} legal): thought ${(pacer.clock() - received).toFixed(1)} ms, ` +
        `pace ${pace.toFixed(3)} ms, hold ${hold.toFixed(1)} ms`);
    }
    if (hold <= 0) return send(last.message);
    last.held = true;
    const due = pacer.clock() + hold;
    const release = () => {
      const early = due - pacer.clock();  // a timer may fire a fraction of a ms early: wait the rest
      if (early > 0) return setTimeout(release, early);
      last.held = false;
      // Sent even when its game has ended meanwhile: the arena keeps a bot's slot until a finished game's
      // owed answer comes (it drops the answer itself as stale).
      send(last.message);
    };
    setTimeout(release, hold);
  };

  const connect = () => {
    const stream = client.Play();
    let welcomed = false, refused = false, lost = false;
    stream.write({hello: {name: flags.name, token: flags.token, protocol: "PROTOCOL_V1", sdk_version: KIT_VERSION,
      games: flags.games,
      max_games: flags.parallel, bot_version: flags.botVersion, resume_session: session.id,
      resume_secret: session.secret}});
    stream.on("data", message => {
      switch (message.kind) {
        case "welcome": {
          const resumed = session.id !== "" && message.welcome.session_id === session.id;
          welcomed = true;
          session.failures = 0;
          session.id = message.welcome.session_id;
          session.secret = message.welcome.resume_secret;
          console.log(resumed ? `resumed the session as ${flags.name}` :
            `welcomed as ${flags.name}; the arena schedules ${message.welcome.rulesets.join(", ")}`);
          break;
        }
        case "game_started": {
          const started = message.game_started;
          if (!games.has(started.game_id)) games.set(started.game_id, {seats: started.players.length, last: null});
          console.log(`game ${started.game_id}: ${started.ruleset}, seat ${started.seat}`);
          break;
        }
        case "turn":
          answer(message.turn, performance.now());  // the hold counts from the request's arrival
          break;
        case "game_ended": {
          session.finished += 1;
          const ended = message.game_ended;
          games.delete(ended.game_id);
          const me = ended.results.find(r => r.name === flags.name);
          // An aborted game has no placements (all 0): say it was aborted, and why.
          const how = ended.status === "ABORTED" ? `aborted (${ended.reason || "no reason given"})`
            : `place ${me ? me.placement : "?"}`;
          console.log(`game ${ended.game_id} ended: ${how} (${session.finished} played)`);
          if (flags.gamesLimit && session.finished >= flags.gamesLimit) { stream.end(); process.exit(0); }
          break;
        }
        case "hosts":  // a shared ladder's hosts changed: this kit plays on the one host it was given
          break;
        case "error": {
          const {code, message: text} = message.error;
          console.error(`arena says ${code}: ${text}`);
          if (ENDS_SESSION.has(code) && !welcomed) refused = true;
          break;
        }
      }
    });
    stream.on("error", () => {});  // every end, good or bad, also comes as a "status": handled there
    stream.on("status", status => {
      if (lost) return;
      lost = true;
      if (current === stream) current = null;
      if (status.code === grpc.status.OK) process.exit(refused ? EXIT.refused : 0);  // the arena closed it
      console.error(`bot.js: the stream ended: ${(status.details || String(status.code)).replace(/\s*Resolution note:\s*$/, "")}`);
      if (refused || !session.id) process.exit(refused ? EXIT.refused : EXIT.unreachable);
      session.failures += 1;
      if (session.failures > MAX_RECONNECTS) {
        console.error(`bot.js: giving up after ${MAX_RECONNECTS} reconnects to ${flags.arena}; its games there are lost`);
        process.exit(EXIT.lost);
      }
      const delay = Math.min(5000, 200 * 2 ** (session.failures - 1));
      console.error(`reconnecting in ${(delay / 1000).toFixed(1)} s (attempt ${session.failures} of ${MAX_RECONNECTS})`);
      setTimeout(connect, delay);
    });
    current = stream;
  };
  for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => { if (current) current.end(); process.exit(0); });
  connect();
}

if (require.main === module) main();
module.exports = {choose, parseFlags, main};
