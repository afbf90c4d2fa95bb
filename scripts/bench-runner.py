#!/usr/bin/env python3
"""The runner benchmark: what council-match itself costs per engine move, and how punctual it is.

Plays head-to-head games between two mock USI engines (`mock-usi sleep`: each answers after a
share of its allowance, sleeping, using no CPU, and reports its own time) at several
concurrency levels and time controls, plus a real-engine workload (council-engine against
Debian's Fairy-Stockfish at 20000 nodes a move, concurrency 2), and reports per level:

- runner CPU per engine move: council-match's own utime+stime (from /proc/PID/stat, read while
  the finished process is a zombie, so its engines' CPU is not in it), over the engine moves;
- peak resident memory: VmHWM of council-match (polled from /proc/PID/status);
- added latency per move: the arbiter's measured time (`times_ms`) minus the mock's own time
  (its score, microseconds, rounded down to whole ms as `times_ms` is): p50, p99, max, in whole
  milliseconds (a 0 is under 1 ms);
- the arbiter's own overhead per move (results' `costs.overhead_us` over the moves, microseconds);
- time losses; games per minute; start-up to the first `usi` an engine received.

    ulimit -n 4096   # 256 concurrent games are 512 engines, 3 pipes each
    cargo build --release --bin council-match --bin mock-usi --bin council-engine
    python3 scripts/bench-runner.py --out /tmp/bench-runner

`--runner label=PATH` (repeatable) compares builds, interleaved run by run; `--repeat N` runs
each cell N times and reports medians. Writes `table.md`, `runs.json` and `runner-cost.svg` to
`--out`. Needs Linux (/proc) and, for the real-engine workload, `/usr/games/fairy-stockfish`.
"""

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TICKS = os.sysconf("SC_CLK_TCK")

TCS = {
    "byoyomi": {"byoyomi_ms": 200},
    "increment": {"time_ms": 1000, "increment_ms": 20},
}


def raise_fd_limit(want=8192):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = want if hard == resource.RLIM_INFINITY else min(want, hard)
    if soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def toml_str(s):
    return json.dumps(str(s))


def mock_config(mock, tc, games, max_plies, share, margin, stamp):
    limits = "\n".join(f"{k} = {v}" for k, v in TCS[tc].items())
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


def real_config(engine, games):
    return f"""[match]
format = "head-to-head"
players = ["council-engine", "fairy-stockfish"]
games = {games}
max_plies = 320
seed = 5
openings = {toml_str(ROOT / "data/openings/gps-ply36.txt")}

[[player]]
name = "council-engine"
kind = "usi"
command = {toml_str(engine)}
nodes = 20000

[[player]]
name = "fairy-stockfish"
kind = "usi"
command = "/usr/games/fairy-stockfish"
options = {{ Threads = 1, Hash = 16 }}
nodes = 20000
"""


def proc_cpu(pid):
    """utime + stime of process `pid` itself (not its children), seconds."""
    text = Path(f"/proc/{pid}/stat").read_text()
    fields = text.rsplit(")", 1)[1].split()
    # fields[0] is the state (field 3): utime and stime are fields 14 and 15.
    return (int(fields[11]) + int(fields[12])) / TICKS


def vm_hwm_kb(pid):
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return None


def run_once(runner, config_text, concurrency, work, mock=True):
    """One council-match run; its measurements."""
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    # Each run's folder is kept (its results.jsonl says why a game was lost); the records are not.

    config = work / "bench.toml"
    config.write_text(config_text)
    out = work / "out"
    began = time.time_ns()
    t0 = time.monotonic()
    proc = subprocess.Popen(
        [runner, str(config), "--concurrency", str(concurrency), "--out", str(out)],
        stdout=subprocess.DEVNULL,
        stderr=open(work / "stderr.txt", "w"),
    )
    hwm = 0
    while True:
        st = os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        if st is not None:
            break
        h = vm_hwm_kb(proc.pid)
        if h:
            hwm = max(hwm, h)
        time.sleep(0.05)
    wall = time.monotonic() - t0
    cpu = proc_cpu(proc.pid)  # a zombie still has its own times, not yet its reaper's
    rc = proc.wait()
    games = [json.loads(l) for l in open(out / "results.jsonl")]
    shutil.rmtree(out / "records", ignore_errors=True)
    stamps = []
    stamp_file = work / "usi-stamps"
    if stamp_file.exists():
        stamps = [int(l) for l in stamp_file.read_text().split()]
    moves = sum(len(g.get("times_ms", [])) for g in games)
    added = []
    for g in games if mock else []:
        for t, s in zip(g.get("times_ms", []), g.get("scores", [])):
            if s and "cp" in s and s["cp"] >= 0:
                added.append(t - s["cp"] // 1000)
    overhead_us = sum(c["overhead_us"] for g in games for c in g["costs"])
    cost_moves = sum(c["moves"] for g in games for c in g["costs"])
    return {
        "rc": rc,
        "games": len(games),
        "moves": moves,
        "cpu_s": cpu,
        "cpu_ms_per_move": 1000 * cpu / max(moves, 1),
        "rss_mb": hwm / 1024,
        "wall_s": wall,
        "games_per_min": 60 * len(games) / wall,
        "moves_per_min": 60 * moves / wall,
        "time_losses": sum(1 for g in games if g["reason"] == "timeout"),
        "failures": sum(1 for g in games if g["reason"] in ("crash", "illegal_move", "malformed")),
        "added_ms": percentiles(added),
        "overhead_us_per_move": overhead_us / max(cost_moves, 1),
        "first_usi_ms": (min(stamps) - began) / 1e6 if stamps else None,
    }


def percentiles(xs):
    if not xs:
        return None
    xs = sorted(xs)

    def q(p):
        return xs[min(len(xs) - 1, int(p * len(xs)))]

    return {"p50": q(0.50), "p99": q(0.99), "max": xs[-1], "n": len(xs)}


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
    s["time_losses"] = sum(r["time_losses"] for r in runs)
    s["failures"] = sum(r["failures"] for r in runs)
    s["games"] = sum(r["games"] for r in runs)
    s["moves"] = sum(r["moves"] for r in runs)
    s["runs"] = len(runs)
    adds = [r["added_ms"] for r in runs if r["added_ms"]]
    if adds:
        s["added_ms"] = {k: statistics.median(a[k] for a in adds) for k in ("p50", "p99")}
        s["added_ms"]["max"] = max(a["max"] for a in adds)
    return s


def fmt(x, spec):
    return "n/a" if x is None else format(x, spec)


def table(cells):
    lines = [
        "| runner | workload | concurrency | games | engine moves | CPU ms/move | overhead µs/move | peak RSS MB | added ms p50 / p99 / max | time losses | games/min | first `usi` ms |",
        "|---|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|",
    ]
    for c in cells:
        s = c["summary"]
        a = s.get("added_ms")
        added = f"{a['p50']:.0f} / {a['p99']:.0f} / {a['max']:.0f}" if a else "—"
        lines.append(
            f"| {c['runner']} | {c['workload']} | {c['concurrency']} | {s['games']} | {s['moves']} "
            f"| {fmt(s['cpu_ms_per_move'], '.3f')} | {fmt(s['overhead_us_per_move'], '.0f')} "
            f"| {fmt(s['rss_mb'], '.1f')} | {added} | {s['time_losses']} "
            f"| {fmt(s['games_per_min'], '.0f')} | {fmt(s['first_usi_ms'], '.0f')} |"
        )
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
    import math

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
    ap.add_argument("--out", type=Path, default=Path("/tmp/bench-runner"))
    ap.add_argument("--runner", action="append", help="LABEL=PATH of a council-match build (repeatable)")
    ap.add_argument("--mock", default=str(ROOT / "target/release/mock-usi"))
    ap.add_argument("--engine", default=str(ROOT / "target/release/council-engine"))
    ap.add_argument("--levels", default="1,2,16,64,256")
    ap.add_argument("--tc", default="byoyomi,increment", help="byoyomi (200 ms), increment (1 s + 20 ms)")
    ap.add_argument("--games-per-slot", type=int, default=10, help="games per concurrent game slot")
    ap.add_argument("--max-plies", type=int, default=16)
    ap.add_argument("--share", type=float, default=0.9, help="share of its allowance a mock spends")
    ap.add_argument("--margin", type=int, default=0, help="timeout_margin_ms")
    ap.add_argument("--real-games", type=int, default=12, help="games of the real-engine workload (0: none)")
    ap.add_argument("--repeat", type=int, default=1)
    a = ap.parse_args()
    nofile = raise_fd_limit()
    runners = [r.split("=", 1) for r in (a.runner or [f"council-match={ROOT / 'target/release/council-match'}"])]
    levels = [int(x) for x in a.levels.split(",") if x]
    tcs = [t for t in a.tc.split(",") if t]
    cells = {}
    plan = []
    for tc in tcs:
        for lv in levels:
            plan.append((tc, lv))
    if a.real_games > 0:
        plan.append(("real", 2))
    a.out.mkdir(parents=True, exist_ok=True)
    for rep in range(a.repeat):
        for workload, lv in plan:
            for label, path in runners:
                work = a.out / "work" / f"{label}-{workload}-{lv}-{rep + 1}"
                if workload == "real":
                    text = real_config(a.engine, a.real_games)
                else:
                    games = max(2, a.games_per_slot * lv)
                    text = mock_config(a.mock, workload, games, a.max_plies, a.share, a.margin, work / "usi-stamps")
                r = run_once(path, text, lv, work, mock=workload != "real")
                key = (label, workload, lv)
                cells.setdefault(key, []).append(r)
                a_ = r["added_ms"] or {}
                print(
                    f"[{rep + 1}/{a.repeat}] {label:>12} {workload:>9} c={lv:<3} games={r['games']} moves={r['moves']} "
                    f"cpu={r['cpu_ms_per_move']:.3f} ms/move rss={r['rss_mb']:.1f} MB "
                    f"added p50/p99/max={a_.get('p50')}/{a_.get('p99')}/{a_.get('max')} ms "
                    f"losses={r['time_losses']} g/min={r['games_per_min']:.0f} first-usi={fmt(r['first_usi_ms'], '.0f')} ms rc={r['rc']}",
                    flush=True,
                )
    result = [
        {"runner": k[0], "workload": k[1], "concurrency": k[2], "runs": v, "summary": summarize(v)}
        for k, v in cells.items()
    ]
    order = {label: i for i, (label, _) in enumerate(runners)}
    wl = {"byoyomi": 0, "increment": 1, "real": 2}
    result.sort(key=lambda c: (wl.get(c["workload"], 9), c["concurrency"], order[c["runner"]]))
    (a.out / "runs.json").write_text(json.dumps(result, indent=1))
    md = table(result)
    (a.out / "table.md").write_text(md)
    svg(result, a.out / "runner-cost.svg")
    print(md)
    print(f"open files limit {nofile}; {os.cpu_count()} CPUs; written to {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
