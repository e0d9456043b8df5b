// Steady answer pacing: how long to hold an answer so that its timing does not tell what the bot held.
//
// Every seat sees when the others answer.  A bot that answers a forced decision (one legal action) at once and
// thinks about the others tells the table which decisions were forced, and so what its hand lacked (an instant
// draw: no card fitted).  With pacing (bot.js --steady) each answer is held until at least a *pace* has passed
// since its request arrived: the 90th percentile (QUANTILE) of the think times of this bot's last 64 (WINDOW)
// decisions that had a choice, kept per (ruleset, table size, decision kind).  A kind not yet met with a choice
// takes the pace of its (ruleset, table size), then (ruleset), then of all choices; before any choice the pace
// is COLD_PACE_MS.  The hold never makes an answer late: it ends at the latest TIME_SHARE of the decision's own
// limit (TimeLeft.move_ms) after the request arrived, and an answer that already took longer goes at once.
//
// The same rules as the Python SDK's sdk/mau_arena_sdk/pace.py (which counts in seconds; this file in ms).
// The functions are pure; Pacer keeps the samples and reads its clock through an argument, so tests can give
// it fixed numbers.
"use strict";

const {performance} = require("perf_hooks");

const QUANTILE = 0.9;      // the quantile of the recent choices' think times that every answer waits for
const WINDOW = 64;         // how many recent choices (per key) the pace is learned from
const TIME_SHARE = 0.5;    // at most this share of a decision's limit goes to holding its answer
const COLD_PACE_MS = 250;  // the pace before this process has seen any decision with a choice

// The nearest-rank q quantile of `samples` (the smallest sample with at least a share q of them at or below it);
// null when there are none.
function quantile(samples, q) {
  if (samples.length === 0) return null;
  const ordered = [...samples].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil(q * ordered.length - 1e-9));
  return ordered[Math.min(rank, ordered.length) - 1];
}

// When an answer to a request that arrived at `received` (ms) may leave: `pace` after it, but never later than
// `share` of the decision's limit (`moveMs`; 0: none left, so no hold at all).
function releaseAt(received, pace, moveMs, share = TIME_SHARE) {
  return received + Math.max(0, Math.min(pace, share * moveMs));
}

class Pacer {
  constructor({clock = () => performance.now(), q = QUANTILE, window = WINDOW, share = TIME_SHARE,
    coldMs = COLD_PACE_MS} = {}) {
    if (!(q > 0 && q <= 1)) throw new Error(`the pace's quantile must be in (0, 1], not ${q}`);
    Object.assign(this, {clock, q, window, share, coldMs});
    this.own = new Map();  // JSON of a key or of one of its prefixes -> recent think times (ms)
    this.pooled = [];      // every key's recent think times
  }

  // The current pace for `key` (an array such as [ruleset, seats, decision]), in ms: of the longest prefix of
  // `key` with a choice learned, else of every choice, else the cold pace.
  pace(key) {
    for (const level of levels(key)) {
      const own = this.own.get(level);
      if (own) return quantile(own, this.q);
    }
    const pooled = quantile(this.pooled, this.q);
    return pooled === null ? this.coldMs : pooled;
  }

  // How long from now (ms) to hold the answer to a request of `key` that arrived at `received` (0: send it now).
  // The pace is the one learned before this decision; a `choice` (more than one legal action) then adds its
  // think time to what the next ones learn from.
  holdMs(key, received, moveMs, choice) {
    const now = this.clock();
    const release = releaseAt(received, this.pace(key), moveMs, this.share);
    if (choice) {
      const think = now - received;
      for (const level of levels(key)) {
        if (!this.own.has(level)) this.own.set(level, []);
        remember(this.own.get(level), think, this.window);
      }
      remember(this.pooled, think, this.window);
    }
    return Math.max(0, release - now);
  }
}

// `key` and its shorter prefixes, longest first, each as one string: [r, n, d], [r, n], [r].
function levels(key) {
  return key.map((_, i) => JSON.stringify(key.slice(0, key.length - i)));
}

function remember(samples, think, window) {
  samples.push(think);
  if (samples.length > window) samples.shift();
}

module.exports = {Pacer, quantile, releaseAt, QUANTILE, WINDOW, TIME_SHARE, COLD_PACE_MS};
