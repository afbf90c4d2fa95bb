#!/usr/bin/env python3
"""The soak benchmark: hours of play with misbehaving engines, watching for slow leaks.

One long-lived `council-match` plays a round-robin of mock USI engines at `--concurrency`
games at once (default 64) for about `--minutes` (default 60): sleeping mocks (`mock-usi
sleep`, the runner benchmark's engine), well-behaved sleeping ponderers (`mock-usi chaos` with
no fault) and misbehaving ones (`mock-usi chaos` with the fault probabilities below: crashes,
hangs, garbage, slow answers, 1 MB lines, and ponder faults: a crash on `go ponder`, a `stop`
ignored, an illegal or malformed move after `ponderhit`, a `bestmove` before it; one of them
also starts a grandchild, `sleep 600`, that the runner must stop with it). One run of many games
rather than several runs: a leak shows in one process that lives for the whole soak.

While it plays, the script samples council-match's resident memory (VmRSS, VmHWM), open file
descriptors (/proc/PID/fd), threads (/proc/PID/task), child processes and zombies among them,
and the processes orphaned to it (it makes itself the subreaper of every process below it, so
an engine's grandchild left behind is counted). The run serves its live page (`--serve` on a
free loopback port), so the process stays up once the games are over: the script waits for
`summary.json`, then `--settle` seconds (idle runtime threads end), takes the end sample and
stops it with SIGTERM. It then checks:

- every scheduled game is in results.jsonl (faults count as results: losses), once each;
- peak RSS (VmHWM) flat after warm-up: it grows by at most `--rss-growth-mb` (2) from the first
  sample after `--warmup-minutes` (default: a sixth of the run) to the end;
- open fds, threads and child processes at the end equal to those at the start, no zombie
  child, no orphan left running. The start is the same program at rest after a 2-game run of
  two of the players (sampled as the end is): a process's first moments are no rest (its
  pre-flight checks' and first games' pipes open within 0.2 s), and what a leak adds grows
  with the games played;
- council-match exits 0 after SIGTERM.

    cargo build --release -p council-tests --bin mock-usi -p council-cli --bin council-match
    python3 scripts/soak.py --out /tmp/soak               # 64 games at once, 1 hour
    python3 scripts/soak.py --minutes 5 --concurrency 16  # CI's variant

`--gui` soaks `council-usi` instead, under a scripted GUI (this script, speaking USI over
pipes): a council of three mock members (one that searches until `stop`, a sleeping ponderer,
a sleeping engine) answers `--cycles` cycles (default 10,000), alternately `go infinite` then
`stop` and `go ponder` then `ponderhit`, each read to its `bestmove`; it samples between cycles
and checks peak RSS flat after the first tenth of the cycles (growth <= `--rss-growth-mb`), fds,
threads and children at the end equal to those after the first cycle, no zombie or orphan,
and an exit 0 after `quit`:

    cargo build --release -p council-tests --bin mock-usi -p council-cli --bin council-usi
    python3 scripts/soak.py --gui --out /tmp/soak-gui

Writes `samples.csv`, `soak.json` (the checks and figures), `table.md` and `soak.svg` (RSS, fds
and threads over time) to `--out`, and exits 1 when a check fails. Fault draws are seeded
(`--seed`, recorded in soak.json): each mock's faults depend only on its seed and the position
it is asked, so a game in results.jsonl replays with the same mock arguments. The number of
games is estimated from the duration (`--games` overrides): the run lasts about `--minutes`.
Needs Linux (/proc, prctl).
"""

import argparse
import ctypes
import json
import os
import resource
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PR_SET_CHILD_SUBREAPER = 36
TICKS = os.sysconf("SC_CLK_TCK")

# The misbehaving mocks' fault probabilities (per `go`, per `go ponder`): a game of 24 engine
# moves a side sees a fault about one time in six.
FAULTS = {
    "crash": 0.002,
    "hang": 0.001,
    "garbage": 0.002,
    "slow": 0.002,
    "long": 0.002,
    "ponder-crash": 0.003,
    "ponder-deaf": 0.003,
    "ponder-illegal": 0.003,
    "ponder-early": 0.003,
}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def raise_fd_limit(want=8192):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = want if hard == resource.RLIM_INFINITY else min(want, hard)
    if soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def become_subreaper():
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER)")


def players(mock, seed, faults, scale):
    """The round-robin's players: (name, args, ponder)."""
    chaos = ["chaos"]
    faulty = [x for k, p in faults.items() for x in (f"--p-{k}", str(p * scale))]
    return [
        ("sleep-a", ["sleep"], False),
        ("sleep-b", ["sleep"], False),
        ("ponder-a", chaos + ["--seed", str(seed + 1)], True),
        ("ponder-b", chaos + ["--seed", str(seed + 2)], True),
        ("chaos-a", chaos + ["--seed", str(seed + 3)] + faulty, True),
        ("chaos-b", chaos + ["--seed", str(seed + 4)] + faulty, True),
        ("chaos-c", chaos + ["--seed", str(seed + 5)] + faulty, False),
        ("chaos-d", chaos + ["--seed", str(seed + 6), "--child"] + faulty, True),
    ]


def config_text(mock, roster, games_per_pair, a):
    names = ", ".join(json.dumps(n) for n, _, _ in roster)
    text = f"""[match]
format = "round-robin"
players = [{names}]
games = {games_per_pair}
max_plies = {a.max_plies}
seed = {a.seed}
timeout_margin_ms = {a.margin_ms}
openings = {json.dumps(str(ROOT / "data/openings/gps-ply36.txt"))}
"""
    for name, args, ponder in roster:
        text += f"""
[[player]]
name = "{name}"
kind = "usi"
command = {json.dumps(str(mock))}
args = {json.dumps(args)}
byoyomi_ms = {a.byoyomi_ms}
ponder = {"true" if ponder else "false"}
"""
    return text


def stat_fields(pid):
    """(state, ppid) of a process, or None when it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    rest = text.rsplit(")", 1)[1].split()
    return rest[0], int(rest[1])


def processes_by_parent():
    by_parent = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            f = stat_fields(int(entry.name))
            if f:
                by_parent.setdefault(f[1], []).append((int(entry.name), f[0]))
    return by_parent


def status_kb(pid, key):
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return None


def count_dir(path):
    try:
        return len(os.listdir(path))
    except OSError:
        return None


def cpu_s(pid):
    """utime + stime of process `pid` itself, seconds."""
    try:
        rest = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(rest[11]) + int(rest[12])) / TICKS


def sample(pid, t0):
    by_parent = processes_by_parent()
    kids = by_parent.get(pid, [])
    mine = [p for p, _ in by_parent.get(os.getpid(), []) if p != pid]
    return {
        "t": round(time.monotonic() - t0, 2),
        "cpu_s": cpu_s(pid),
        "rss_kb": status_kb(pid, "VmRSS"),
        "hwm_kb": status_kb(pid, "VmHWM"),
        "fds": count_dir(f"/proc/{pid}/fd"),
        "threads": count_dir(f"/proc/{pid}/task"),
        "children": len(kids),
        "zombies": sum(1 for _, state in kids if state == "Z"),
        "orphans": len(mine),
    }


def read_results(path):
    games = []
    if path.exists():
        for line in path.read_text().splitlines():
            try:
                games.append(json.loads(line))
            except json.JSONDecodeError:
                pass  # a torn last line, as every reader skips
    return games


def svg(samples, warm_t, path):
    """Three stacked panels against minutes: RSS (and peak) MB, open fds, threads."""
    W, H, pad, gap = 900, 620, 60, 40
    ph = (H - 2 * pad - 2 * gap) / 3
    tmax = max((s["t"] for s in samples), default=1) or 1
    panels = [
        ("council-match resident memory (MB): VmRSS, VmHWM", [("rss_kb", "#1f77b4"), ("hwm_kb", "#d62728")], 1 / 1024),
        ("open file descriptors", [("fds", "#2ca02c")], 1),
        ("threads", [("threads", "#9467bd")], 1),
    ]
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">']
    out.append(f'<rect width="{W}" height="{H}" fill="white"/>')
    for i, (title, keys, scale) in enumerate(panels):
        y0 = pad + i * (ph + gap) + ph
        y1 = y0 - ph
        vals = [s[k] * scale for s in samples for k, _ in keys if s.get(k) is not None]
        top = max(vals + [1]) * 1.1
        out.append(f'<text x="{W / 2}" y="{y1 - 8}" text-anchor="middle" font-weight="bold">{title}</text>')
        out.append(f'<line x1="{pad}" y1="{y0}" x2="{W - pad}" y2="{y0}" stroke="black"/>')
        out.append(f'<line x1="{pad}" y1="{y0}" x2="{pad}" y2="{y1}" stroke="black"/>')
        for k in range(3):
            v = top * k / 2
            y = y0 - ph * k / 2
            out.append(f'<text x="{pad - 6}" y="{y + 4}" text-anchor="end">{v:.3g}</text>')
            out.append(f'<line x1="{pad}" y1="{y}" x2="{W - pad}" y2="{y}" stroke="#ddd"/>')
        wx = pad + (W - 2 * pad) * warm_t / tmax
        out.append(f'<line x1="{wx:.1f}" y1="{y0}" x2="{wx:.1f}" y2="{y1}" stroke="#999" stroke-dasharray="4"/>')
        for key, col in keys:
            pts = [
                (pad + (W - 2 * pad) * s["t"] / tmax, y0 - ph * s[key] * scale / top)
                for s in samples
                if s.get(key) is not None
            ]
            out.append('<polyline fill="none" stroke="%s" stroke-width="1.5" points="%s"/>' % (col, " ".join(f"{x:.1f},{y:.1f}" for x, y in pts)))
        if i == 2:
            for k in range(5):
                t = tmax * k / 4
                out.append(f'<text x="{pad + (W - 2 * pad) * k / 4}" y="{y0 + 16}" text-anchor="middle">{t / 60:.1f}</text>')
            out.append(f'<text x="{W / 2}" y="{y0 + 34}" text-anchor="middle">minutes (dashed: end of warm-up)</text>')
    out.append("</svg>")
    path.write_text("\n".join(out) + "\n")


def reap_orphans():
    """Kill and reap the processes orphaned to this script (engines' grandchildren left behind);
    how many were still running."""
    running = 0
    for p, state in processes_by_parent().get(os.getpid(), []):
        if state != "Z":
            running += 1
            try:
                os.kill(p, signal.SIGKILL)
            except OSError:
                pass
        try:
            os.waitpid(p, 0)
        except OSError:
            pass
    return running


class LineCounter:
    """The complete lines of a growing file, counted from where the last look stopped."""

    def __init__(self, path):
        self.path, self.offset, self.lines = path, 0, 0

    def count(self):
        try:
            with open(self.path, "rb") as f:
                f.seek(self.offset)
                data = f.read()
        except OSError:
            return self.lines
        end = data.rfind(b"\n") + 1
        self.lines += data.count(b"\n", 0, end)
        self.offset += end
        return self.lines


def play(a, config, run_dir, scheduled, quiet_log=False):
    """One council-match run serving its page (so that it stays up once its games are over):
    samples every `--every` seconds, every `--tail-every` seconds once fewer games are left than
    run at once (the last wave, then the players' stop), until summary.json appears; then,
    `--settle` seconds later, the end sample; then SIGTERM. Each sample holds the games
    recorded so far and whether summary.json was there. Returns (end sample, samples, exit
    status, seconds played, progress)."""
    if run_dir.exists():
        shutil.rmtree(run_dir)
    cmd = [
        a.runner, str(config), "--concurrency", str(a.concurrency), "--out", str(run_dir),
        "--quiet", "--serve", f"127.0.0.1:{free_port()}",
    ]
    if not quiet_log:
        print(f"soak: {' '.join(cmd)}", flush=True)
    t0 = time.monotonic()
    stderr = open(run_dir.parent / f"{run_dir.name}-stderr.txt", "w")
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=stderr)
    samples = []
    progress = []  # (t, games recorded, CPU s) each minute
    summary = run_dir / "summary.json"
    recorded = LineCounter(run_dir / "results.jsonl")
    next_log = 0
    while proc.poll() is None and not summary.exists():
        s = sample(proc.pid, t0)
        s["games"] = recorded.count()
        s["summary"] = summary.exists()
        samples.append(s)
        # Orphans killed by the runner are this script's zombies: reaped as they come.
        for p, state in processes_by_parent().get(os.getpid(), []):
            if state == "Z" and p != proc.pid:
                os.waitpid(p, 0)
        if not quiet_log and s["t"] >= next_log:
            done = len(read_results(run_dir / "results.jsonl"))
            progress.append((s["t"], done, s["cpu_s"]))
            rss = (s["rss_kb"] or 0) / 1024
            print(f"soak: {s['t'] / 60:6.1f} min  games {done}/{scheduled}  rss {rss:.1f} MB  fds {s['fds']}  threads {s['threads']}  children {s['children']}", flush=True)
            next_log = s["t"] + 60
        tail = scheduled is not None and s["games"] > scheduled - a.concurrency
        time.sleep(a.tail_every if tail else a.every)
    played_s = time.monotonic() - t0
    end = None
    if proc.poll() is None:
        time.sleep(a.settle)
        end = sample(proc.pid, t0)
        end["games"] = recorded.count()
        end["summary"] = summary.exists()
        samples.append(end)
        proc.send_signal(signal.SIGTERM)
    try:
        rc = proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        rc = proc.wait()
    stderr.close()
    return end, samples, rc, played_s, progress


def gui_config(mock):
    """council-usi's council: a member that searches until `stop` (`mock-usi stall`), a
    sleeping ponderer (`chaos` without faults) and a sleeping engine (`sleep`)."""
    members = [("stall", ["stall"]), ("ponderer", ["chaos", "--seed", "7"]), ("sleeper", ["sleep"])]
    text = '[[player]]\nname = "council"\nkind = "council"\n'
    text += f"members = {json.dumps([n for n, _ in members])}\n"
    for name, args in members:
        text += f'\n[[player]]\nname = "{name}"\nkind = "usi"\ncommand = {json.dumps(str(mock))}\nargs = {json.dumps(args)}\n'
    return text


def gui_soak(a):
    """council-usi under a scripted GUI: `--cycles` cycles, alternately `go infinite` then
    `stop` a few ms later, and `go ponder` (byoyomi `--byoyomi-ms`) then `ponderhit`, each read
    to its `bestmove`, on a game that grows by the answers (back to the start every 60 plies).
    Samples between cycles; checks RSS (VmHWM) flat after the first tenth of the cycles and
    fds, threads and children at the end equal to those after the first cycle."""
    import queue
    import threading

    a.out.mkdir(parents=True, exist_ok=True)
    config = a.out / "council-usi.toml"
    config.write_text(gui_config(a.mock))
    cmd = [a.council_usi, str(config)]
    print(f"soak: {a.cycles} GUI cycles; {' '.join(cmd)}", flush=True)
    began = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    t0 = time.monotonic()
    stderr = open(a.out / "council-usi-stderr.txt", "w")
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr, text=True, bufsize=1)
    lines = queue.Queue()
    threading.Thread(target=lambda: [lines.put(l.strip()) for l in proc.stdout] and None, daemon=True).start()

    def send(line):
        proc.stdin.write(line + "\n")
        proc.stdin.flush()

    def until(prefix):
        while True:
            try:
                line = lines.get(timeout=60)
            except queue.Empty:
                raise SystemExit(f"soak: council-usi sent no `{prefix}` within 60 s (cycle {cycle})")
            if line.startswith(prefix):
                return line

    cycle = 0
    send("usi")
    until("usiok")
    send("setoption name USI_Ponder value true")
    send("isready")
    until("readyok")
    moves = []
    samples = []
    start = None
    every = max(1, a.cycles // 200)
    for cycle in range(a.cycles):
        if len(moves) >= 60:
            moves = []
        if not moves:
            send("usinewgame")
        send("position startpos" + (" moves " + " ".join(moves) if moves else ""))
        if cycle % 2 == 0:
            send("go infinite")
            time.sleep(0.005)
            send("stop")
        else:
            send(f"go ponder btime 0 wtime 0 byoyomi {a.byoyomi_ms}")
            time.sleep(0.005)
            send("ponderhit")
        best = until("bestmove").split()
        if len(best) < 2 or best[1] in ("resign", "win"):
            moves = []
        else:
            moves.append(best[1])
        if cycle == 0 or (cycle + 1) % every == 0 or cycle == a.cycles - 1:
            s = sample(proc.pid, t0)
            s["cycle"] = cycle + 1
            samples.append(s)
            if cycle == 0:
                start = s
            if (cycle + 1) % (every * 20) == 0:
                print(f"soak: cycle {cycle + 1}/{a.cycles}  rss {(s['rss_kb'] or 0) / 1024:.1f} MB  fds {s['fds']}  threads {s['threads']}  children {s['children']}", flush=True)
    time.sleep(a.settle)
    end = sample(proc.pid, t0)
    end["cycle"] = a.cycles
    samples.append(end)
    send("quit")
    try:
        rc = proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        rc = proc.wait()
    stderr.close()
    orphans_left = reap_orphans()
    after = [s for s in samples if s["cycle"] >= a.cycles // 10 and s["hwm_kb"]]
    growth_mb = (after[-1]["hwm_kb"] - after[0]["hwm_kb"]) / 1024 if len(after) >= 2 else None
    checks = {
        f"peak RSS growth after the first tenth <= {a.rss_growth_mb:g} MB": growth_mb is not None and growth_mb <= a.rss_growth_mb,
        "fds at the end == after the first cycle": end["fds"] == start["fds"],
        "threads at the end == after the first cycle": end["threads"] == start["threads"],
        "children at the end == after the first cycle": end["children"] == start["children"],
        "no zombie child at the end": end["zombies"] == 0,
        "no orphan left": orphans_left == 0,
        "council-usi exited 0 after quit": rc == 0,
    }
    figures = {
        "began": began,
        "command": " ".join(sys.argv),
        "council_usi": cmd,
        "machine": {"cpus": os.cpu_count(), "loadavg_end": os.getloadavg()},
        "cycles": a.cycles,
        "minutes": (time.monotonic() - t0) / 60,
        "start": start,
        "end": end,
        "hwm_mb_after_first_tenth": after[0]["hwm_kb"] / 1024 if after else None,
        "hwm_mb_end": after[-1]["hwm_kb"] / 1024 if after else None,
        "hwm_growth_mb": growth_mb,
        "orphans_left": orphans_left,
        "exit_status": rc,
        "checks": checks,
    }
    report(a, figures, samples, checks, [
        "| figure | after cycle 1 | end |",
        "|---|---:|---:|",
        f"| open fds | {start['fds']} | {end['fds']} |",
        f"| threads | {start['threads']} | {end['threads']} |",
        f"| child processes | {start['children']} | {end['children']} |",
        f"| peak RSS (VmHWM) MB, after the first tenth → end | {mb(figures['hwm_mb_after_first_tenth'])} | {mb(figures['hwm_mb_end'])} |",
        "",
        f"{a.cycles} cycles in {figures['minutes']:.1f} min.",
    ], after[0]["t"] if after else 0)


def mb(x):
    return "n/a" if x is None else f"{x:.1f}"


def mb2(x):
    return "n/a" if x is None else f"{x:+.2f}"


def report(a, figures, samples, checks, head, warm_t):
    """Writes soak.json, samples.csv, soak.svg and table.md; exits 1 when a check failed."""
    (a.out / "soak.json").write_text(json.dumps(figures, indent=1))
    keys = [k for k in ["cycle", "t", "cpu_s", "rss_kb", "hwm_kb", "fds", "threads", "children", "zombies", "orphans", "games", "summary"] if samples and k in samples[0]]
    (a.out / "samples.csv").write_text(
        ",".join(keys) + "\n" + "".join(",".join(str(s.get(k)) for k in keys) + "\n" for s in samples)
    )
    svg(samples, warm_t, a.out / "soak.svg")
    md = "\n".join(head + ["", "| check | |", "|---|---|"] + [f"| {k} | {'pass' if v else 'FAIL'} |" for k, v in checks.items()]) + "\n"
    (a.out / "table.md").write_text(md)
    print(md)
    failed = [k for k, v in checks.items() if not v]
    if failed:
        print(f"soak: FAILED: {'; '.join(failed)} (see {a.out})", file=sys.stderr)
        sys.exit(1)
    print(f"soak: all checks pass; written to {a.out}", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=Path("/tmp/soak"))
    ap.add_argument("--runner", default=str(ROOT / "target/release/council-match"))
    ap.add_argument("--mock", default=str(ROOT / "target/release/mock-usi"))
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--minutes", type=float, default=60)
    ap.add_argument("--warmup-minutes", type=float, help="default: a sixth of --minutes")
    ap.add_argument("--games", type=int, help="games per pairing (default: estimated from --minutes)")
    ap.add_argument("--byoyomi-ms", type=int, default=200)
    ap.add_argument("--margin-ms", type=int, default=300, help="timeout_margin_ms")
    ap.add_argument("--max-plies", type=int, default=84, help="a game's cap, its opening's 36 plies included")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--fault-scale", type=float, default=1.0, help="multiplies every fault probability")
    ap.add_argument("--every", type=float, default=2.0, help="seconds between samples")
    ap.add_argument("--tail-every", type=float, default=0.2, help="seconds between samples in the last wave")
    ap.add_argument("--settle", type=float, default=15.0, help="seconds idle before the end sample")
    ap.add_argument("--rss-growth-mb", type=float, default=2.0, help="bound on the peak RSS growth from the warm-up to the last wave")
    ap.add_argument("--end-bump-mb", type=float, default=2.0, help="bound on the peak RSS rise in the last wave and the stop")
    ap.add_argument("--gui", action="store_true", help="soak council-usi under a scripted GUI instead")
    ap.add_argument("--council-usi", default=str(ROOT / "target/release/council-usi"))
    ap.add_argument("--cycles", type=int, default=10000, help="--gui: go/stop and go ponder/ponderhit cycles")
    a = ap.parse_args()
    if a.gui:
        become_subreaper()
        return gui_soak(a)

    nofile = raise_fd_limit()
    become_subreaper()
    roster = players(a.mock, a.seed, FAULTS, a.fault_scale)
    pairs = len(roster) * (len(roster) - 1) // 2
    # A game: its plies past the opening at 0.9 of the byoyomi, less the games a fault cut
    # short (the hour's run, 2026-11-29, played 8.4 s a game where this says 8.4).
    game_s = max(1, a.max_plies - 36) * a.byoyomi_ms * 0.88 / 1000
    games_per_pair = a.games or max(1, round(a.minutes * 60 * a.concurrency / game_s / pairs))
    if games_per_pair % 2:
        games_per_pair += 1  # whole colour-swapped pairs
    scheduled = games_per_pair * pairs

    a.out.mkdir(parents=True, exist_ok=True)
    run_dir = a.out / "run"
    config = a.out / "soak.toml"
    config.write_text(config_text(a.mock, roster, games_per_pair, a))
    print(f"soak: {scheduled} games ({games_per_pair} a pairing, {pairs} pairings), {a.concurrency} at once, about {a.minutes:g} min", flush=True)

    began = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    # The start: the same council-match at rest after a 2-game run (a process's first moments
    # are no rest: its pre-flight checks' and first games' pipes open within 0.2 s of its start).
    base_config = a.out / "baseline.toml"
    base_config.write_text(config_text(a.mock, roster[:2], 2, a))
    start, _, base_rc, _, _ = play(a, base_config, a.out / "baseline", None, quiet_log=True)
    print(f"soak: at rest after a 2-game run: {start}", flush=True)
    end, samples, rc, played_s, progress = play(a, config, run_dir, scheduled)
    orphans_left = reap_orphans()

    games = read_results(run_dir / "results.jsonl")
    ids = [g.get("id") for g in games]
    reasons = {}
    for g in games:
        reasons[g.get("reason")] = reasons.get(g.get("reason"), 0) + 1
    warm_t = 60 * (a.warmup_minutes if a.warmup_minutes is not None else a.minutes / 6)
    warm_t = min(warm_t, max((s["t"] for s in samples), default=0))
    after = [s for s in samples if s["t"] >= warm_t and s["hwm_kb"]]
    growth_mb = (after[-1]["hwm_kb"] - after[0]["hwm_kb"]) / 1024 if len(after) >= 2 else None
    # The steady part: from the warm-up to the last wave (fewer games left than run at once);
    # what a leak adds shows there, growing with the games played. The end: the last wave, the
    # players' stop, summary.json and the settle, a one-off whose size must not depend on the
    # run's length (docs/studies/soak.md measures it after 3 and 10 minutes).
    steady = [s for s in after if s.get("games", 0) <= scheduled - a.concurrency]
    tail_t = steady[-1]["t"] if steady else None
    steady_mb = (steady[-1]["hwm_kb"] - steady[0]["hwm_kb"]) / 1024 if len(steady) >= 2 else None
    end_bump_mb = (after[-1]["hwm_kb"] - steady[-1]["hwm_kb"]) / 1024 if steady and after else None
    # Where in the end the peak rose: by the last game recorded, by summary.json, by the end.
    last_game = next((s for s in samples if s.get("games", 0) >= scheduled), None)
    at_summary = next((s for s in samples if s.get("summary")), None)

    def rise(s):
        return None if s is None or not steady else round((s["hwm_kb"] - steady[-1]["hwm_kb"]) / 1024, 2)

    checks = {
        "every scheduled game recorded once": len(games) == scheduled and len(set(ids)) == scheduled,
        f"peak RSS growth from the warm-up to the last wave <= {a.rss_growth_mb:g} MB": steady_mb is not None and steady_mb <= a.rss_growth_mb,
        f"peak RSS rise in the last wave and the stop <= {a.end_bump_mb:g} MB": end_bump_mb is not None and end_bump_mb <= a.end_bump_mb,
        "fds at the end == at the start": bool(start and end and end["fds"] == start["fds"]),
        "threads at the end == at the start": bool(start and end and end["threads"] == start["threads"]),
        "children at the end == at the start": bool(start and end and end["children"] == start["children"]),
        "no zombie child at the end": bool(end and end["zombies"] == 0),
        "no orphan left": orphans_left == 0,
        "council-match exited 0 after SIGTERM": rc == 0 and base_rc == 0,
    }
    figures = {
        "began": began,
        "command": " ".join(sys.argv),
        "runner": a.runner,
        "concurrency": a.concurrency,
        "machine": {"cpus": os.cpu_count(), "loadavg_end": os.getloadavg(), "open_files_limit": nofile},
        "seed": a.seed,
        "faults": {k: v * a.fault_scale for k, v in FAULTS.items()},
        "scheduled": scheduled,
        "recorded": len(games),
        "distinct_ids": len(set(ids)),
        "reasons": reasons,
        "played_minutes": played_s / 60,
        "engine_moves": sum(len(g.get("times_ms", [])) for g in games),
        "warmup_s": warm_t,
        "start": start,
        "end": end,
        "rss_mb_at_warmup": after[0]["rss_kb"] / 1024 if after else None,
        "hwm_mb_at_warmup": after[0]["hwm_kb"] / 1024 if after else None,
        "hwm_mb_end": after[-1]["hwm_kb"] / 1024 if after else None,
        "hwm_growth_mb": growth_mb,
        "last_wave_s": tail_t,
        "hwm_mb_at_last_wave": steady[-1]["hwm_kb"] / 1024 if steady else None,
        "hwm_steady_growth_mb": steady_mb,
        "hwm_end_bump_mb": end_bump_mb,
        "hwm_end_bump_by": {"last_game_recorded": rise(last_game), "summary_written": rise(at_summary), "end_sample": rise(end)},
        # council-match's own CPU per game recorded, minute by minute: a cost that grows with
        # the games already played shows as a rising column.
        "cpu_ms_per_game_by_minute": [
            round(1000 * (c1 - c0) / (n1 - n0), 1)
            for (_, n0, c0), (_, n1, c1) in zip(progress, progress[1:])
            if n1 > n0 and c0 is not None and c1 is not None
        ],
        "max_children": max((s["children"] for s in samples), default=0),
        "max_zombies_seen": max((s["zombies"] for s in samples), default=0),
        "max_fds": max((s["fds"] or 0 for s in samples), default=0),
        "max_threads": max((s["threads"] or 0 for s in samples), default=0),
        "orphans_left": orphans_left,
        "exit_status": rc,
        "checks": checks,
    }
    st, en = start or {}, end or {}
    report(a, figures, samples, checks, [
        "| figure | start | end |",
        "|---|---:|---:|",
        f"| open fds | {st.get('fds')} | {en.get('fds')} |",
        f"| threads | {st.get('threads')} | {en.get('threads')} |",
        f"| child processes | {st.get('children')} | {en.get('children')} |",
        f"| peak RSS (VmHWM) MB, after warm-up → end | {mb(figures['hwm_mb_at_warmup'])} | {mb(figures['hwm_mb_end'])} |",
        "",
        f"Peak RSS (VmHWM): {mb(figures['hwm_mb_at_warmup'])} MB after the warm-up, {mb(figures['hwm_mb_at_last_wave'])} MB at the last wave "
        f"({mb2(steady_mb)} MB over the steady part), {mb(figures['hwm_mb_end'])} MB at the end ({mb2(end_bump_mb)} MB in the last wave and the stop: "
        f"{figures['hwm_end_bump_by']['last_game_recorded']} by the last game recorded, {figures['hwm_end_bump_by']['summary_written']} by summary.json).",
        "",
        f"Games: {len(games)} recorded of {scheduled} scheduled in {played_s / 60:.1f} min, {figures['engine_moves']} moves; "
        f"reasons: {', '.join(f'{k} {v}' for k, v in sorted(reasons.items(), key=lambda kv: -kv[1]))}. "
        f"Most at once: {figures['max_children']} children, {figures['max_fds']} fds, {figures['max_threads']} threads; "
        f"zombies seen while playing (not yet reaped): {figures['max_zombies_seen']}. "
        f"council-match CPU per game, minute by minute (ms): {figures['cpu_ms_per_game_by_minute']}.",
    ], warm_t)


if __name__ == "__main__":
    main()
