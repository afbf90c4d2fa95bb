#!/usr/bin/env python3
"""A small, strict USI match referee for measuring engine strength.

Why: the issue asks for strength measured against Debian's sjaakii and fairy-stockfish and
between strength settings of our own engine, before the orchestrator's `council-match` exists.
python-shogi-free: cshogi is the independent legality referee (it rejects pawn-drop mates,
which fairy-stockfish plays: the referee scores those as the mover's loss).

Rules enforced: illegal or malformed move, `bestmove` later than byoyomi + tolerance, a
crash or a hang, or a failed `bestmove win` loses; checkmate (no legal move) loses;
`resign` loses; the fourth occurrence of a position draws, unless one side gave check with
every move of the cycle (that side loses); `--max-plies` without result draws.

Games run one at a time (the machine is shared). Colours alternate; each opening from the
built-in list is played twice, once with each engine as Sente (twelve curated openings, then
every pair of eight common first moves for each side, so up to 150 distinct games).

Usage (from the repository root):
  python3 engine/scripts/usi_match.py \
      --a-cmd target/release/council-engine --a-name council \
      --b-cmd /usr/games/sjaakii --b-name sjaakii --b-drops-at --b-movetime \
      --games 20 --byoyomi 1000 --out runs/sjaakii.jsonl
Options for an engine: --a-opt Name=Value (repeatable), likewise --b-opt.
The last lines printed are a summary: wins/draws/losses of A, score and an Elo estimate.
"""

import argparse
import json
import math
import queue
import subprocess
import sys
import threading
import time

import cshogi

# Short, varied openings (USI moves from the start position): static rook, ranging rook,
# bishop exchange, double wing, central pawn. Each is checked for legality at start-up.
OPENINGS = [
    [],
    ["7g7f", "3c3d"],
    ["2g2f", "8c8d"],
    ["7g7f", "8c8d", "2g2f", "8d8e"],
    ["7g7f", "3c3d", "6g6f", "8b4b"],
    ["2g2f", "3c3d", "7g7f", "4c4d"],
    ["5g5f", "3c3d", "5f5e", "8b5b"],
    ["7g7f", "3c3d", "8h2b+", "3a2b"],
    ["2g2f", "8c8d", "2f2e", "8d8e", "6i7h", "4a3b"],
    ["7g7f", "3c3d", "2g2f", "4c4d", "3i4h", "3a4b"],
    ["6g6f", "3c3d", "7g7f", "8c8d", "2h6h"],
    ["7g7f", "5c5d", "2g2f", "5d5e"],
]
# Beyond the curated list (for longer matches): every pair of common first moves.
OPENINGS += [[a, b] for a in ["7g7f", "2g2f", "5g5f", "6g6f", "1g1f", "9g9f", "3g3f", "4g4f"]
             for b in ["3c3d", "8c8d", "5c5d", "4c4d", "1c1d", "9c9d", "6c6d", "7c7d"]
             if [a, b] not in OPENINGS]


class EngineError(Exception):
    pass


class Engine:
    """A USI engine child process with a reader thread, so every read can time out."""

    def __init__(self, name, cmd, options, drops_at=False, movetime=False, go_nodes=0):
        self.name = name
        # A fixed node budget for this engine only (to measure a strength gap as a handicap).
        self.go_nodes = go_nodes
        # sjaakii moves at once on `btime 0 ... byoyomi N`: give it `go movetime N` instead.
        self.movetime = movetime
        # sjaakii writes and reads drops as `P@5e` instead of USI's `P*5e`: translate both ways.
        self.drops_at = drops_at
        self.proc = subprocess.Popen(
            cmd, shell=True, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.send("usi")
        self.wait_for("usiok", 10.0)
        for key, value in options:
            self.send(f"setoption name {key} value {value}")
        self.send("isready")
        self.wait_for("readyok", 30.0)

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def send(self, line):
        try:
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError) as e:
            raise EngineError(f"{self.name}: cannot write ({e})")

    def readline(self, deadline):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise EngineError(f"{self.name}: no answer in time")
        try:
            line = self.lines.get(timeout=remaining)
        except queue.Empty:
            raise EngineError(f"{self.name}: no answer in time")
        if line is None:
            raise EngineError(f"{self.name}: exited")
        return line

    def wait_for(self, token, seconds):
        deadline = time.monotonic() + seconds
        while True:
            if self.readline(deadline).strip() == token:
                return

    def new_game(self):
        self.send("usinewgame")
        self.send("isready")
        self.wait_for("readyok", 30.0)

    def go(self, moves, go_args, hang_seconds):
        """Returns (bestmove text, seconds taken, last info score text)."""
        if self.drops_at:
            moves = [m.replace("*", "@") for m in moves]
        pos = "position startpos" + (" moves " + " ".join(moves) if moves else "")
        self.send(pos)
        start = time.monotonic()
        if self.go_nodes:
            self.send(f"go nodes {self.go_nodes}")
        else:
            self.send("go " + (go_args[1] if self.movetime else go_args[0]))
        deadline = start + hang_seconds
        score = None
        while True:
            line = self.readline(deadline)
            tokens = line.split()
            if not tokens:
                continue
            if tokens[0] == "info" and "score" in tokens:
                i = tokens.index("score")
                score = " ".join(tokens[i + 1:i + 3])
            if tokens[0] == "bestmove":
                if len(tokens) < 2:
                    raise EngineError(f"{self.name}: bare bestmove")
                best = tokens[1].replace("@", "*") if self.drops_at else tokens[1]
                return best, time.monotonic() - start, score

    def game_over(self, outcome):
        try:
            self.send(f"gameover {outcome}")
        except EngineError:
            pass

    def close(self):
        try:
            self.send("quit")
            self.proc.wait(timeout=3)
        except (EngineError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()


def play_game(engines, opening, args):
    """engines = (sente, gote). Returns (result 'sente'|'gote'|'draw', reason, moves, times)."""
    board = cshogi.Board()
    moves = []
    gave_check = []  # per move played: did it give check
    for mv in opening:
        board.push_usi(mv)
        moves.append(mv)
        gave_check.append(board.is_check())
    history = {board.zobrist_hash(): [len(moves)]}
    times = {0: [], 1: []}
    nodes = f"nodes {args.nodes} " if args.nodes else ""
    go_args = (f"{nodes}btime 0 wtime 0 byoyomi {args.byoyomi}", f"{nodes}movetime {args.byoyomi}")
    limit = (args.byoyomi + args.tolerance) / 1000.0
    while True:
        side = board.turn  # 0 = sente
        mover = "sente" if side == 0 else "gote"
        winner_if_mover_loses = "gote" if side == 0 else "sente"
        if board.is_game_over():
            return winner_if_mover_loses, "checkmate", moves, times
        if len(moves) >= args.max_plies:
            return "draw", "max_plies", moves, times
        engine = engines[side]
        try:
            best, took, _score = engine.go(moves, go_args, limit + args.hang)
        except EngineError as e:
            return winner_if_mover_loses, f"crash_or_hang ({e})", moves, times
        times[side].append(took)
        if took > limit and not args.nodes_only and not engine.go_nodes:
            return winner_if_mover_loses, f"timeout ({took:.3f}s)", moves, times
        if best == "resign":
            return winner_if_mover_loses, "resign", moves, times
        if best == "win":
            if board.is_nyugyoku():
                return mover, "impasse", moves, times
            return winner_if_mover_loses, "false_impasse_claim", moves, times
        mv = board.move_from_usi(best)
        if mv == 0 or not board.is_legal(mv):
            return winner_if_mover_loses, f"illegal_move {best}", moves, times
        board.push(mv)
        moves.append(best)
        gave_check.append(board.is_check())
        key = board.zobrist_hash()
        seen = history.setdefault(key, [])
        seen.append(len(moves))
        if len(seen) >= 4:
            first = seen[0]
            # Moves of the cycle: plies first+1 .. now; the side that moved last is `mover`.
            cycle = list(range(first, len(moves)))
            mover_checks = all(gave_check[i] for i in cycle if (i - len(moves) + 1) % 2 == 0)
            other_checks = all(gave_check[i] for i in cycle if (i - len(moves) + 1) % 2 != 0)
            if mover_checks:
                return winner_if_mover_loses, "perpetual_check", moves, times
            if other_checks:
                return mover, "perpetual_check", moves, times
            return "draw", "repetition", moves, times


def elo_of(score):
    if score <= 0:
        return float("-inf")
    if score >= 1:
        return float("inf")
    return -400 * math.log10(1 / score - 1)


def elo(score, n):
    """Elo difference of the score and its 95% Wilson interval (finite even at 100%)."""
    if n == 0:
        return float("nan"), (float("nan"), float("nan"))
    z = 1.96
    centre = (score + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(score * (1 - score) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return elo_of(score), (elo_of(centre - half), elo_of(centre + half))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for side in ("a", "b"):
        p.add_argument(f"--{side}-cmd", required=True)
        p.add_argument(f"--{side}-name", default=side.upper())
        p.add_argument(f"--{side}-opt", action="append", default=[], help="Name=Value")
        p.add_argument(f"--{side}-drops-at", action="store_true",
                       help="engine writes drops as P@5e (sjaakii): translate to and from P*5e")
        p.add_argument(f"--{side}-movetime", action="store_true",
                       help="send `go movetime BYOYOMI` (sjaakii ignores byoyomi)")
        p.add_argument(f"--{side}-go-nodes", type=int, default=0,
                       help="send this engine `go nodes N` instead (time is then not scored for it)")
    p.add_argument("--games", type=int, default=20)
    p.add_argument("--byoyomi", type=int, default=1000, help="ms per move")
    p.add_argument("--nodes", type=int, default=0, help="also send `go nodes N`")
    p.add_argument("--nodes-only", action="store_true",
                   help="do not score slow moves as time losses (node-limited matches)")
    p.add_argument("--tolerance", type=int, default=300, help="ms allowed beyond byoyomi")
    p.add_argument("--hang", type=float, default=10.0, help="seconds before a silent engine loses")
    p.add_argument("--max-plies", type=int, default=256)
    p.add_argument("--first-opening", type=int, default=0)
    p.add_argument("--out", default=None, help="append one JSON line per game")
    args = p.parse_args()

    for opening in OPENINGS:
        b = cshogi.Board()
        for mv in opening:
            m = b.move_from_usi(mv)
            assert m and b.is_legal(m), f"bad opening {opening}"
            b.push(m)

    def opts(items):
        out = []
        for item in items:
            key, _, value = item.partition("=")
            out.append((key, value))
        return out

    a_spec = (args.a_name, args.a_cmd, opts(args.a_opt), args.a_drops_at, args.a_movetime, args.a_go_nodes)
    b_spec = (args.b_name, args.b_cmd, opts(args.b_opt), args.b_drops_at, args.b_movetime, args.b_go_nodes)
    wins = draws = losses = 0
    reasons = {}
    a_max_time = b_max_time = 0.0
    out = open(args.out, "a") if args.out else None
    for g in range(args.games):
        opening = OPENINGS[(args.first_opening + g // 2) % len(OPENINGS)]
        a_sente = g % 2 == 0
        specs = (a_spec, b_spec) if a_sente else (b_spec, a_spec)
        engines = []
        try:
            for name, cmd, options, drops_at, movetime, go_nodes in specs:
                engines.append(Engine(name, cmd, options, drops_at, movetime, go_nodes))
            for e in engines:
                e.new_game()
            result, reason, moves, times = play_game(engines, opening, args)
        except EngineError as e:
            # A failure outside a move (start-up, new game): the failing engine loses.
            failed = str(e).split(":")[0]
            result = "gote" if failed == specs[0][0] else "sente"
            reason, moves, times = f"crash ({e})", list(opening), {0: [], 1: []}
        a_color = "sente" if a_sente else "gote"
        a_times = times[0 if a_sente else 1]
        b_times = times[1 if a_sente else 0]
        a_max_time = max([a_max_time] + a_times)
        b_max_time = max([b_max_time] + b_times)
        if result == "draw":
            draws += 1
            outcome = ("draw", "draw")
        elif result == a_color:
            wins += 1
            outcome = ("win", "lose")
        else:
            losses += 1
            outcome = ("lose", "win")
        for e, o in zip(engines, outcome if a_sente else outcome[::-1]):
            e.game_over(o)
            e.close()
        reasons[reason.split(" ")[0]] = reasons.get(reason.split(" ")[0], 0) + 1
        line = {
            "game": g, "sente": specs[0][0], "gote": specs[1][0], "opening": opening,
            "result": result, "reason": reason, "plies": len(moves), "moves": moves,
            "max_move_seconds": {specs[0][0]: max(times[0], default=0), specs[1][0]: max(times[1], default=0)},
        }
        if out:
            out.write(json.dumps(line) + "\n")
            out.flush()
        print(f"game {g + 1}/{args.games}: {specs[0][0]} (sente) vs {specs[1][0]} (gote): "
              f"{result} by {reason} after {len(moves)} plies | {args.a_name} +{wins} ={draws} -{losses}",
              flush=True)
    n = wins + draws + losses
    score = (wins + 0.5 * draws) / n if n else 0.0
    e, (lo, hi) = elo(score, n)
    print(f"reasons: {reasons}")
    print(f"slowest move: {args.a_name} {a_max_time:.3f}s, {args.b_name} {b_max_time:.3f}s")
    print(f"{args.a_name} vs {args.b_name}: +{wins} ={draws} -{losses} score {score:.3f} "
          f"elo {e:+.0f} (95% interval {lo:+.0f} .. {hi:+.0f})")


if __name__ == "__main__":
    sys.exit(main())
