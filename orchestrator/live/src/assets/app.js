// The live page of a council-match run or a council-tune tune. It reads the JSON endpoints and the event stream of the
// server that sent it, and nothing else. Every text that comes from a config or an engine
// (player names, moves, info strings) reaches the page as a text node: the page never parses
// data as markup (no innerHTML anywhere).
"use strict";

const $ = (id) => document.getElementById(id);

/** An element with attributes and children; strings become text nodes. */
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") e.className = v;
    else if (k === "onclick") e.addEventListener("click", v);
    else e.setAttribute(k, String(v));
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

const SVG = "http://www.w3.org/2000/svg";
function svg(tag, attrs, text) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = String(text);
  return e;
}

// ---- Shogi notation ------------------------------------------------------------------------

const KANJI = { K: "玉", R: "飛", B: "角", G: "金", S: "銀", N: "桂", L: "香", P: "歩" };
const PROMOTED = { R: "龍", B: "馬", S: "全", N: "圭", L: "杏", P: "と" };
const HAND_ORDER = ["R", "B", "G", "S", "N", "L", "P"];

/** An SFEN as 81 squares (rank a to i, file 9 to 1), hands and side to move. */
function parseSfen(sfen) {
  const [board, side, hands] = sfen.trim().split(/\s+/);
  const squares = [];
  for (const row of board.split("/")) {
    let promoted = false;
    for (const ch of row) {
      if (ch === "+") { promoted = true; continue; }
      if (/[1-9]/.test(ch)) {
        for (let i = 0; i < Number(ch); i++) squares.push(null);
        continue;
      }
      const upper = ch.toUpperCase();
      squares.push({ kind: upper, gote: ch !== upper, promoted });
      promoted = false;
    }
  }
  const hand = { sente: {}, gote: {} };
  let count = "";
  for (const ch of hands || "-") {
    if (ch === "-") break;
    if (/[0-9]/.test(ch)) { count += ch; continue; }
    const upper = ch.toUpperCase();
    hand[ch === upper ? "sente" : "gote"][upper] = Number(count || "1");
    count = "";
  }
  return { squares, hand, side: side === "w" ? "gote" : "sente" };
}

function pieceName(p) {
  if (p.kind === "K") return p.gote ? "王" : "玉";
  return p.promoted ? PROMOTED[p.kind] : KANJI[p.kind];
}

/** The square index (0..80) of a USI square like "7f". */
function squareIndex(sq) {
  const file = Number(sq[0]);
  const rank = sq.charCodeAt(1) - "a".charCodeAt(0);
  return rank * 9 + (9 - file);
}

/** From and to squares of a USI move (from is null for a drop). */
function moveSquares(mv) {
  if (!mv || mv.length < 4) return { from: null, to: null };
  if (mv[1] === "*") return { from: null, to: squareIndex(mv.slice(2, 4)) };
  return { from: squareIndex(mv.slice(0, 2)), to: squareIndex(mv.slice(2, 4)) };
}

function handText(hand) {
  const parts = [];
  for (const k of HAND_ORDER) {
    const n = hand[k];
    if (n) parts.push(KANJI[k] + (n > 1 ? String(n) : ""));
  }
  return parts.length ? parts.join(" ") : "なし";
}

const FILES = ["9", "8", "7", "6", "5", "4", "3", "2", "1"];
// Ranks as a shogi board shows them (一..九), each with USI's letter (a..i) under it, since every
// move on the page is USI text: 7g7f is read off the coordinates directly.
const RANKS = ["一", "二", "三", "四", "五", "六", "七", "八", "九"];
const RANKS_USI = ["a", "b", "c", "d", "e", "f", "g", "h", "i"];

/** A board for `sfen` with `lastMove` marked, files 9..1 across the top and ranks 一..九 (a..i)
 * down the right side; data attributes say what it shows. */
function boardView(sfen, lastMove, data) {
  const pos = parseSfen(sfen);
  const { from, to } = moveSquares(lastMove);
  const grid = el("div", { class: "board" });
  pos.squares.forEach((p, i) => {
    const cls = ["sq"];
    if (p && p.gote) cls.push("gote");
    if (p && p.promoted) cls.push("promoted");
    if (i === to) cls.push("last-to");
    if (i === from) cls.push("last-from");
    grid.append(el("div", { class: cls.join(" ") }, p ? el("span", {}, pieceName(p)) : null));
  });
  const files = el("div", { class: "coords files" }, FILES.map((f) => el("span", { class: "coord-file" }, f)));
  const ranks = el("div", { class: "coords ranks" }, RANKS.map((r, i) => el("span", { class: "coord-rank" },
    el("span", { class: "rank-ja" }, r), el("span", { class: "rank-usi" }, RANKS_USI[i]))));
  const wrap = el("div", { class: "board-wrap", "data-sfen": sfen, ...data },
    el("div", { class: "hand gote" }, "☖ ", handText(pos.hand.gote)),
    files,
    el("div", { class: "board-row" }, grid, ranks),
    el("div", { class: "hand sente" }, "☗ ", handText(pos.hand.sente)));
  return wrap;
}

function scoreText(score) {
  if (!score) return "–";
  if (score.cp !== undefined) return (score.cp > 0 ? "+" : "") + score.cp;
  if (score.mate !== undefined) return "mate " + score.mate;
  return JSON.stringify(score);
}

function seconds(ms) { return (ms / 1000).toFixed(1) + " s"; }

function clockText(c) {
  if (!c) return "";
  if (!c.enabled) return "used " + seconds(c.used_ms);
  const m = Math.floor(c.remaining_ms / 60000);
  const s = Math.floor((c.remaining_ms % 60000) / 1000);
  let t = m + ":" + String(s).padStart(2, "0");
  if (c.byoyomi_ms) t += " + " + seconds(c.byoyomi_ms);
  if (c.increment_ms) t += " +" + seconds(c.increment_ms) + "/mv";
  return t;
}

/** The council decisions of one move: members' moves and scores, the chosen move, the rule. */
function votesView(votes, ply) {
  const holder = el("div", { class: "votes-holder" });
  for (const v of votes || []) {
    const rows = v.members.map((m) => el("tr", { class: m.mv === v.chosen ? "chosen" : "" },
      el("td", { class: "name" }, m.name, m.name === v.strongest ? " ★" : ""),
      el("td", {}, m.mv !== undefined ? m.mv : (m.error ? "✗ " + m.error : "–")),
      el("td", {}, scoreText(m.score)),
      el("td", {}, m.nodes !== undefined ? m.nodes : ""),
      el("td", {}, m.time_ms + " ms")));
    holder.append(el("table", { class: "votes" },
      el("caption", {},
        "move " + (v.ply + 1) + " · " + v.council + " (" + v.method + ") chose ",
        el("b", {}, v.chosen), " by " + v.rule,
        v.overrode_strongest ? el("span", { class: "override" }, " · overrode " + v.strongest) : ""),
      el("thead", {}, el("tr", {}, el("th", { class: "name" }, "member"), el("th", {}, "move"),
        el("th", {}, "score"), el("th", {}, "nodes"), el("th", {}, "time"))),
      el("tbody", {}, rows)));
  }
  if (!holder.childNodes.length) holder.append(el("p", { class: "dim" }, ply ? "no council vote yet" : ""));
  return holder;
}

// ---- State ---------------------------------------------------------------------------------

const state = {
  run: null,             // { name, config }
  phase: null,
  total: null,
  summary: null,
  live: new Map(),       // id -> LiveGame
  finished: new Map(),   // id -> GameResult, in the order they arrived
  replay: null,          // { game, sfens, kif, records, ply }
  tune: null,            // a tune's page: { params, iterations, games_per_iteration, simulate, lines }
};

/** The run's name in the header and the title (the folder's, else the config file's). */
function renderRun() {
  const run = state.run || {};
  $("run-name").textContent = run.name || "";
  $("run-config").textContent = run.config || "";
  document.title = (run.name ? run.name + " · " : "") + "council live";
}

function renderProgress() {
  const done = state.summary && state.summary.games !== undefined ? state.summary.games : state.finished.size;
  const total = state.total;
  const gpm = state.summary ? state.summary.games_per_minute : null;
  const over = state.phase === "finished";
  const known = total !== null && total !== undefined;
  const parts = [done + (known && !over ? " / " + total : "") + " games"];
  if (over && known && done < total) {
    const sprt = state.summary && state.summary.sprt;
    parts.push((sprt && sprt.decision !== "continue" ? "stopped by the SPRT" : "stopped early") + " (" + total + " scheduled)");
  }
  if (gpm) parts.push(gpm.toFixed(1) + " games/min");
  if (gpm && known && total > done && !over) {
    const minutes = (total - done) / gpm;
    parts.push("about " + (minutes < 1 ? Math.ceil(minutes * 60) + " s" : Math.ceil(minutes) + " min") + " left");
  }
  $("progress-text").textContent = parts.join(" · ");
  $("progress-fill").style.width = over ? "100%" : total ? Math.min(100, (100 * done) / total) + "%" : "0";
  $("phase").textContent = state.phase || "";
}

function eloText(p) {
  // A summary of this build: the run's rating as council-elo fits it, or n/a and why.
  if (p.rating !== undefined) {
    if (!p.rating) return "n/a" + (p.unrated ? " (" + p.unrated + ")" : "");
    const r = (p.rating.elo > 0 ? "+" : "") + Math.round(p.rating.elo) + " ± " + Math.round(p.rating.error);
    return p.los !== null && p.los !== undefined ? r + " · LOS " + Math.round(100 * p.los) + "%" : r;
  }
  if (p.elo === null || p.elo === undefined) return "–";
  const e = (p.elo > 0 ? "+" : "") + Math.round(p.elo);
  return p.elo_error !== null && p.elo_error !== undefined ? e + " ± " + Math.round(p.elo_error) : e;
}

// The Elo cell: an unrated player's reason goes in the cell's tooltip, so the table keeps its width.
function eloCell(p) {
  if (p.rating === null && p.unrated) {
    return el("td", { class: "unrated", title: p.unrated }, "n/a");
  }
  return el("td", {}, eloText(p));
}

function renderStandings() {
  const body = $("standings").tBodies[0];
  body.replaceChildren();
  const s = state.summary;
  if (!s || !s.players) return;
  const players = [...s.players].sort((a, b) => b.points - a.points);
  players.forEach((p, i) => body.append(el("tr", { "data-player": p.name },
    el("td", {}, i + 1), el("td", { class: "name" }, p.name), el("td", {}, p.games),
    el("td", {}, p.wins), el("td", {}, p.draws), el("td", {}, p.losses),
    el("td", {}, p.points.toFixed(1)), el("td", {}, (100 * p.score).toFixed(1) + "%"),
    eloCell(p))));
  const t = s.sprt;
  $("sprt").hidden = !t;
  if (t) {
    const span = t.upper - t.lower;
    const at = span > 0 ? Math.max(0, Math.min(1, (t.llr - t.lower) / span)) : 0.5;
    $("sprt-marker").style.left = "calc(" + (100 * at).toFixed(1) + "% - 2px)";
    const decision = t.decision && t.decision !== "continue" ? " · " + t.decision.replace("_", " ") +
      (t.decided_after_games ? " after " + t.decided_after_games + " games" : "") : "";
    $("sprt-text").textContent = "elo0 " + t.elo0 + ", elo1 " + t.elo1 + ": LLR " + t.llr.toFixed(2) +
      " (" + t.lower.toFixed(2) + ", " + t.upper.toFixed(2) + ")" + decision;
  }
}

// Families in their fixed order (static first), unlabelled last, as the closing table shows them.
const FAMILY_ORDER = ["static-vs-static", "static-vs-ranging:central", "static-vs-ranging:fourth-file",
  "static-vs-ranging:third-file", "static-vs-ranging:opposing", "static-vs-ranging:ninth-file",
  "ranging-vs-ranging", "unlabelled"];

function familyRank(key) {
  const i = FAMILY_ORDER.indexOf(key);
  return i < 0 ? FAMILY_ORDER.length : i;
}

// summary.by_family: one row per family, each player's W-L-D and score there.
function renderFamilies() {
  const table = $("families");
  const rows = state.summary && state.summary.by_family ? Object.entries(state.summary.by_family) : [];
  const names = state.summary && state.summary.players ? state.summary.players.map((p) => p.name) : [];
  const head = table.tHead.rows[0];
  head.replaceChildren(el("th", { class: "name" }, "family"), el("th", {}, "games"), el("th", {}, "share"),
    ...names.map((n) => el("th", {}, n)));
  const body = table.tBodies[0];
  body.replaceChildren();
  rows.sort((a, b) => familyRank(a[0]) - familyRank(b[0]) || a[0].localeCompare(b[0]));
  for (const [key, row] of rows) {
    const cells = names.map((n) => {
      const s = row.players[n];
      return el("td", {}, s ? s.wins + "-" + s.losses + "-" + s.draws + " " + (100 * s.score).toFixed(1) + "%" : "–");
    });
    body.append(el("tr", { "data-family": key },
      el("td", { class: "name", title: row.name_ja }, key + " " + row.name_ja),
      el("td", {}, row.games), el("td", {}, (100 * row.share).toFixed(1) + "%"), ...cells));
  }
  $("no-families").hidden = rows.length > 0;
}

function renderCharts() {
  renderEloChart();
  renderAgreement();
  renderEndings();
}

/**
 * Each player's Elo from its score so far, after each finished game (in the order they ended),
 * from its `min_games`-th game on: fewer games give no rating (an Elo from one game is ±800).
 */
function renderEloChart() {
  const holder = $("elo-chart");
  holder.replaceChildren();
  const games = [...state.finished.values()];
  const names = state.summary && state.summary.players ? state.summary.players.map((p) => p.name) : [];
  if (!games.length || !names.length) { holder.append(el("p", { class: "dim" }, "no finished game yet")); return; }
  const minGames = state.minGames || 1;
  const tally = new Map(names.map((n) => [n, { pts: 0, n: 0, line: [] }]));
  games.forEach((g, k) => {
    const sente = g.result === "sente" ? 1 : g.result === "draw" ? 0.5 : 0;
    for (const [name, pts] of [[g.sente, sente], [g.gote, 1 - sente]]) {
      const t = tally.get(name);
      if (!t) continue;
      t.pts += pts; t.n += 1;
      if (t.n < minGames) continue;
      const score = Math.min(Math.max(t.pts / t.n, 0.01), 0.99);
      t.line.push([k + 1, -400 * Math.log10(1 / score - 1)]);
    }
  });
  if (![...tally.values()].some((t) => t.line.length)) {
    holder.append(el("p", { class: "dim" }, "the chart starts at a player's " + minGames + "th game"));
    return;
  }
  const W = 600, H = 220, L = 40, B = 20;
  let lo = -100, hi = 100;
  for (const t of tally.values()) for (const [, y] of t.line) { lo = Math.min(lo, y); hi = Math.max(hi, y); }
  const x = (i) => L + ((W - L - 10) * i) / Math.max(games.length, 1);
  const y = (e) => 10 + ((H - B - 10) * (hi - e)) / (hi - lo);
  const chart = svg("svg", { viewBox: "0 0 " + W + " " + H, role: "img" });
  chart.append(svg("line", { x1: L, x2: W - 10, y1: y(0), y2: y(0), stroke: "#bbb" }));
  chart.append(svg("text", { x: L - 4, y: y(hi) + 4, "text-anchor": "end", "font-size": 10 }, Math.round(hi)));
  chart.append(svg("text", { x: L - 4, y: y(lo), "text-anchor": "end", "font-size": 10 }, Math.round(lo)));
  chart.append(svg("text", { x: L - 4, y: y(0) + 4, "text-anchor": "end", "font-size": 10 }, "0"));
  chart.append(svg("text", { x: W - 10, y: H - 4, "text-anchor": "end", "font-size": 10 }, games.length + " games"));
  const colours = ["#b03a2e", "#2e6db0", "#3a9a4a", "#8a4fb0", "#c07a20", "#2a9a9a", "#666"];
  [...tally.entries()].forEach(([name, t], i) => {
    const c = colours[i % colours.length];
    if (t.line.length) {
      chart.append(svg("polyline", { fill: "none", stroke: c, "stroke-width": 2,
        points: t.line.map(([gx, gy]) => x(gx).toFixed(1) + "," + y(gy).toFixed(1)).join(" ") }));
    }
    chart.append(svg("text", { x: L + 8, y: 22 + 14 * i, fill: c, "font-size": 12 }, name));
  });
  holder.append(chart);
}

function renderAgreement() {
  const holder = $("agreement");
  holder.replaceChildren();
  const councils = state.summary && state.summary.councils ? state.summary.councils : [];
  if (!councils.length) { holder.append(el("p", { class: "dim" }, "no council decision yet")); return; }
  for (const c of councils) {
    const head = el("tr", {}, el("th", {}), c.members.map((m) => el("th", { class: "name" }, m)));
    const rows = c.members.map((m, i) => el("tr", {}, el("th", { class: "name" }, m),
      c.members.map((_, j) => {
        const a = c.agreement && c.agreement[i] ? c.agreement[i][j] : null;
        const td = el("td", {}, a === null || a === undefined ? "–" : (100 * a).toFixed(0) + "%");
        if (a !== null && a !== undefined) td.style.background = "rgba(46, 109, 176, " + (a * 0.6).toFixed(2) + ")";
        return td;
      })));
    holder.append(el("h3", {}, c.name + " · " + c.moves + " decisions · overrode its strongest in " +
      (100 * c.overrode_strongest).toFixed(1) + "%"));
    holder.append(el("table", { class: "matrix" }, el("thead", {}, head), el("tbody", {}, rows)));
  }
}

function renderEndings() {
  const holder = $("endings");
  holder.replaceChildren();
  const reasons = state.summary && state.summary.reasons ? Object.entries(state.summary.reasons) : [];
  const most = Math.max(1, ...reasons.map(([, n]) => n));
  for (const [reason, n] of reasons.sort((a, b) => b[1] - a[1])) {
    const fill = el("div", { class: "fill" });
    fill.style.width = (160 * n) / most + "px";
    holder.append(el("div", { class: "endings-row" }, el("span", { class: "label" }, reason.replace("_", " ")), fill, el("span", {}, n)));
  }
  if (!reasons.length) holder.append(el("p", { class: "dim" }, "no finished game yet"));
}

// ---- A tune --------------------------------------------------------------------------------

function num(v) { return Math.abs(v) >= 100 ? v.toFixed(1) : v.toFixed(3); }

/** One parameter's θ over the iterations: θ before the first, then θ after each. */
function tuneChart(p, i, lines) {
  const pts = lines.length ? [[0, lines[0].theta[i]], ...lines.map((l) => [l.k + 1, l.theta_next[i]])] : [];
  let lo = p.min, hi = p.max;
  if (lo === null || hi === null || lo === undefined || hi === undefined || hi <= lo) {
    lo = Math.min(...pts.map(([, v]) => v), p.start ?? Infinity);
    hi = Math.max(...pts.map(([, v]) => v), p.start ?? -Infinity);
    if (!(hi > lo)) { lo -= 1; hi += 1; }
  }
  const W = 360, H = 160, L = 44, B = 18;
  const n = Math.max(state.tune.iterations, 1);
  const x = (k) => L + ((W - L - 8) * k) / n;
  const y = (v) => 8 + ((H - B - 8) * (hi - v)) / (hi - lo);
  const chart = svg("svg", { viewBox: "0 0 " + W + " " + H, role: "img", "aria-label": p.path, class: "tune-svg" });
  chart.append(svg("rect", { x: L, y: 8, width: W - L - 8, height: H - B - 8, fill: "none", stroke: "#ddd" }));
  chart.append(svg("text", { x: L - 4, y: 14, "text-anchor": "end", "font-size": 10 }, num(hi)));
  chart.append(svg("text", { x: L - 4, y: H - B, "text-anchor": "end", "font-size": 10 }, num(lo)));
  chart.append(svg("text", { x: W - 8, y: H - 4, "text-anchor": "end", "font-size": 10 }, n + " iterations"));
  if (p.start !== null && p.start !== undefined) {
    chart.append(svg("line", { x1: L, x2: W - 8, y1: y(p.start), y2: y(p.start), stroke: "#bbb", "stroke-dasharray": "4 3" }));
  }
  if (pts.length) {
    chart.append(svg("polyline", { fill: "none", stroke: "#b03a2e", "stroke-width": 2, class: "theta",
      points: pts.map(([k, v]) => x(k).toFixed(1) + "," + y(v).toFixed(1)).join(" ") }));
  }
  const now = pts.length ? pts[pts.length - 1][1] : p.start;
  return el("div", { class: "tune-chart" },
    el("h3", {}, p.path + (now !== null && now !== undefined ? " · θ " + num(now) : "")), chart);
}

function sideText(s) { return s ? s.w + "-" + s.d + "-" + s.l : ""; }

function renderTune() {
  const t = state.tune;
  $("tune-section").hidden = !t;
  if (!t) return;
  // A tune's games are θ+ against θ− (or an opponent): no standings or families to show.
  $("standings-section").hidden = true;
  $("families-section").hidden = true;
  const done = t.lines.length;
  const parts = ["iteration " + done + " / " + t.iterations, state.finished.size + " games played"];
  if (t.simulate) parts.push("simulated");
  $("tune-progress").textContent = parts.join(" · ");
  $("tune-charts").replaceChildren(...t.params.map((p, i) => tuneChart(p, i, t.lines)));
  const head = $("tune-last").tHead;
  head.replaceChildren(el("tr", {}, el("th", {}, "k"), t.params.map((p) => el("th", { class: "name" }, p.path)),
    el("th", {}, "θ+ W-D-L"), el("th", {}, "θ− W-D-L"), el("th", {}, "r")));
  const body = $("tune-last").tBodies[0];
  body.replaceChildren(...t.lines.slice(-8).reverse().map((l) => el("tr", {},
    el("td", {}, l.k), l.theta_next.map((v) => el("td", {}, num(v))),
    el("td", {}, sideText(l.result.plus)), el("td", {}, sideText(l.result.minus)), el("td", {}, l.r))));
}

// ---- Games in play -------------------------------------------------------------------------

function sideView(g, side, toMove) {
  const i = side === "sente" ? 0 : 1;
  const name = side === "sente" ? g.sente : g.gote;
  const pv = g.pvs && g.pvs[i] && g.pvs[i].length ? " · pv " + g.pvs[i].join(" ") : "";
  return el("div", {},
    el("div", { class: "side" + (toMove === side ? " to-move" : "") },
      el("span", { class: "who" }, (side === "sente" ? "☗ " : "☖ ") + name),
      el("span", {}, clockText(g.clocks && g.clocks[i]))),
    el("div", { class: "score" }, "score " + scoreText(g.scores && g.scores[i]) + pv));
}

function gameView(g) {
  const toMove = parseSfen(g.sfen).side;
  const last = g.moves.length ? g.moves[g.moves.length - 1] : null;
  return el("div", { class: "game", id: "game-" + g.id, "data-game": g.id },
    el("div", { class: "game-main" },
      el("div", { class: "game-title" }, "#" + g.id + " · move " + g.moves.length + (last ? " · " + last : "")),
      sideView(g, "gote", toMove),
      boardView(g.sfen, last, { "data-game": g.id, "data-ply": g.moves.length }),
      sideView(g, "sente", toMove)),
    el("div", {}, el("h3", {}, "Council votes"), votesView(g.votes, g.moves.length)));
}

function renderGame(g) {
  const old = $("game-" + g.id);
  const view = gameView(g);
  if (old) old.replaceWith(view); else $("boards").append(view);
  renderLiveCount();
}

function renderLive() {
  $("boards").replaceChildren(...[...state.live.values()].map(gameView));
  renderLiveCount();
}

function renderLiveCount() {
  $("live-count").textContent = state.live.size ? "(" + state.live.size + ")" : "";
  $("no-boards").hidden = state.live.size > 0;
}

// ---- Finished games and replay -------------------------------------------------------------

function resultText(g) {
  return g.result === "draw" ? "½–½" : g.result === "sente" ? "1–0" : "0–1";
}

function finishedRow(g) {
  return el("tr", { "data-game": g.id, onclick: () => openReplay(g.id) },
    el("td", {}, g.id), el("td", { class: "name" }, g.sente), el("td", { class: "name" }, g.gote),
    el("td", {}, resultText(g)), el("td", {}, g.reason.replace("_", " ")), el("td", {}, g.plies));
}

function addFinished(g) {
  if (state.finished.has(g.id)) return false;
  state.finished.set(g.id, g);
  $("finished").tBodies[0].prepend(finishedRow(g));
  $("finished-count").textContent = "(" + state.finished.size + ")";
  return true;
}

async function openReplay(id) {
  const g = state.finished.get(id);
  if (!g) return;
  const r = await fetch("/api/games/" + id + "/positions");
  if (!r.ok) return;
  const { sfens, kif, records } = await r.json();
  state.replay = { game: g, sfens, kif: kif || [], records: records || {}, ply: 0 };
  for (const tr of $("finished").tBodies[0].rows) tr.classList.toggle("selected", tr.dataset.game === String(id));
  $("replay-section").hidden = false;
  $("replay-title").textContent = "#" + g.id + " · " + g.sente + " – " + g.gote + " · " + resultText(g) +
    " by " + g.reason.replace("_", " ");
  $("replay-records").replaceChildren(...recordLinks(state.replay.records));
  $("kifu").replaceChildren(...kifuRows(state.replay));
  showReplay();
  $("replay-section").scrollIntoView({ block: "nearest" });
}

/** Links to the game's CSA and KIF records (those the run folder holds). */
function recordLinks(records) {
  const links = [];
  for (const [format, label] of [["csa", "CSA"], ["kif", "KIF"]]) {
    const file = records[format];
    if (!file) continue;
    links.push(el("a", { class: "record-link", "data-format": format, href: "/records/" + encodeURIComponent(file),
      download: file, title: file }, label));
  }
  return links;
}

/** A council's vote on one move, in a line: each member's move, the chosen ones marked. */
function kifuVote(v) {
  return el("div", { class: "kifu-vote", "data-council": v.council },
    el("span", { class: "dim" }, v.council + " (" + v.rule + "):"),
    v.members.map((m) => el("span", { class: "member" + (m.mv === v.chosen ? " chosen" : ""), title: m.error || "" },
      el("span", { class: "member-name" }, m.name),
      el("span", { class: "member-move" }, m.mv !== undefined ? m.mv : "✗"))));
}

/** The move list (棋譜): a row per move, the position it leads to on click; a council's move
 * with the council's vote under it. */
function kifuRows(r) {
  const g = r.game;
  const opening = g.moves.length - (g.scores ? g.scores.length : 0);
  const rows = [el("div", { class: "kifu-row", "data-ply": 0, onclick: () => jumpReplay(0) },
    el("span", { class: "num" }, ""), el("span", { class: "usi dim" }, "start"))];
  g.moves.forEach((mv, i) => {
    const side = parseSfen(r.sfens[i] || r.sfens[0]).side;
    const votes = (g.votes || []).filter((v) => v.ply === i);
    const cls = ["kifu-row"];
    if (i < opening) cls.push("opening");
    if (votes.length) cls.push("council");
    rows.push(el("div", { class: cls.join(" "), "data-ply": i + 1, onclick: () => jumpReplay(i + 1),
      title: i < opening ? "opening" : "" },
      el("span", { class: "num" }, i + 1),
      el("span", { class: "mark" }, side === "gote" ? "△" : "▲"),
      el("span", { class: "usi" }, mv),
      el("span", { class: "ja" }, r.kif[i] || ""),
      votes.map(kifuVote)));
  });
  return rows;
}

function jumpReplay(ply) {
  stepReplay(() => ply);
}

/** Mark the current move in the list and keep it in view (the list scrolls, not the page). */
function markKifu(ply) {
  const box = $("kifu");
  for (const row of box.children) {
    const current = row.dataset.ply === String(ply);
    row.classList.toggle("current", current);
    if (!current) continue;
    const top = row.offsetTop;
    if (top < box.scrollTop) box.scrollTop = top;
    else if (top + row.offsetHeight > box.scrollTop + box.clientHeight) box.scrollTop = top + row.offsetHeight - box.clientHeight;
  }
}

function showReplay() {
  const r = state.replay;
  if (!r) return;
  const ply = r.ply;
  markKifu(ply);
  const mv = ply > 0 ? r.game.moves[ply - 1] : null;
  $("replay-board-holder").replaceChildren(
    boardView(r.sfens[ply], mv, { id: "replay-board", "data-game": r.game.id, "data-ply": ply }));
  $("replay-ply").textContent = "move " + ply + " / " + (r.sfens.length - 1);
  const opening = r.game.moves.length - (r.game.scores ? r.game.scores.length : 0);
  const score = ply > opening && r.game.scores ? r.game.scores[ply - 1 - opening] : null;
  const info = [];
  if (mv) info.push("last move " + mv + (ply > opening ? " · score " + scoreText(score) : " · opening"));
  if (ply === r.sfens.length - 1 && r.game.detail) info.push(r.game.detail);
  $("replay-info").replaceChildren(...info.map((t) => el("p", {}, t)));
  const votes = (r.game.votes || []).filter((v) => v.ply === ply - 1);
  $("replay-votes").replaceChildren(votes.length ? votesView(votes, ply) : el("p", { class: "dim" }, ""));
}

function stepReplay(to) {
  const r = state.replay;
  if (!r) return;
  r.ply = Math.max(0, Math.min(r.sfens.length - 1, to(r.ply, r.sfens.length - 1)));
  showReplay();
}

document.addEventListener("keydown", (e) => {
  if (!state.replay || e.altKey || e.ctrlKey || e.metaKey) return;
  const step = { ArrowRight: (p) => p + 1, ArrowLeft: (p) => p - 1, Home: () => 0, End: (_, n) => n }[e.key];
  if (step) { e.preventDefault(); stepReplay(step); }
});

// ---- Events --------------------------------------------------------------------------------

function renderSummary() {
  renderStandings();
  renderFamilies();
  renderCharts();
  renderProgress();
}

async function loadGames() {
  const r = await fetch("/api/games");
  if (!r.ok) return;
  for (const g of await r.json()) addFinished(g);
  renderCharts();
  renderProgress();
  if (state.tune) renderTune();
}

function connect() {
  const events = new EventSource("/api/events");
  events.addEventListener("snapshot", (e) => {
    const s = JSON.parse(e.data);
    state.run = s.run || null;
    state.phase = s.phase;
    state.total = s.total;
    state.summary = s.summary;
    state.minGames = s.min_games;
    state.live = new Map(s.live.map((g) => [g.id, g]));
    state.tune = s.tune || null;
    renderRun();
    renderLive();
    renderSummary();
    renderTune();
    loadGames();
  });
  events.addEventListener("tune", (e) => {
    state.tune = JSON.parse(e.data);
    renderTune();
  });
  events.addEventListener("tune_iteration", (e) => {
    const l = JSON.parse(e.data);
    if (!state.tune || state.tune.lines.some((m) => m.k === l.k)) return;
    state.tune.lines.push(l);
    renderTune();
  });
  events.addEventListener("game_start", (e) => {
    const g = JSON.parse(e.data);
    if (state.finished.has(g.id)) return;
    state.live.set(g.id, g);
    renderGame(g);
  });
  events.addEventListener("move", (e) => {
    const m = JSON.parse(e.data);
    const g = state.live.get(m.id);
    if (!g) return;
    if (m.ply <= g.moves.length) return; // already in the snapshot
    const side = m.mover === "gote" ? 1 : 0;
    g.moves.push(m.move);
    g.sfen = m.sfen;
    g.clocks = m.clocks;
    g.scores[side] = m.score;
    g.pvs[side] = m.pv;
    if (m.votes && m.votes.length) { g.votes = m.votes; g.votes_ply = m.ply; }
    renderGame(g);
  });
  events.addEventListener("game_end", (e) => {
    const g = JSON.parse(e.data);
    state.live.delete(g.id);
    $("game-" + g.id)?.remove();
    renderLiveCount();
    if (addFinished(g)) { renderCharts(); renderProgress(); if (state.tune) renderTune(); }
  });
  events.addEventListener("summary", (e) => {
    state.summary = JSON.parse(e.data);
    renderSummary();
  });
  events.addEventListener("phase", (e) => {
    state.phase = JSON.parse(e.data);
    if (state.phase === "finished") { state.live.clear(); renderLive(); }
    renderProgress();
  });
}

for (const [id, step] of [["replay-first", () => 0], ["replay-prev", (p) => p - 1],
  ["replay-next", (p) => p + 1], ["replay-last", (_, n) => n]]) {
  $(id).addEventListener("click", () => stepReplay(step));
}
connect();
