#!/usr/bin/env python3
"""Builds a book of balanced, varied opening lines for engine matches.

Why: self-play at a fixed node budget is deterministic, so a match needs many distinct start
positions, and they should be balanced so that games are decided by the engines rather than
by the opening. Lines are chosen by an independent engine (Fairy-Stockfish by default), not by
the engine under test, so the book does not favour its tastes.

How: from the start position, for a number of plies drawn from [--min-plies, --max-plies],
ask the engine for its best --multipv moves at --nodes and play one of those within --window
centipawns of the best, chosen at random (seeded: the same seed gives the same book). Keep the
line if a deeper look (--check-nodes) scores it within --balance centipawns, and drop
duplicates. cshogi checks every move. Output: one `startpos moves ...` line per opening, the
format `council-match` reads from `match.openings`.

Usage (from the repository root):
  python3 engine/scripts/make_openings.py --count 200 --seed 1 > engine/scripts/openings.txt
"""

import argparse
import random
import subprocess
import sys

import cshogi


class Usi:
    """A USI engine driven line by line (the book is built offline: no timeouts needed)."""

    def __init__(self, cmd, options):
        self.proc = subprocess.Popen(cmd, shell=True, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     text=True, bufsize=1)
        self.send("usi")
        self.wait("usiok")
        for key, value in options:
            self.send(f"setoption name {key} value {value}")
        self.send("isready")
        self.wait("readyok")

    def send(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def wait(self, token):
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("engine exited")
            if line.strip() == token:
                return

    def lines(self, moves, nodes):
        """The last reported (score cp, first move) of each MultiPV line."""
        pos = "position startpos" + (" moves " + " ".join(moves) if moves else "")
        self.send(pos)
        self.send(f"go nodes {nodes}")
        best = {}
        while True:
            tokens = self.proc.stdout.readline().split()
            if not tokens:
                continue
            if tokens[0] == "bestmove":
                return [best[k] for k in sorted(best)]
            if tokens[0] != "info" or "pv" not in tokens or "score" not in tokens:
                continue
            k = int(tokens[tokens.index("multipv") + 1]) if "multipv" in tokens else 1
            i = tokens.index("score")
            kind, value = tokens[i + 1], int(tokens[i + 2])
            cp = value if kind == "cp" else (100000 if value > 0 else -100000)
            best[k] = (cp, tokens[tokens.index("pv") + 1])

    def close(self):
        self.send("quit")
        self.proc.wait(timeout=5)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--engine", default="/usr/games/fairy-stockfish")
    p.add_argument("--count", type=int, default=200)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--min-plies", type=int, default=6)
    p.add_argument("--max-plies", type=int, default=14)
    p.add_argument("--multipv", type=int, default=5)
    p.add_argument("--nodes", type=int, default=20000)
    p.add_argument("--window", type=int, default=60, help="cp below the best still playable")
    p.add_argument("--check-nodes", type=int, default=200000)
    p.add_argument("--balance", type=int, default=150, help="max |cp| of a kept line")
    args = p.parse_args()

    rng = random.Random(args.seed)
    picker = Usi(args.engine, [("MultiPV", args.multipv), ("Threads", 1)])
    judge = Usi(args.engine, [("MultiPV", 1), ("Threads", 1)])
    seen = set()
    tries = 0
    while len(seen) < args.count and tries < args.count * 10:
        tries += 1
        board = cshogi.Board()
        moves = []
        for _ in range(rng.randint(args.min_plies, args.max_plies)):
            lines = picker.lines(moves, args.nodes)
            top = lines[0][0]
            choices = sorted(mv for cp, mv in lines if cp >= top - args.window)
            mv = rng.choice(choices)
            usi_move = board.move_from_usi(mv)
            if usi_move == 0 or not board.is_legal(usi_move):
                raise RuntimeError(f"illegal move {mv} after {' '.join(moves)}")
            board.push(usi_move)
            moves.append(mv)
        line = " ".join(moves)
        if line in seen or board.is_game_over():
            continue
        cp, _ = judge.lines(moves, args.check_nodes)[0]
        if abs(cp) > args.balance:
            continue
        seen.add(line)
        print(f"startpos moves {line}", flush=True)
        print(f"{len(seen)}/{args.count} (tries {tries}) cp {cp}", file=sys.stderr)
    picker.close()
    judge.close()


if __name__ == "__main__":
    main()
