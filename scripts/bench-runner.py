#!/usr/bin/env python3
"""The runner benchmark: what council-match itself costs per engine move, and how punctual it is.

Plays head-to-head games between two mock USI engines (`mock-usi sleep`: each answers after a
share of its allowance, sleeping, using no CPU, and reports its own time) at several
concurrency levels and time controls, plus a real-engine workload (council-engine against
Debian's Fairy-Stockfish at 20000 nodes a move, concurrency 2), and reports per level:

- runner CPU per engine move: the runner's own utime+stime (from /proc/PID/stat, read while
  the finished process is a zombie, so its engines' CPU is not in it), over the engine moves;
- peak resident memory: VmHWM of the runner (polled from /proc/PID/status);
- added latency per move: the arbiter's measured time minus the mock's own time (its score,
  microseconds), both rounded down to whole milliseconds as council's `times_ms` is: p50, p99,
  max in whole milliseconds (a 0 is under 1 ms), and their mean (the two roundings cancel on
  average, so the mean is good to about 0.1 ms);
- the arbiter's own overhead per move (council only: `costs.overhead_us` over the moves, µs);
- time losses; games and engine moves per minute; start-up to the first `usi` an engine got.

    ulimit -n 4096   # 256 concurrent games are 512 engines, 3 pipes each
    cargo build --release --bin council-match --bin mock-usi --bin council-engine
    python3 scripts/bench-runner.py          # into /dev/shm/bench-runner (tmpfs) by default

`--runner label=PATH` (repeatable) compares builds, interleaved run by run; `--repeat N` runs
each cell N times and reports medians. `--shogitest PATH` adds Shogitest (87flowers/shogitest,
built outside the repository) as one more runner on the same workloads, and `table.md` gains a
`ratio` line per workload (each council runner over Shogitest, from the same interleaved run).
`--smaps` keeps the runner's /proc/PID/smaps at its peak resident memory and breaks it down
(binary, libraries, heap, malloc arenas, thread stacks, other anonymous maps) into `smaps.md`.
Writes `table.md`, `runs.json` and `runner-cost.svg` to `--out`. Needs Linux (/proc) and, for
the real-engine workload, `/usr/games/fairy-stockfish`.
"""

import argparse
import collections
import hashlib
import json
import math
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TICKS = os.sysconf("SC_CLK_TCK")
FAIRY = "/usr/games/fairy-stockfish"
STARTPOS = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"

# Time controls of the mock workloads: council's [player] keys, and Shogitest's `tc=`.
TCS = {
    "byoyomi": {"council": {"byoyomi_ms": 200}, "shogitest": "0,0.2"},
    "increment": {"council": {"time_ms": 1000, "increment_ms": 20}, "shogitest": "1+0.02"},
}


def raise_fd_limit(want):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = want if hard == resource.RLIM_INFINITY else min(want, hard)
    if soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def toml_str(s):
    return json.dumps(str(s))


# ---------------------------------------------------------------------------------------------
# Openings: the real-engine workload plays the same start positions under both runners, as SFEN
# (Shogitest reads only SFEN lines; council reads both).

PIECE_ORDER = "RBGSNLP"


def sfen_after(line):
    """The SFEN of an openings line `startpos moves ...` (or the SFEN line itself)."""
    words = line.split()
    if words[0] != "startpos":
        return " ".join(words[1:] if words[0] == "sfen" else words)
    rows = []
    for row in STARTPOS.split()[0].split("/"):
        cells = []
        i = 0
        while i < len(row):
            c = row[i]
            if c.isdigit():
                cells += [""] * int(c)
            elif c == "+":
                cells.append(row[i : i + 2])
                i += 1
            else:
                cells.append(c)
            i += 1
        rows.append(cells)
    hands = {True: {}, False: {}}  # sente (uppercase) / gote
    sente = True
    moves = words[2:] if len(words) > 1 and words[1] == "moves" else []

    def at(sq):
        return 9 - int(sq[0]), ord(sq[1]) - ord("a")

    for mv in moves:
        if mv[1] == "*":
            col, row = at(mv[2:4])
            kind = mv[0].upper()
            hands[sente][kind] -= 1
            rows[row][col] = kind if sente else kind.lower()
        else:
            fc, fr = at(mv[0:2])
            tc, tr = at(mv[2:4])
            piece = rows[fr][fc]
            taken = rows[tr][tc]
            if taken:
                kind = taken[-1].upper()
                hands[sente][kind] = hands[sente].get(kind, 0) + 1
            rows[fr][fc] = ""
            rows[tr][tc] = "+" + piece if mv.endswith("+") else piece
        sente = not sente
    board = []
    for cells in rows:
        text, empty = "", 0
        for c in cells:
            if c:
                text += (str(empty) if empty else "") + c
                empty = 0
            else:
                empty += 1
        board.append(text + (str(empty) if empty else ""))
    hand = ""
    for side in (True, False):
        for kind in PIECE_ORDER:
            n = hands[side].get(kind, 0)
            if n:
                hand += (str(n) if n > 1 else "") + (kind if side else kind.lower())
    return f"{'/'.join(board)} {'b' if sente else 'w'} {hand or '-'} {len(moves) + 1}"


def sfen_openings(src, dst):
    try:
        lines = Path(src).read_text().splitlines()
    except OSError as e:
        sys.exit(f"bench-runner: --openings {src}: {e.strerror}")
    out = []
    for n, line in enumerate(lines, 1):
        line = line.strip()
        if line and not line.startswith("#"):
            try:
                out.append(sfen_after(line))
            except (IndexError, KeyError, ValueError):
                sys.exit(f"bench-runner: {src}:{n}: not `startpos moves ...` (USI moves) nor an SFEN")
    dst.write_text("".join(l + "\n" for l in out))
    return dst


# ---------------------------------------------------------------------------------------------
# Workloads, as each runner is told to play them.


def council_mock(mock, tc, games, max_plies, share, margin, stamp):
    limits = "\n".join(f"{k} = {v}" for k, v in TCS[tc]["council"].items())
    players = []
    for name in ("a", "b"):
        players.append(
            f"""[[player]]
name = "{name}"
kind = "usi"
command = {toml_str(mock)}
args = ["sleep", "--share", "{share}", "--usi-stamp", {toml_str(stamp)}]
mate_cp = 2000000000
{limits}
"""
        )
    return f"""[match]
format = "head-to-head"
players = ["a", "b"]
games = {games}
max_plies = {max_plies}
seed = 1
timeout_margin_ms = {margin}

""" + "\n".join(players)


def council_real(engine, games, openings):
    return f"""[match]
format = "head-to-head"
players = ["council-engine", "fairy-stockfish"]
games = {games}
max_plies = 320
seed = 5
openings = {toml_str(openings)}

[[player]]
name = "council-engine"
kind = "usi"
command = {toml_str(engine)}
nodes = 20000

[[player]]
name = "fairy-stockfish"
kind = "usi"
command = {toml_str(FAIRY)}
options = {{ Threads = 1, Hash = 16 }}
nodes = 20000
"""


def council_argv(path, w, lv, work):
    config = work / "bench.toml"
    if w["kind"] == "real":
        config.write_text(council_real(w["engine"], w["games"], w["openings"]))
    else:
        config.write_text(
            council_mock(w["mock"], w["tc"], w["games"], w["max_plies"], w["share"], w["margin"], work / "usi-stamps")
        )
    return [path, str(config), "--concurrency", str(lv), "--out", str(work / "out")]


def shogitest_argv(path, w, lv, work):
    """The same games under Shogitest: its `-games N` is N game pairs (colours swapped within a
    pair, one opening a pair, in file order), `-maxmoves` counts plies from the start position it
    is given, and each engine takes no arguments (the mock is started by an `exec` script)."""
    common = ["-games", str(w["games"] // 2), "-concurrency", str(lv), "-ratinginterval", "0", "-srand", "1"]
    common += ["-pgnout", f"file={work / 'games.pgn'}"]
    if w["kind"] == "real":
        engines = [
            "-engine", f"cmd={w['engine']}", "name=council-engine", "nodes=20000",
            "-engine", f"cmd={FAIRY}", "name=fairy-stockfish", "nodes=20000", "option.Threads=1", "option.Hash=16",
        ]  # fmt: skip
        return [path, *engines, "-maxmoves", "320", "-openings", f"file={w['openings']}", "order=sequential", *common]
    book = work / "startpos.epd"
    book.write_text(STARTPOS + "\n")
    engines = []
    for name in ("a", "b"):
        script = work / f"mock-{name}.sh"
        script.write_text(f"#!/bin/sh\nexec {w['mock']} sleep --share {w['share']} --usi-stamp {work / 'usi-stamps'}\n")
        script.chmod(0o755)
        engines += ["-engine", f"cmd={script}", f"name={name}"]
    each = ["-each", f"tc={TCS[w['tc']]['shogitest']}", f"timemargin={w['margin']}"]
    return [path, *engines, *each, "-maxmoves", str(w["max_plies"]), "-openings", f"file={book}", *common]


# ---------------------------------------------------------------------------------------------
# What a run played: per game its ending and per move (the arbiter's ms, the mock's own µs).


def council_games(work):
    out = work / "out"
    games = []
    if not (out / "results.jsonl").exists():
        return games
    for line in open(out / "results.jsonl"):
        g = json.loads(line)
        own = [s["cp"] if s and "cp" in s and s["cp"] >= 0 else None for s in g.get("scores", [])]
        games.append(
            {
                "reason": {"timeout": "timeout", "crash": "failure", "illegal_move": "failure", "malformed_move": "failure"}.get(
                    g["reason"], g["reason"]
                ),
                "moves": g.get("moves", []),
                "times_ms": list(g.get("times_ms", [])),
                "own_us": own + [None] * (len(g.get("times_ms", [])) - len(own)),
                "overhead_us": sum(c["overhead_us"] for c in g["costs"]),
                "cost_moves": sum(c["moves"] for c in g["costs"]),
            }
        )
    shutil.rmtree(out / "records", ignore_errors=True)
    return games


# A move of Shogitest's PGN: `MOVE {SCORE DEPTH[/SELDEPTH] [n=NODES] ... t=SECONDSs[, OUTCOME]}`;
# SCORE is the cp score over 100 with two decimals (`+1801.23` is 180123 µs from the mock).
# A move that came too late is written with `, Sente loses on time` (or Gote) and is left out
# here, as council leaves a lost move out of `times_ms`.
PGN_MOVE = re.compile(r"^\S+ \{(\S+) .*?t=([0-9.]+)s(, .*)?\}$")


def shogitest_games(work):
    games = []
    game = None
    pgn = work / "games.pgn"
    for line in (pgn.read_text() if pgn.exists() else "").splitlines():
        if line.startswith("[Event "):
            game = {"reason": None, "moves": [], "times_ms": [], "own_us": [], "overhead_us": 0, "cost_moves": 0}
            games.append(game)
        elif line.startswith("[Termination "):
            term = json.loads(line.split(" ", 1)[1][:-1])
            game["reason"] = {"time forfeit": "timeout", "illegal move": "failure", "abandoned": "failure"}.get(term, term)
        elif m := PGN_MOVE.match(line):
            score, t, outcome = m.groups()
            if outcome and "loses on time" in outcome:
                continue
            game["moves"].append(line.split(" ", 1)[0])
            # Whole ms, as council's times_ms (Duration::as_millis rounds down).
            game["times_ms"].append(int(float(t) * 1000))
            own = round(float(score) * 100) if re.fullmatch(r"[+-][0-9.]+", score) else None
            game["own_us"].append(own if own is not None and own >= 0 else None)
    return games


RUNNERS = {
    "council": (council_argv, council_games),
    "shogitest": (shogitest_argv, shogitest_games),
}

# ---------------------------------------------------------------------------------------------
# Measuring one run of any runner.


def proc_cpu(pid):
    """utime + stime of process `pid` itself (all its threads, not its children), seconds."""
    text = Path(f"/proc/{pid}/stat").read_text()
    fields = text.rsplit(")", 1)[1].split()
    # fields[0] is the state (field 3): utime and stime are fields 14 and 15.
    return (int(fields[11]) + int(fields[12])) / TICKS


def status_kb(pid, keys=("VmHWM", "VmRSS", "Threads")):
    out = {}
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            k, _, v = line.partition(":")
            if k in keys:
                out[k] = int(v.split()[0])
    except (OSError, ValueError):
        pass
    return out


def smaps_breakdown(text, binary):
    """Resident and private-dirty kB of a process's maps by what they hold: the runner's binary
    (text, read-only data, writable data), shared libraries, the brk heap, malloc's per-thread
    arenas (an rw part followed by its PROT_NONE reserve, 64 MB in all), thread stacks (an rw
    map right above a PROT_NONE guard of at most 64 KB; Rust's per-thread signal stacks look the
    same), and the other anonymous maps (large allocations). `binary` is the process's
    executable (/proc/PID/exe), so a runner started through an `exec` script is still seen."""
    maps = []
    cur = None
    for line in text.splitlines():
        head = line.split()
        if re.match(r"^[0-9a-f]+-[0-9a-f]+ ", line):
            lo, hi = (int(x, 16) for x in head[0].split("-"))
            cur = {"lo": lo, "hi": hi, "perms": head[1], "path": head[5] if len(head) > 5 else "", "kb": {}}
            maps.append(cur)
        elif cur is not None and len(head) >= 2 and head[0].endswith(":") and head[1].isdigit():
            cur["kb"][head[0][:-1]] = int(head[1])
    cats = {}
    for i, m in enumerate(maps):
        path, perms = m["path"], m["perms"]
        prev = maps[i - 1] if i else None
        nxt = maps[i + 1] if i + 1 < len(maps) else None
        if path and os.path.realpath(path) == os.path.realpath(binary):
            cat = {"r-xp": "binary text"}.get(perms, "binary data (rodata, relro, data, bss)")
        elif path == "[heap]":
            cat = "heap (brk: main arena)"
        elif path == "[stack]":
            cat = "main thread stack"
        elif path.startswith("["):
            cat = "kernel maps (vdso, vvar)"
        elif path:
            cat = "shared libraries (libc, libm, libgcc_s, ld.so)" if ".so" in path else f"file {path}"
        elif perms == "---p":
            cat = "reserved (PROT_NONE guards and arena reserves)"
        elif (
            nxt is not None
            and not nxt["path"]
            and nxt["perms"] == "---p"
            and nxt["lo"] == m["hi"]
            and (nxt["hi"] - m["lo"]) == 64 << 20
        ):
            cat = "malloc arenas (per-thread)"
        elif (
            prev is not None
            and not prev["path"]
            and prev["perms"] == "---p"
            and prev["hi"] == m["lo"]
            and prev["hi"] - prev["lo"] <= 64 << 10
        ):
            cat = "thread stacks (with Rust's signal stacks)"
        else:
            cat = "other anonymous maps"
        c = cats.setdefault(cat, {"maps": 0, "size_kb": 0, "rss_kb": 0, "private_dirty_kb": 0})
        c["maps"] += 1
        c["size_kb"] += (m["hi"] - m["lo"]) // 1024
        c["rss_kb"] += m["kb"].get("Rss", 0)
        c["private_dirty_kb"] += m["kb"].get("Private_Dirty", 0)
    return cats


def measure(argv, work, smaps=False, limit_s=0):
    """Runs `argv`, polling its resident memory; its CPU and peak RSS, and with `smaps` the
    breakdown of its maps at the moment its resident memory was highest. A run still going after
    `limit_s` seconds (0: no limit) gets SIGTERM, and SIGKILL 10 s later (a runner can hang:
    Shogitest does when one of its game threads has panicked)."""
    began = time.time_ns()
    t0 = time.monotonic()
    proc = subprocess.Popen(
        argv, stdout=open(work / "stdout.txt", "w"), stderr=open(work / "stderr.txt", "w"), stdin=subprocess.DEVNULL
    )
    hwm = 0
    best_rss = 0
    snap = None
    killed = None
    while True:
        st = os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        if st is not None:
            break
        if limit_s and killed != "SIGKILL" and time.monotonic() - t0 > limit_s + (10 if killed else 0):
            killed = "SIGKILL" if killed else "SIGTERM"
            proc.send_signal(9 if killed == "SIGKILL" else 15)
        s = status_kb(proc.pid)
        hwm = max(hwm, s.get("VmHWM", 0))
        if smaps and s.get("VmRSS", 0) > best_rss:
            try:
                exe = os.readlink(f"/proc/{proc.pid}/exe")
                text = Path(f"/proc/{proc.pid}/smaps").read_text()
                rollup = Path(f"/proc/{proc.pid}/smaps_rollup").read_text()
                best_rss = s["VmRSS"]
                snap = {"rss_kb": best_rss, "threads": s.get("Threads"), "exe": exe, "smaps": text, "rollup": rollup}
            except OSError:
                pass
        time.sleep(0.05)
    wall = time.monotonic() - t0
    cpu = proc_cpu(proc.pid)  # a zombie still has its own times, not yet its reaper's
    rc = proc.wait()
    stamps = []
    stamp_file = work / "usi-stamps"
    if stamp_file.exists():
        stamps = [int(l) for l in stamp_file.read_text().split()]
    r = {
        "rc": rc,
        "killed": f"{killed} after {limit_s} s" if killed else None,
        "cpu_s": cpu,
        "rss_mb": hwm / 1024,
        "wall_s": wall,
        "first_usi_ms": (min(stamps) - began) / 1e6 if stamps else None,
    }
    if snap:
        (work / "smaps.txt").write_text(snap["smaps"])
        (work / "smaps_rollup.txt").write_text(snap["rollup"])
        r["smaps"] = {
            "rss_kb": snap["rss_kb"],
            "threads": snap["threads"],
            "rollup": {
                k: int(v.split()[0])
                for k, _, v in (l.partition(":") for l in snap["rollup"].splitlines()[1:])
                if v.strip().endswith("kB")
            },
            "by_kind": smaps_breakdown(snap["smaps"], snap["exe"]),
        }
    return r


def run_once(kind, path, w, lv, work, smaps=False, limit_s=0):
    """One run of a runner on workload `w` at concurrency `lv`; its measurements. Each run's
    folder is kept (its results say why a game was lost); council's records are not."""
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    argv_of, games_of = RUNNERS[kind]
    argv = argv_of(path, w, lv, work)
    (work / "command.txt").write_text(" ".join(argv) + "\n")
    r = measure(argv, work, smaps, limit_s)
    games = games_of(work)
    moves = sum(len(g["times_ms"]) for g in games)
    added = []
    if w["kind"] == "mock":
        for g in games:
            for t, own in zip(g["times_ms"], g["own_us"]):
                if own is not None:
                    added.append(t - own // 1000)
    cost_moves = sum(g["cost_moves"] for g in games)
    r.update(
        {
            "games": len(games),
            "moves": moves,
            "cpu_ms_per_move": 1000 * r["cpu_s"] / max(moves, 1),
            "games_per_min": 60 * len(games) / r["wall_s"],
            "moves_per_min": 60 * moves / r["wall_s"],
            "time_losses": sum(1 for g in games if g["reason"] == "timeout"),
            "failures": sum(1 for g in games if g["reason"] == "failure"),
            "added_ms": percentiles(added),
            "overhead_us_per_move": sum(g["overhead_us"] for g in games) / cost_moves if cost_moves else None,
            # Each game's moves, hashed: the ratio line says how many games both runners played alike.
            "game_hashes": sorted(hashlib.sha1(" ".join(g["moves"]).encode()).hexdigest()[:12] for g in games),
        }
    )
    return r


def percentiles(xs):
    if not xs:
        return None
    xs = sorted(xs)

    def q(p):
        return xs[min(len(xs) - 1, int(p * len(xs)))]

    return {"p50": q(0.50), "p99": q(0.99), "max": xs[-1], "mean": statistics.fmean(xs), "n": len(xs)}


def median_of(runs, key):
    vals = [r[key] for r in runs if r.get(key) is not None]
    return statistics.median(vals) if vals else None


def summarize(runs):
    s = {
        k: median_of(runs, k)
        for k in (
            "cpu_ms_per_move",
            "rss_mb",
            "games_per_min",
            "moves_per_min",
            "overhead_us_per_move",
            "first_usi_ms",
        )
    }
    for k in ("time_losses", "failures", "games", "moves"):
        s[k] = sum(r[k] for r in runs)
    s["runs"] = len(runs)
    s["game_hashes"] = collections.Counter(h for r in runs for h in r["game_hashes"])
    adds = [r["added_ms"] for r in runs if r["added_ms"]]
    if adds:
        s["added_ms"] = {k: statistics.median(a[k] for a in adds) for k in ("p50", "p99", "mean")}
        s["added_ms"]["max"] = max(a["max"] for a in adds)
    return s


# ---------------------------------------------------------------------------------------------
# Reports.


def fmt(x, spec):
    return "n/a" if x is None else format(x, spec)


def ratio(a, b, spec=".2f"):
    if a is None or b is None or b == 0:
        return "—"
    return format(a / b, spec) + "×"


WORKLOAD_NAMES = {
    "byoyomi": "mock, byoyomi 200 ms",
    "increment": "mock, 1 s + 20 ms",
    "real": "council-engine vs Fairy-Stockfish, 20000 nodes",
}


def table(cells, shogitest_label):
    lines = [
        "| runner | workload | concurrency | games | engine moves | CPU ms/move | overhead µs/move | peak RSS MB | added ms p50 / p99 / max / mean | time losses | games/min | moves/min | first `usi` ms |",
        "|---|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|",
    ]
    groups = {}
    for c in cells:
        groups.setdefault((c["workload"], c["concurrency"]), []).append(c)
    for (workload, lv), cs in groups.items():
        for c in cs:
            s = c["summary"]
            a = s.get("added_ms")
            added = f"{a['p50']:.0f} / {a['p99']:.0f} / {a['max']:.0f} / {a['mean']:.2f}" if a else "—"
            lines.append(
                f"| {c['runner']} | {WORKLOAD_NAMES.get(workload, workload)} | {lv} | {s['games']} | {s['moves']} "
                f"| {fmt(s['cpu_ms_per_move'], '.3f')} | {fmt(s['overhead_us_per_move'], '.0f')} "
                f"| {fmt(s['rss_mb'], '.1f')} | {added} | {s['time_losses']} "
                f"| {fmt(s['games_per_min'], '.0f')} | {fmt(s['moves_per_min'], '.0f')} | {fmt(s['first_usi_ms'], '.1f')} |"
            )
        base = next((c["summary"] for c in cs if c["runner"] == shogitest_label), None)
        if base is None:
            continue
        for c in cs:
            if c["runner"] == shogitest_label:
                continue
            s = c["summary"]
            a, b = s.get("added_ms") or {}, base.get("added_ms") or {}
            added = " / ".join(ratio(a.get(k), b.get(k)) for k in ("p50", "p99", "max", "mean")) if a and b else "—"
            alike = sum((s["game_hashes"] & base["game_hashes"]).values())
            lines.append(
                f"| **ratio** {c['runner']} / {shogitest_label} | | | {alike} of {s['games']} games alike | "
                f"| {ratio(s['cpu_ms_per_move'], base['cpu_ms_per_move'])} | "
                f"| {ratio(s['rss_mb'], base['rss_mb'])} | {added} | {s['time_losses']} : {base['time_losses']} "
                f"| {ratio(s['games_per_min'], base['games_per_min'])} | {ratio(s['moves_per_min'], base['moves_per_min'])} "
                f"| {ratio(s['first_usi_ms'], base['first_usi_ms'])} |"
            )
    return "\n".join(lines) + "\n"


def exit_notes(cells):
    """One line per run that was stopped or did not exit with status 0."""
    out = []
    for c in cells:
        for i, r in enumerate(c["runs"], 1):
            if r["rc"] != 0 or r.get("killed"):
                why = r.get("killed") or f"exit status {r['rc']}"
                out.append(f"- {c['runner']}, {WORKLOAD_NAMES.get(c['workload'], c['workload'])}, concurrency "
                           f"{c['concurrency']}, run {i}: {why} (its results so far are counted)")
    return "\n".join(out) + ("\n" if out else "")


def per_game_memory(cells):
    """Resident memory per extra concurrent mock game, per runner and time control:
    (RSS at the highest level − RSS at the lowest level above 1) / the difference in games."""
    out = []
    groups = {}
    for c in cells:
        if c["workload"] != "real" and c["concurrency"] > 1 and c["summary"]["rss_mb"] is not None:
            groups.setdefault((c["runner"], c["workload"]), []).append(c)
    for (runner, workload), cs in groups.items():
        if len(cs) < 2:
            continue
        lo = min(cs, key=lambda c: c["concurrency"])
        hi = max(cs, key=lambda c: c["concurrency"])
        kb = 1024 * (hi["summary"]["rss_mb"] - lo["summary"]["rss_mb"]) / (hi["concurrency"] - lo["concurrency"])
        out.append(f"- {runner}, {WORKLOAD_NAMES.get(workload, workload)}: {kb:.0f} KB per concurrent game "
                   f"(peak RSS {lo['summary']['rss_mb']:.1f} MB at {lo['concurrency']}, {hi['summary']['rss_mb']:.1f} MB at {hi['concurrency']})")
    return "\n".join(out) + ("\n" if out else "")


def smaps_table(cells):
    lines = []
    for c in cells:
        runs = [r for r in c["runs"] if r.get("smaps")]
        if not runs:
            continue
        r = runs[0]
        sm = r["smaps"]
        roll = sm["rollup"]
        lines.append(
            f"\n### {c['runner']}, {WORKLOAD_NAMES.get(c['workload'], c['workload'])}, concurrency {c['concurrency']} "
            f"(first run; at its highest RSS, {sm['rss_kb'] / 1024:.1f} MB, {sm['threads']} threads)\n"
        )
        lines.append(
            f"smaps_rollup: Rss {roll.get('Rss', 0)} kB = Anonymous {roll.get('Anonymous', 0)} kB + file-backed "
            f"{roll.get('Rss', 0) - roll.get('Anonymous', 0)} kB; Pss {roll.get('Pss', 0)} kB; Private_Dirty {roll.get('Private_Dirty', 0)} kB\n"
        )
        lines.append("| maps of | count | mapped MB | resident kB | private dirty kB |")
        lines.append("|---|---:|---:|---:|---:|")
        for kind, v in sorted(sm["by_kind"].items(), key=lambda kv: -kv[1]["rss_kb"]):
            lines.append(f"| {kind} | {v['maps']} | {v['size_kb'] / 1024:.1f} | {v['rss_kb']} | {v['private_dirty_kb']} |")
    return "\n".join(lines) + "\n"


def svg(cells, path):
    """Two panels against concurrency (log scale): runner CPU per move, and p99 added latency."""
    mock = [c for c in cells if c["workload"] != "real"]
    series = {}
    for c in mock:
        series.setdefault(f"{c['runner']} {c['workload']}", []).append(c)
    levels = sorted({c["concurrency"] for c in mock}) or [1]
    W, H, pad = 900, 360, 60
    panel_w = (W - 3 * pad) / 2
    colors = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b"]

    def x_of(conc, x0):
        lo, hi = math.log(levels[0]), math.log(levels[-1])
        f = 0.5 if hi == lo else (math.log(conc) - lo) / (hi - lo)
        return x0 + f * panel_w

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">']
    out.append(f'<rect width="{W}" height="{H}" fill="white"/>')
    panels = [
        ("runner CPU per engine move (ms)", lambda s: s["cpu_ms_per_move"]),
        ("added latency per move, p99 (ms)", lambda s: (s.get("added_ms") or {}).get("p99")),
    ]
    for pi, (title, get) in enumerate(panels):
        x0 = pad + pi * (panel_w + pad)
        y0, y1 = H - pad, pad
        vals = [get(c["summary"]) for c in mock if get(c["summary"]) is not None]
        top = max(vals + [1e-9]) * 1.15
        out.append(f'<text x="{x0 + panel_w / 2}" y="{pad - 20}" text-anchor="middle" font-weight="bold">{title}</text>')
        out.append(f'<line x1="{x0}" y1="{y0}" x2="{x0 + panel_w}" y2="{y0}" stroke="black"/>')
        out.append(f'<line x1="{x0}" y1="{y0}" x2="{x0}" y2="{y1}" stroke="black"/>')
        for lv in levels:
            x = x_of(lv, x0)
            out.append(f'<text x="{x}" y="{y0 + 16}" text-anchor="middle">{lv}</text>')
        out.append(f'<text x="{x0 + panel_w / 2}" y="{y0 + 34}" text-anchor="middle">concurrent games</text>')
        for k in range(5):
            v = top * k / 4
            y = y0 - (y0 - y1) * k / 4
            out.append(f'<text x="{x0 - 6}" y="{y + 4}" text-anchor="end">{v:.2g}</text>')
            out.append(f'<line x1="{x0}" y1="{y}" x2="{x0 + panel_w}" y2="{y}" stroke="#ddd"/>')
        for si, (name, cs) in enumerate(sorted(series.items())):
            pts = [(x_of(c["concurrency"], x0), y0 - (y0 - y1) * get(c["summary"]) / top) for c in sorted(cs, key=lambda c: c["concurrency"]) if get(c["summary"]) is not None]
            col = colors[si % len(colors)]
            out.append('<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>' % (col, " ".join(f"{x:.1f},{y:.1f}" for x, y in pts)))
            for x, y in pts:
                out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{col}"/>')
            if pi == 0:
                out.append(f'<text x="{x0 + 10}" y="{y1 + 14 * (si + 1)}" fill="{col}">{name}</text>')
    out.append("</svg>")
    path.write_text("\n".join(out) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    # On tmpfs by default: council-match creates two record files a game, and on a disk
    # filesystem their cost grows with the files the previous runs' folders deleted
    # (docs/studies/runner-cost.md), which would compare filesystem states, not runners.
    shm = Path("/dev/shm")
    ap.add_argument("--out", type=Path, default=(shm if shm.is_dir() else Path("/tmp")) / "bench-runner")
    ap.add_argument("--runner", action="append", help="LABEL=PATH of a council-match build (repeatable)")
    ap.add_argument("--shogitest", help="PATH of a Shogitest build: one more runner on the same workloads")
    ap.add_argument("--mock", default=str(ROOT / "target/release/mock-usi"))
    ap.add_argument("--engine", default=str(ROOT / "target/release/council-engine"))
    ap.add_argument("--levels", default="1,2,16,64,256", help="mock concurrency levels (1024 works with an open-files hard limit of 16384 or more)")
    ap.add_argument("--tc", default="byoyomi,increment", help="byoyomi (200 ms), increment (1 s + 20 ms)")
    ap.add_argument("--games-per-slot", type=int, default=10, help="games per concurrent game slot")
    ap.add_argument("--max-plies", type=int, default=16)
    ap.add_argument("--share", type=float, default=0.9, help="share of its allowance a mock spends")
    ap.add_argument("--margin", type=int, default=0, help="timeout_margin_ms (Shogitest: timemargin)")
    ap.add_argument("--real-games", type=int, default=12, help="games of the real-engine workload (0: none)")
    ap.add_argument("--openings", default=str(ROOT / "data/openings/gps-ply36.txt"), help="the real-engine workload's start positions")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--run-limit", type=int, default=1800, help="seconds before a run is stopped (0: none)")
    ap.add_argument("--smaps", action="store_true", help="break down each runner's maps at its peak RSS (smaps.md)")
    a = ap.parse_args()
    runners = []
    for r in a.runner or [f"council-match={ROOT / 'target/release/council-match'}"]:
        label, eq, path = r.partition("=")
        if not (label and eq and path) or label == "shogitest":
            sys.exit(f"bench-runner: --runner {r}: give LABEL=PATH, LABEL not `shogitest`")
        runners.append((label, path, "council"))
    if a.shogitest:
        runners.append(("shogitest", a.shogitest, "shogitest"))
    for label, path, _ in runners:
        if not os.access(path, os.X_OK):
            sys.exit(f"bench-runner: runner {label}: {path} is not an executable file")
    try:
        levels = [int(x) for x in a.levels.split(",") if x]
        assert levels and min(levels) >= 1
    except (ValueError, AssertionError):
        sys.exit(f"bench-runner: --levels {a.levels}: give concurrency levels ≥ 1, comma-separated")
    # Per game: 2 engines with 3 pipes each (council keeps both ends a moment while spawning).
    want = max(8192, 16 * max(levels, default=1) + 256)
    nofile = raise_fd_limit(want)
    if nofile < 8 * max(levels, default=1) + 256:
        sys.exit(
            f"bench-runner: --levels {max(levels)} needs about {8 * max(levels) + 256} open files; the hard limit allows "
            f"{nofile} (raise it: ulimit -Hn {want}, as root or in /etc/security/limits.conf)"
        )
    tcs = [t for t in a.tc.split(",") if t]
    if any(t not in TCS for t in tcs):
        sys.exit(f"bench-runner: --tc {a.tc}: the time controls are {', '.join(TCS)}")
    if a.shogitest and (a.real_games % 2 or any(max(2, a.games_per_slot * lv) % 2 for lv in levels)):
        sys.exit("bench-runner: Shogitest plays game pairs: --real-games and --games-per-slot × each level must be even")
    a.out.mkdir(parents=True, exist_ok=True)
    plan = [(tc, lv) for tc in tcs for lv in levels]
    if a.real_games > 0:
        plan.append(("real", 2))
        openings = sfen_openings(a.openings, a.out / "openings.sfen")
    cells = {}
    for rep in range(a.repeat):
        for workload, lv in plan:
            for label, path, kind in runners:
                work = a.out / "work" / f"{label}-{workload}-{lv}-{rep + 1}"
                if workload == "real":
                    w = {"kind": "real", "engine": a.engine, "games": a.real_games, "openings": openings}
                else:
                    w = {
                        "kind": "mock",
                        "tc": workload,
                        "mock": a.mock,
                        "games": max(2, a.games_per_slot * lv),
                        "max_plies": a.max_plies,
                        "share": a.share,
                        "margin": a.margin,
                    }
                r = run_once(kind, path, w, lv, work, a.smaps, a.run_limit)
                cells.setdefault((label, workload, lv), []).append(r)
                a_ = r["added_ms"] or {}
                print(
                    f"[{rep + 1}/{a.repeat}] {label:>12} {workload:>9} c={lv:<4} games={r['games']} moves={r['moves']} "
                    f"cpu={r['cpu_ms_per_move']:.3f} ms/move rss={r['rss_mb']:.1f} MB "
                    f"added p50/p99/max={a_.get('p50')}/{a_.get('p99')}/{a_.get('max')} ms "
                    f"losses={r['time_losses']} g/min={r['games_per_min']:.0f} first-usi={fmt(r['first_usi_ms'], '.1f')} ms "
                    f"rc={r['rc']} load={os.getloadavg()[0]:.2f}",
                    flush=True,
                )
    result = [
        {"runner": k[0], "workload": k[1], "concurrency": k[2], "runs": v, "summary": summarize(v)}
        for k, v in cells.items()
    ]
    order = {label: i for i, (label, _, _) in enumerate(runners)}
    wl = {"byoyomi": 0, "increment": 1, "real": 2}
    result.sort(key=lambda c: (wl.get(c["workload"], 9), c["concurrency"], order[c["runner"]]))
    (a.out / "runs.json").write_text(json.dumps(result, indent=1))
    md = table(result, "shogitest") + "\n" + per_game_memory(result) + exit_notes(result)
    (a.out / "table.md").write_text(md)
    if a.smaps:
        (a.out / "smaps.md").write_text(smaps_table(result))
    svg(result, a.out / "runner-cost.svg")
    print(md)
    print(f"open files limit {nofile}; {os.cpu_count()} CPUs; load {os.getloadavg()}; written to {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
