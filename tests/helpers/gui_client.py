#!/usr/bin/env python3
"""A shogi GUI's side of USI, played by cshogi (PyPI), for the tests of council-usi.

The engine is driven by cshogi's own USI client (`cshogi.usi.Engine`), which starts a bare
executable as GUIs do; the rules of the game (legal moves, mate, repetition, impasse) are
cshogi's, not ours, and the clock is shogi's rule kept here: a move that takes `t` is late when
`t >= M + I + B` (main time left, increment, byoyomi), else the main time becomes
`max(0, M + I - t)`. Times are measured from sending `go` (or `ponderhit`) to reading `bestmove`,
as a GUI measures them.

Usage:
  gui_client.py analysis ENGINE --position "startpos moves 2g2f" [--multipv N] [--stop-after S]
      `go infinite`, `stop` after S seconds (default 1.0), then the answer. Prints JSON:
      {"lines": [[ms after go, line], ...], "stop_ms": ms, "bestmove": move}.
  gui_client.py games ENGINE1 ENGINE2 [--games N] [--byoyomi MS | --time MS --inc MS]
      [--ponder] [--max-plies P] [--options1 K=V,...] [--options2 K=V,...]
      N games, colours swapped each game, both engines kept from game to game (a GUI's
      連続対局). Prints JSON: every game (moves, result, reason, per-move times and ponder
      outcomes) and per-engine figures (median and max time, time losses, ponder hits).
Exits non-zero (loudly) if cshogi is missing: the Rust test reports that as a failure.
"""
import argparse
import collections
import json
import os
import queue
import statistics
import sys
import threading
import time
import traceback
from concurrent.futures import ThreadPoolExecutor

try:
    import cshogi
    from cshogi.usi import Engine
except ImportError as exc:
    sys.stderr.write(f"gui_client.py: cannot import cshogi ({exc}); run `bash tests/run.sh` to set up .venv/\n")
    sys.exit(3)


def options(text):
    out = {}
    for kv in filter(None, (text or "").split(",")):
        k, _, v = kv.partition("=")
        out[k] = v
    return out


def analysis(args):
    engine = Engine(args.engine)
    engine.setoption("MultiPV", args.multipv)
    engine.isready()
    engine.usinewgame()
    proc = engine.proc
    lines = queue.Queue()

    def read():
        for raw in proc.stdout:
            lines.put((time.perf_counter(), raw.decode("utf-8", "replace").strip()))
        lines.put((time.perf_counter(), None))

    threading.Thread(target=read, daemon=True).start()

    def write(cmd):
        proc.stdin.write(cmd.encode("ascii") + b"\n")
        proc.stdin.flush()

    write("position " + args.position)
    began = time.perf_counter()
    write("go infinite")
    seen = []
    stop_at = began + args.stop_after
    best = None
    stopped = None
    while best is None:
        wait = max(0.0, stop_at - time.perf_counter()) if stopped is None else 120.0
        try:
            at, line = lines.get(timeout=wait)
        except queue.Empty:
            stopped = time.perf_counter()
            write("stop")
            continue
        if line is None:
            raise SystemExit("the engine closed its output before bestmove")
        seen.append([round((at - began) * 1000, 1), line])
        if line.startswith("bestmove"):
            best = line.split()[1]
    write("quit")
    proc.wait(timeout=30)
    print(json.dumps({
        "lines": seen,
        "stop_ms": round((stopped - began) * 1000, 1) if stopped else None,
        "bestmove": best,
    }))


class Side:
    """One engine of a match, with its search in the opponent's time."""

    def __init__(self, path, opts, ponder):
        self.engine = Engine(path, connect=False)
        self.path = path
        self.opts = opts
        self.ponder = ponder
        self.bestmove_at = None
        self.pending = None  # (future, expected reply, the moves it ponders after)
        # The last lines to and from the engine (ms since the start, line), for a failure's report.
        self.trace = collections.deque(maxlen=80)
        self.record = {"moves": 0, "times_ms": [], "fractions": [], "hits": 0, "misses": 0,
                       "stop_ms": [], "time_losses": 0, "illegal": 0, "bad_stop_answers": []}

    def listen(self, line):
        self.trace.append(f"{(time.perf_counter() - STARTED) * 1000:10.1f} {line}")
        if line.startswith("bestmove"):
            self.bestmove_at = time.perf_counter()

    def prepare(self):
        if self.engine.proc is None:
            self.engine.connect()
            self.name = self.engine.name
            if self.ponder:
                self.engine.setoption("USI_Ponder", "true")
            for k, v in self.opts.items():
                self.engine.setoption(k, v)
        self.engine.isready()
        self.engine.usinewgame()

    def start_pondering(self, moves, expected, clocks, control, executor):
        """`go ponder` on `moves` + `expected`, written here, in the caller's thread, so that a
        `stop` the caller sends next always comes after it (cshogi's `go` writes it in whatever
        thread runs it); the answer is read on `executor`."""
        self.engine.position(moves + [expected], listener=self.listen)
        cmd = "go ponder"
        for key, value in clock_args(clocks, control).items():
            cmd += f" {key} {value}"
        self.listen(cmd)
        self.engine.proc.stdin.write(cmd.encode("ascii") + b"\n")
        self.engine.proc.stdin.flush()
        self.pending = (executor.submit(self.answer), expected, list(moves))

    def answer(self):
        """The engine's lines up to its `bestmove`: (move, ponder move or None)."""
        while True:
            line = self.engine.proc.stdout.readline()
            if line == b"":
                raise EOFError(f"{self.path} closed its output")
            line = line.strip().decode()
            self.listen(line)
            if line.startswith("bestmove"):
                words = line.split()
                ponder = words[3] if len(words) >= 4 and words[2] == "ponder" else None
                return words[1], ponder

    def settle(self):
        """Ends any search in the opponent's time: `stop`, and its answer (a GUI drops it) must
        come and be a move of the position pondered. Its time from `stop` is recorded."""
        if not self.pending:
            return
        future, expected, before = self.pending
        self.pending = None
        sent = time.perf_counter()
        self.engine.stop(listener=self.listen)
        best, _ = future.result(timeout=60)
        self.record["stop_ms"].append(round((self.bestmove_at - sent) * 1000, 1))
        board = cshogi.Board()
        for m in before + [expected]:
            board.push_usi(m)
        move = board.move_from_usi(best) if best not in ("resign", "win") else None
        if best != "resign" and not (best == "win" and board.is_nyugyoku()) and \
                not (move and board.is_legal(move)):
            self.record["bad_stop_answers"].append(f"{best} after {' '.join(before + [expected])}")


def clock_args(clocks, control):
    args = {"btime": clocks[cshogi.BLACK], "wtime": clocks[cshogi.WHITE]}
    if control["byoyomi"]:
        args["byoyomi"] = control["byoyomi"]
    if control["inc"]:
        args["binc"] = args["winc"] = control["inc"]
    return args


def play_game(sides, control, max_plies, executor):
    board = cshogi.Board()
    moves = []
    seen = {board.zobrist_hash(): 1}
    clocks = {cshogi.BLACK: control["time"], cshogi.WHITE: control["time"]}
    detail = []
    for s in sides:
        s.prepare()
    result, reason = "draw", "max_plies"
    while len(moves) < max_plies:
        turn = board.turn
        me = sides[0] if turn == cshogi.BLACK else sides[1]
        hit = None
        best = ponder = None
        if me.pending:
            future, expected, _ = me.pending
            if moves and moves[-1] == expected:
                me.pending = None
                hit = True
                began = time.perf_counter()
                me.engine.ponderhit(listener=me.listen)
                best, ponder = future.result(timeout=120)
            else:
                hit = False
                me.settle()
        if not hit:
            me.engine.position(moves, listener=me.listen)
            began = time.perf_counter()
            best, ponder = me.engine.go(listener=me.listen, **clock_args(clocks, control))
        took = (me.bestmove_at - began) * 1000
        allowance = clocks[turn] + control["inc"] + control["byoyomi"]
        me.record["moves"] += 1
        me.record["times_ms"].append(round(took, 1))
        if control["byoyomi"] and not control["time"]:
            me.record["fractions"].append(took / control["byoyomi"])
        if hit is True:
            me.record["hits"] += 1
        elif hit is False:
            me.record["misses"] += 1
        detail.append({"side": "sente" if turn == cshogi.BLACK else "gote", "engine": me.name,
                       "move": best, "ms": round(took, 1), "allowance_ms": allowance,
                       "ponderhit": hit})
        mover = "sente" if turn == cshogi.BLACK else "gote"
        other = "gote" if mover == "sente" else "sente"
        if took >= allowance:
            me.record["time_losses"] += 1
            result, reason = other, "time"
            break
        clocks[turn] = max(0, clocks[turn] + control["inc"] - int(took))
        if best == "resign":
            result, reason = other, "resign"
            break
        if best == "win":
            if board.is_nyugyoku():
                result, reason = mover, "impasse"
            else:
                me.record["illegal"] += 1
                result, reason = other, "illegal_impasse"
            break
        move = board.move_from_usi(best)
        if not move or not board.is_legal(move):
            me.record["illegal"] += 1
            result, reason = other, f"illegal_move {best}"
            break
        board.push(move)
        moves.append(best)
        key = board.zobrist_hash()
        seen[key] = seen.get(key, 0) + 1
        if board.is_game_over():
            result, reason = mover, "checkmate"
            break
        if seen[key] >= 4:
            draw = board.is_draw()
            if draw == cshogi.REPETITION_WIN:
                result, reason = ("sente" if board.turn == cshogi.BLACK else "gote"), "perpetual_check"
            elif draw == cshogi.REPETITION_LOSE:
                result, reason = ("gote" if board.turn == cshogi.BLACK else "sente"), "perpetual_check"
            else:
                result, reason = "draw", "repetition"
            break
        if me.ponder and ponder and ponder != "resign":
            me.start_pondering(moves, ponder, clocks, control, executor)
    for s in sides:
        s.settle()
    for s in sides:
        mine = "sente" if s is sides[0] else "gote"
        s.engine.gameover("draw" if result == "draw" else ("win" if result == mine else "lose"))
    return {"sente": sides[0].name, "gote": sides[1].name, "moves": moves, "result": result,
            "reason": reason, "detail": detail}


def games(args):
    control = {"byoyomi": args.byoyomi or 0, "time": args.time or 0, "inc": args.inc or 0}
    one = Side(args.engine1, options(args.options1), args.ponder)
    two = Side(args.engine2, options(args.options2), args.ponder)
    executor = ThreadPoolExecutor(max_workers=2)
    played = []

    def fail(why):
        sys.stderr.write(why)
        for s in (one, two):
            sys.stderr.write(f"-- the last lines with {s.path} (ms, line):\n")
            sys.stderr.write("\n".join(s.trace) + "\n")
            if s.engine.proc is not None:
                s.engine.proc.kill()
        sys.stderr.write(json.dumps({"games so far": played}) + "\n")
        sys.stderr.flush()
        os._exit(1)

    # A watchdog: an engine that never answers (a read cshogi makes without a timeout) ends
    # the client with the lines so far, never a hang.
    watchdog = threading.Timer(args.deadline, fail, [f"gui_client.py: no end after {args.deadline} s\n"])
    watchdog.daemon = True
    watchdog.start()
    try:
        for n in range(args.games):
            sides = (one, two) if n % 2 == 0 else (two, one)
            played.append(play_game(sides, control, args.max_plies, executor))
    except BaseException:
        # Fail loudly and at once: an engine still searching (a ponder nobody stops) would keep
        # an executor thread reading it, and the interpreter would wait for it at exit forever.
        fail(traceback.format_exc())
    for s in (one, two):
        s.engine.quit()
    watchdog.cancel()
    executor.shutdown()
    figures = {}
    for s in (one, two):
        r = s.record
        times = r["times_ms"]
        figures[s.path] = {
            "name": s.name,
            "moves": r["moves"],
            "median_ms": statistics.median(times) if times else None,
            "max_ms": max(times) if times else None,
            "median_fraction": statistics.median(r["fractions"]) if r["fractions"] else None,
            "min_fraction": min(r["fractions"]) if r["fractions"] else None,
            "hits": r["hits"],
            "misses": r["misses"],
            "stop_median_ms": statistics.median(r["stop_ms"]) if r["stop_ms"] else None,
            "stop_max_ms": max(r["stop_ms"]) if r["stop_ms"] else None,
            "bad_stop_answers": r["bad_stop_answers"],
            "time_losses": r["time_losses"],
            "illegal": r["illegal"],
        }
    print(json.dumps({"games": played, "engines": figures}))


STARTED = time.perf_counter()


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    a = sub.add_parser("analysis")
    a.add_argument("engine")
    a.add_argument("--position", default="startpos")
    a.add_argument("--multipv", type=int, default=1)
    a.add_argument("--stop-after", type=float, default=1.0)
    g = sub.add_parser("games")
    g.add_argument("engine1")
    g.add_argument("engine2")
    g.add_argument("--games", type=int, default=2)
    g.add_argument("--byoyomi", type=int)
    g.add_argument("--time", type=int)
    g.add_argument("--inc", type=int)
    g.add_argument("--ponder", action="store_true")
    g.add_argument("--max-plies", type=int, default=256)
    g.add_argument("--options1", default="")
    g.add_argument("--options2", default="")
    g.add_argument("--deadline", type=float, default=1800.0,
                   help="seconds after which the client gives up, reporting the last lines")
    args = parser.parse_args()
    if args.command == "analysis":
        analysis(args)
    else:
        games(args)


if __name__ == "__main__":
    main()
