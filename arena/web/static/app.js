// Mau Arena's pages: a small hash-routed app over the JSON API (/api/v1).  No framework, no build step,
// nothing fetched from outside this server.  Every text that came from a bot or an engine is inserted as
// text (esc), never as HTML.
"use strict";

const $main = document.getElementById("main");
let stopPage = () => {};   // each page returns how to stop its timers and streams when the route changes

function esc(text) {
  return String(text ?? "").replace(/[&<>"']/g, c => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c]));
}

async function api(path) {
  const response = await fetch(path, {headers: {"Accept": "application/json"}});
  const body = await response.json().catch(() => ({error: `bad answer (${response.status})`}));
  if (!response.ok) throw new Error(body.error || `HTTP ${response.status}`);
  return body;
}

// ---------------------------------------------------------------- cards

const SUITS = {s: "♠", h: "♥", d: "♦", c: "♣"};
const FRENCH = /^([2-9TJQKA])([shdc])$/;

function card(code) {
  const french = FRENCH.exec(code);
  if (french) {
    const rank = french[1] === "T" ? "10" : french[1];
    const red = "hd".includes(french[2]) ? " red" : "";
    return `<span class="card${red}" title="${esc(code)}">${rank}${SUITS[french[2]]}</span>`;
  }
  if (/^X[1-9]$/.test(code)) return `<span class="card" title="joker">★${esc(code[1])}</span>`;
  // DD MAU: R7, Y10, PT-r, SK-b, JTT, SM, LM, DM, MM
  const letter = code.includes("-") ? code.slice(-1) : /^[RYBG]\d+$/.test(code) ? code[0].toLowerCase() : "x";
  return `<span class="card dd dd-${esc(letter)}">${esc(code)}</span>`;
}

function hand(cards) {
  return cards.length ? cards.map(card).join("") : '<span class="dim">(empty)</span>';
}

function backs(size) {
  return '<span class="card back">·</span>'.repeat(Math.min(size, 15)) + ` <span class="dim">${size}</span>`;
}

// Facts and actions arrive as the terminal viewer's text (7♥, 2♠→3♥): colour the red suits.
function suited(text) {
  return esc(text).replace(/(10|[2-9JQKA])([♥♦])/g, '<span class="suit-red">$1$2</span>');
}

// ---------------------------------------------------------------- pieces

function ciBar(row, low, high) {
  if (row.ci_low === null) return '<span class="dim" title="not yet tied to the others: unbounded">±?</span>';
  const span = Math.max(1, high - low);
  const left = (row.ci_low - low) / span * 100, width = (row.ci_high - row.ci_low) / span * 100;
  const mid = (row.rating - low) / span * 100;
  return `<div class="ci" title="95% interval ${row.ci_low.toFixed(0)}..${row.ci_high.toFixed(0)}">` +
         `<span style="left:${left}%;width:${width}%"></span><i style="left:${mid}%"></i></div>`;
}

// How the standings are ordered (arena/ladder/ranking.py): the rating alone would let a bot leave on a lucky streak and stay on top.
const RANKED_BY = "Ranked by 95% low, the lower end of the rating's 95% interval (rating − 1.96 standard errors)";

function standingsTable(rows) {
  if (!rows.length) return '<p class="dim">no finished games in this ruleset yet</p>';
  const bounded = rows.filter(r => r.ci_low !== null);
  const low = Math.min(...bounded.map(r => r.ci_low), ...rows.map(r => r.rating)) - 10;
  const high = Math.max(...bounded.map(r => r.ci_high), ...rows.map(r => r.rating)) + 10;
  return `<table class="standings"><thead><tr><th class="num" title="${RANKED_BY}">#</th><th>bot</th><th class="num">rating</th>
    <th class="hide-narrow">95% interval</th><th class="num" title="${RANKED_BY}">95% low ▾</th><th class="num">games</th><th class="num">wins</th>
    <th class="num hide-narrow">timeouts</th><th class="num hide-narrow">strikes</th><th class="num hide-narrow" title="decisions where the bot's own code failed">errors</th><th>online</th></tr></thead><tbody>` +
    rows.map(r => `<tr><td class="num">${r.rank}</td><td><a href="#/bot/${encodeURIComponent(r.bot)}">${esc(r.bot)}</a></td>
      <td class="num">${r.rating.toFixed(0)}</td><td class="hide-narrow">${ciBar(r, low, high)}</td>
      <td class="num rank-score">${r.rank_score === null ? '<span class="dim">?</span>' : r.rank_score.toFixed(0)}</td>
      <td class="num">${r.games}${r.provisional ? '<span class="dim" title="provisional: too few games for the rating to mean much yet">*</span>' : ""}</td><td class="num">${r.wins}</td><td class="num hide-narrow">${r.timeouts}</td>
      <td class="num hide-narrow">${r.strikes}</td><td class="num hide-narrow">${r.errors}</td><td><span class="dot${r.connected ? " on" : ""}"></span></td></tr>`).join("") +
    "</tbody></table>" +
    `<p class="dim legend">${RANKED_BY}${rows.some(r => r.provisional) ? "; * provisional: too few games yet" : ""}.</p>`;
}

function gamesTable(games, live = false) {
  if (!games.length) return `<p class="dim">${live ? "no game is running right now" : "no games"}</p>`;
  return `<table class="games"><thead><tr><th>game</th><th>ruleset</th><th>bots</th><th>${live ? "started (UTC)" : "result"}</th>
    ${live ? "<th>host</th>" : ""}<th class="num">decisions</th></tr></thead><tbody>` + games.map(g => {
      const bots = g.players || (g.seats || []).map(s => s.bot);
      let result = "";
      if (live) result = esc((g.started_at || "").slice(11, 19));
      else if (g.status === "finished") {
        result = [...g.seats].sort((a, b) => a.placement - b.placement).map(s => `${s.placement}. ${esc(s.bot)}`).join(", ");
      } else result = `<span class="dim">${esc(g.status)}${g.reason ? ": " + esc(g.reason) : ""}</span>`;
      return `<tr><td><a href="#/game/${encodeURIComponent(g.game_id)}">${esc(g.game_id)}</a></td><td>${esc(g.ruleset)}</td>
        <td>${bots.map(b => `<a href="#/bot/${encodeURIComponent(b)}">${esc(b)}</a>`).join(", ")}</td>
        <td>${result}</td>${live ? `<td class="host">${g.live ? "here" : g.running_on ? esc(g.running_on.host) : ""}</td>` : ""}<td class="num">${g.decisions ?? ""}</td></tr>`;
    }).join("") + "</tbody></table>";
}

// A page that refreshes keeps what it last showed when a refresh fails (the server restarting, its database away:
// a 503), and says so above it, with the error and the time of the data shown, until a refresh succeeds again.
const failing = new Map();  // refresher -> its error, while its last refresh failed
let shownAt = null;  // when every refresher last succeeded together

function showStale() {
  const banner = document.getElementById("stale");
  if (!banner) return;
  if (!failing.size) { banner.hidden = true; banner.textContent = ""; return; }
  const error = [...failing.values()].pop();
  const since = shownAt ? ` (showing what it said at ${shownAt.toISOString().slice(11, 19)} UTC)` : "";
  banner.textContent = `cannot refresh: ${error.message || error}${since}; trying again`;
  banner.hidden = false;
}

function every(ms, fn) {
  let alive = true, timer = null;
  const key = {};
  const tick = async () => {
    if (!alive) return;
    try {
      await fn();
      failing.delete(key);
      if (!failing.size) shownAt = new Date();
    } catch (e) {
      failing.set(key, e);
    }
    if (alive) { showStale(); timer = setTimeout(tick, ms); }
  };
  tick();
  return () => { alive = false; clearTimeout(timer); failing.delete(key); showStale(); };
}

// ---------------------------------------------------------------- pages

async function leaderboardPage(params) {
  const {rulesets} = await api("/api/v1/rulesets");
  let chosen = params.get("ruleset") || (rulesets[0] && rulesets[0].name);
  $main.innerHTML = `<h1>Leaderboard</h1><div class="tabs" id="tabs"></div>
    <div class="panel" id="standings"></div><div class="ladder-games"><div><h2>Running now <span class="dim">(every host of the ladder)</span></h2><div class="panel" id="live"></div></div>
    <div><h2>Latest results</h2><div class="panel" id="latest"></div></div></div>
    <section id="hosts-section" hidden><h2>Hosts <span class="dim">(the ladder's arena servers)</span></h2><div class="panel" id="hosts"></div></section>`;
  const tabs = document.getElementById("tabs");
  const drawTabs = () => {
    tabs.innerHTML = rulesets.map(r => `<button data-r="${esc(r.name)}" class="${r.name === chosen ? "on" : ""}" title="${esc(r.title)}">${esc(r.name)}</button>`).join("");
  };
  drawTabs();
  if (!rulesets.length) document.getElementById("standings").innerHTML = '<p class="dim">no rulesets yet</p>';
  tabs.onclick = e => { const r = e.target.dataset.r; if (r) { chosen = r; drawTabs(); refresh(); } };
  const refresh = async () => {
    const parts = [api("/api/v1/live"), api("/api/v1/games?status=finished&limit=10")];
    if (chosen) parts.push(api(`/api/v1/standings/${encodeURIComponent(chosen)}`));
    const [live, latest, standings] = await Promise.all(parts);
    document.getElementById("live").innerHTML = gamesTable(live.games, true);
    document.getElementById("latest").innerHTML = gamesTable(latest.games);
    if (standings) {
      const box = document.getElementById("standings");
      box.innerHTML = standingsTable(standings.standings);
      box.dataset.updated = String(Date.now());
    }
  };
  const stopGames = every(2000, refresh), stopHosts = every(10000, refreshHosts);
  return () => { stopGames(); stopHosts(); };
}

// A shared (PostgreSQL) ladder's hosts, whatever their number (one live host may be all that is left of three);
// a SQLite ladder has one host, the server of this page or the file's, and no section.
async function refreshHosts() {
  const {shared, hosts} = await api("/api/v1/hosts");
  const section = document.getElementById("hosts-section");
  if (!section) return;
  section.hidden = !shared;
  section.dataset.shared = String(shared);
  if (shared) document.getElementById("hosts").innerHTML = hostsTable(hosts);
}

function span(seconds) {
  seconds = Math.max(0, Math.round(seconds));
  if (seconds < 120) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 120) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return hours < 48 ? `${hours} h ${minutes % 60} min` : `${Math.floor(hours / 24)} d ${hours % 24} h`;
}

// A host's web view (the hosts table's `web`), as a link only when it is an http(s) URL: the row is the host's own word.
function webLink(web, hash = "", text = web) {
  if (!web) return "";
  return /^https?:\/\//.test(web) ? `<a href="${esc(web + hash)}" rel="noopener">${esc(text)}</a>` : esc(text);
}

function hostsTable(hosts) {
  if (!hosts.length) return '<p class="dim">no host has joined this ladder yet</p>';
  const live = hosts.filter(h => h.state === "live").length;
  return `<table class="hosts"><thead><tr><th>host</th><th>address</th><th>state</th><th>since (UTC)</th>
    <th class="num">lease</th><th class="num" title="games it runs now, of its --concurrency">games now</th><th>web view</th></tr></thead><tbody>` +
    hosts.map(h => {
      const lease = h.state === "stopped" ? "" : h.lease_left_s >= 0 ? `${span(h.lease_left_s)} left` : `lapsed ${span(-h.lease_left_s)} ago`;
      return `<tr class="host-${esc(h.state)}"><td>${esc(h.name)}</td><td><code>${esc(h.address)}</code></td>
        <td><span class="dot${h.state === "live" ? " on" : ""}"></span> ${esc(h.state)}</td>
        <td title="${esc(span(h.since_s))}">${esc((h.since || "").slice(0, 19).replace("T", " "))}</td>
        <td class="num">${esc(lease)}</td><td class="num">${h.games}/${h.concurrency}</td><td>${webLink(h.web)}</td></tr>`;
    }).join("") + `</tbody></table><p class="dim legend">${live} live of ${hosts.length}; a host is dead once its lease has run out and its process is gone.</p>`;
}

async function gamesPage(params) {
  const {rulesets} = await api("/api/v1/rulesets");
  $main.innerHTML = `<h1>Games</h1><form class="filters" id="filters">
      <input name="bot" placeholder="bot name" value="${esc(params.get("bot") || "")}">
      <select name="ruleset"><option value="">every ruleset</option>${rulesets.map(r =>
        `<option ${params.get("ruleset") === r.name ? "selected" : ""}>${esc(r.name)}</option>`).join("")}</select>
      <select name="status"><option value="">any status</option>${["finished", "aborted", "running"].map(s =>
        `<option ${params.get("status") === s ? "selected" : ""}>${s}</option>`).join("")}</select>
      <button>search</button></form><div class="panel" id="list"></div>`;
  document.getElementById("filters").onsubmit = e => {
    e.preventDefault();
    const query = new URLSearchParams([...new FormData(e.target)].filter(([, v]) => v));
    location.hash = `#/games?${query}`;
  };
  const query = new URLSearchParams([...params].filter(([k]) => ["bot", "ruleset", "status"].includes(k)));
  query.set("limit", "100");
  const {games} = await api(`/api/v1/games?${query}`);
  document.getElementById("list").innerHTML = gamesTable(games);
  return () => {};
}

function seatRows(seats) {
  return seats.map(s => `<div class="seat${s.to_decide ? " turn" : ""}"><div>${s.to_decide ? "▶" : ""}${s.seat}</div>
    <div><a href="#/bot/${encodeURIComponent(s.bot)}">${esc(s.bot)}</a></div>
    <div class="cards">${s.cards ? hand(s.cards) : (s.size !== null && s.size !== undefined ? backs(s.size) : "?")}</div>
    <div class="standing dim">${s.placement ? "place " + s.placement + " · " : ""}${s.score !== null && s.score !== undefined ? "score " + esc(s.score) : ""}</div></div>`).join("");
}

function factList(facts) {
  return `<dl class="facts">${facts.map(([label, text]) => `<dt>${esc(label)}</dt><dd>${suited(text)}</dd>`).join("")}</dl>`;
}

async function gamePage(gameId) {
  const game = await api(`/api/v1/games/${encodeURIComponent(gameId)}`);
  if (game.live || game.status === "running") return liveGame(game);
  return replayViewer(game);
}

function liveGame(game) {
  $main.innerHTML = `<h1>${esc(game.ruleset)} · live <span class="dim">${esc(game.game_id)}</span></h1>
    <p class="dim">The public view, as it is played: every hand stays hidden until the game has ended.</p>
    <div class="status" id="status">waiting for the first move…</div>
    <div class="grid2"><div><div class="panel" id="facts"></div><div class="panel" id="seats"></div></div>
    <div><h2>Decisions</h2><div class="panel log" id="log"></div></div></div>`;
  const names = (game.seats || []).map(s => s.bot);
  const log = document.getElementById("log");
  const status = document.getElementById("status");
  if (game.running_on) {  // another host runs it: its moves are only there
    const on = game.running_on;
    status.classList.add("elsewhere");
    status.textContent = `running on ${on.host}${on.address ? " (" + on.address + ")" : ""}: watch it there` +
      (on.address ? ` (arena watch ${game.game_id} --arena ${on.address})` : "");
    if (on.web) status.insertAdjacentHTML("beforeend",
      ` or on its web view: ${webLink(on.web.replace(/\/?$/, "/"), `#/game/${encodeURIComponent(game.game_id)}`, "open it there")}`);
    return () => {};
  }
  const source = new EventSource(`/api/v1/games/${encodeURIComponent(game.game_id)}/events?follow=1`);
  source.onmessage = message => {
    const event = JSON.parse(message.data);
    if (event.view) {
      const view = event.view;
      const seats = (view.seats || []).map(s => ({seat: s.seat || 0, bot: s.name, cards: null, size: s.hand_size || 0,
        score: s.score || 0, to_decide: (view.current ?? -1) === (s.seat || 0)}));
      document.getElementById("seats").innerHTML = seatRows(seats);
      document.getElementById("facts").innerHTML = factList(event.facts || []);
      const next = seats.find(s => s.to_decide);
      document.getElementById("status").textContent = next ? `next: ${next.bot} (${view.decision || ""})` : "";
      seats.forEach(s => { names[s.seat] = s.bot; });
    }
    if ((event.index || 0) > 0 && event.action) {
      log.insertAdjacentHTML("beforeend", `<div>${event.index}. ${esc(names[event.seat || 0] || "seat " + event.seat)}: ${suited(event.action_shown || event.action)}</div>`);
      log.scrollTop = log.scrollHeight;
      log.dataset.count = String(event.index);
    }
    if (event.ended) {
      const results = [...(event.ended.results || [])].sort((a, b) => (a.placement || 99) - (b.placement || 99));
      document.getElementById("status").textContent = results.length
        ? "game over: " + results.map(r => `${r.placement || "?"}. ${r.name} (${r.points || 0})`).join(", ")
        : `game ${event.ended.reason || "ended"}`;
    }
  };
  // A stream refused (not live here, the server busy) ends the EventSource; one cut is retried by the browser.
  source.onerror = async event => {
    if (event.data) {  // the server's own "error" event: no room to watch now
      source.close();
      status.classList.add("elsewhere");
      status.textContent = JSON.parse(event.data).error || "the live stream was refused";
      return;
    }
    if (source.readyState !== EventSource.CLOSED) {
      status.textContent = "connection lost: reconnecting…";
      return;
    }
    const answer = await fetch(`/api/v1/games/${encodeURIComponent(game.game_id)}/events`).catch(() => null);
    const body = answer ? await answer.json().catch(() => ({})) : {};
    status.classList.add("elsewhere");
    status.textContent = body.error || "the live stream is not available: reload the page to try again";
  };
  source.addEventListener("end", () => {
    source.close();
    const link = document.createElement("p");
    link.innerHTML = `<a href="#/game/${encodeURIComponent(game.game_id)}" id="open-replay">open the replay (seat views too)</a>`;
    $main.appendChild(link);
    link.querySelector("a").onclick = e => { e.preventDefault(); route(true); };
  });
  return () => source.close();
}

async function replayViewer(game) {
  const players = (game.seats || []).length;
  const views = ["spectator", "omniscient", ...Array.from({length: players}, (_, i) => `seat:${i}`)];
  let view = "spectator", data = null, step = 0, timer = null;
  $main.innerHTML = `<h1>${esc(game.ruleset)} · replay <span class="dim">${esc(game.game_id)}</span></h1>
    <div class="controls">
      <button id="first" title="start">«</button><button id="prev" title="previous (←)">◀</button>
      <button id="play" title="play / pause (space)">▶ play</button><button id="next" title="next (→)">▶</button>
      <button id="last" title="end">»</button>
      <label>step <input type="number" id="jump" min="0" value="0"></label> <span class="dim" id="of"></span>
      <label>view <select id="view">${views.map(v => `<option value="${v}">${v === "spectator" ? "spectator" : v === "omniscient" ? "everything" :
        "seat " + v.slice(5) + " · " + esc(game.seats[Number(v.slice(5))].bot)}</option>`).join("")}</select></label>
    </div>
    <div class="status" id="status"></div>
    <div class="grid2"><div><div class="panel" id="facts"></div><div class="panel" id="seats"></div></div>
    <div><h2>Decisions</h2><div class="panel log" id="log"></div></div></div>`;
  const show = () => {
    const frame = data.frames[step];
    document.getElementById("jump").value = String(step);
    document.getElementById("of").textContent = `of ${data.frames.length - 1}`;
    document.getElementById("status").textContent = frame.status;
    document.getElementById("facts").innerHTML = factList(frame.facts);
    document.getElementById("seats").innerHTML = seatRows(frame.seats);
    const rows = data.frames.slice(1, step + 1).slice(-200).map(f =>
      `<div class="${f.step === step ? "cur" : ""}">${f.decision.i}. ${esc(f.decision.bot)}: ${suited(f.decision.action)}${f.decision.timeout ? ' <b class="error">TIMEOUT</b>' : ""}</div>`);
    const log = document.getElementById("log");
    log.innerHTML = rows.join("") || '<span class="dim">the deal</span>';
    log.scrollTop = log.scrollHeight;
    $main.dataset.step = String(step);
    $main.dataset.view = view;
  };
  const go = target => {
    if (!data) return;  // the frames are still loading: controls wait for them
    step = Math.max(0, Math.min(target, data.frames.length - 1));
    show();
  };
  const load = async () => {
    data = await api(`/api/v1/games/${encodeURIComponent(game.game_id)}/replay?view=${encodeURIComponent(view)}`);
    go(step);
  };
  const pause = () => { clearInterval(timer); timer = null; document.getElementById("play").textContent = "▶ play"; };
  document.getElementById("first").onclick = () => go(0);
  document.getElementById("prev").onclick = () => go(step - 1);
  document.getElementById("next").onclick = () => go(step + 1);
  document.getElementById("last").onclick = () => go(Infinity);
  document.getElementById("jump").onchange = e => go(Number(e.target.value) || 0);
  document.getElementById("play").onclick = () => {
    if (timer) return pause();
    if (!data) return;
    if (step >= data.frames.length - 1) go(0);
    document.getElementById("play").textContent = "⏸ pause";
    timer = setInterval(() => { if (step >= data.frames.length - 1) pause(); else go(step + 1); }, 400);
  };
  document.getElementById("view").onchange = async e => { view = e.target.value; data = null; await load(); };
  const keys = e => {
    if (e.target.tagName === "INPUT") return;
    if (e.key === "ArrowRight") go(step + 1);
    else if (e.key === "ArrowLeft") go(step - 1);
    else if (e.key === " ") { e.preventDefault(); document.getElementById("play").click(); }
  };
  document.addEventListener("keydown", keys);
  await load();
  return () => { pause(); document.removeEventListener("keydown", keys); };
}

function plot(points) {
  if (points.length < 2) return '<p class="dim">not enough games for a plot yet</p>';
  const ratings = points.map(p => p.rating);
  const low = Math.min(...ratings) - 5, high = Math.max(...ratings) + 5, w = 600, h = 160;
  const xy = points.map((p, i) => `${(i / (points.length - 1) * (w - 40) + 35).toFixed(1)},${(h - (p.rating - low) / (high - low) * (h - 20) - 10).toFixed(1)}`);
  return `<svg class="plot" viewBox="0 0 ${w} ${h}" preserveAspectRatio="none" role="img" aria-label="rating over time">
    <text x="0" y="14">${high.toFixed(0)}</text><text x="0" y="${h - 4}">${low.toFixed(0)}</text>
    <polyline points="${xy.join(" ")}"/></svg>`;
}

function versionsTable(versions) {
  if (!versions.length) return '<p class="dim">no games yet</p>';
  return `<table><thead><tr><th>version</th><th>first seen</th><th>last seen</th><th class="num">games</th>
    <th class="num">wins</th><th class="num" title="mean placement score: 1 first, 0 last">score</th></tr></thead><tbody>${
    versions.map(v => `<tr><td>${esc(v.version || "—")}</td><td>${esc(v.first_seen || "—")}</td><td>${esc(v.last_seen || "—")}</td>
      <td class="num">${v.games}</td><td class="num">${v.wins}</td>
      <td class="num">${v.score === null ? "—" : (100 * v.score).toFixed(1) + "%"}</td></tr>`).join("")}</tbody></table>`;
}

async function botPage(name) {
  const bot = await api(`/api/v1/bots/${encodeURIComponent(name)}`);
  const rulesets = Object.keys(bot.rulesets);
  $main.innerHTML = `<h1>${esc(bot.name)} <span class="dot${bot.connected ? " on" : ""}" title="${bot.connected ? "connected" : "offline"}"></span></h1>
    <p class="dim">${bot.registered ? "registered" : "open registration"}${bot.owner ? ` · owner ${esc(bot.owner)}` : ""} · version ${esc(bot.version || "—")} · first seen ${esc(bot.first_seen || "—")} · last seen ${esc(bot.last_seen || "—")}</p>
    <div class="panel"><table><thead><tr><th>ruleset</th><th class="num">finished</th><th class="num">aborted</th><th class="num">wins</th>
      <th class="num">timeouts</th><th class="num">strikes</th><th class="num">forfeits</th><th class="num" title="decisions where the bot's own code failed and its SDK played the first legal action">errors</th><th class="num">avg ms</th></tr></thead><tbody>${
      rulesets.map(r => { const t = bot.rulesets[r]; return `<tr><td>${esc(r)}</td><td class="num">${t.finished}</td><td class="num">${t.aborted}</td>
        <td class="num">${t.wins}</td><td class="num">${t.timeouts}</td><td class="num">${t.strikes}</td><td class="num">${t.forfeits}</td>
        <td class="num">${t.errors}</td><td class="num">${t.decisions ? (t.think_ms / t.decisions).toFixed(1) : "—"}</td></tr>`; }).join("")}</tbody></table></div>
    <h2>Versions</h2><div class="panel" id="versions">${versionsTable(bot.versions)}</div>
    <div id="plots"></div><h2>Games</h2><div class="panel" id="games"></div>`;
  const plots = await Promise.all(rulesets.map(r => api(`/api/v1/bots/${encodeURIComponent(name)}/ratings?ruleset=${encodeURIComponent(r)}`)));
  document.getElementById("plots").innerHTML = plots.map(p => `<h2>Rating in ${esc(p.ruleset)} (live Elo after each game)</h2><div class="panel">${plot(p.points)}</div>`).join("");
  const {games} = await api(`/api/v1/games?bot=${encodeURIComponent(name)}&limit=50`);
  document.getElementById("games").innerHTML = gamesTable(games);
  return () => {};
}

// ---------------------------------------------------------------- routing

async function route(force) {
  stopPage();
  stopPage = () => {};
  const hash = location.hash.slice(1) || "/";
  const [path, query] = hash.split("?");
  const params = new URLSearchParams(query || "");
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  try {
    if (!parts.length) stopPage = await leaderboardPage(params);
    else if (parts[0] === "games") stopPage = await gamesPage(params);
    else if (parts[0] === "game" && parts[1]) stopPage = await gamePage(parts[1]);
    else if (parts[0] === "bot" && parts[1]) stopPage = await botPage(parts[1]);
    else $main.innerHTML = `<p class="error">no page ${esc(hash)}</p><p><a href="#/">the leaderboard</a></p>`;
  } catch (error) {
    $main.innerHTML = `<p class="error">${esc(error.message)}</p><p><a href="#/">the leaderboard</a></p>`;
  }
}

window.addEventListener("hashchange", () => route(false));
route(false);
