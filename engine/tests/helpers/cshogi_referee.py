#!/usr/bin/env python3
"""Independent referee for the engine's rules tests, built on cshogi (PyPI).

Commands (all read stdin, write stdout, one answer line per input line):
  perft    input  `<depth> <sfen>`   output `<count>`
  legal    input  `<sfen>`           output `<in_check 0|1> <sorted USI moves...>`
  record   input  `<path>.csa|.kif`  output tab-separated: sfen, USI moves, sente|gote names,
                                     win (0 none/draw, 1 sente, 2 gote, - unknown), end marker
  kif-file input  `<path>.kif|.kifu` as `record`, read by cshogi's own file reader, which
                                     decodes `.kif` as CP932 (Shift_JIS) and `.kifu` as UTF-8

cshogi's `legal_moves` lists every legal move including every legal non-promotion and excludes
pawn-drop mate, the same definition as ours. Exits non-zero (loudly) if cshogi is missing.
"""
import sys

try:
    import cshogi
except ImportError as exc:  # never skip: the Rust test reports this as a failure
    sys.stderr.write(f"cshogi_referee.py: cannot import cshogi ({exc}); run `bash tests/run.sh` to set up .venv/\n")
    sys.exit(3)


def perft(board, depth):
    if depth == 0:
        return 1
    moves = list(board.legal_moves)
    if depth == 1:
        return len(moves)
    nodes = 0
    for move in moves:
        board.push(move)
        nodes += perft(board, depth - 1)
        board.pop()
    return nodes


def read_record(path, by_file=False):
    """Reads a record with cshogi's own CSA or KIF parser."""
    from cshogi import CSA, KIF
    if by_file:
        parsed = KIF.Parser.parse_file(path)
        return describe(parsed)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if path.endswith(".csa"):
        parsed = CSA.Parser.parse_str(text)[0]
    else:
        parsed = KIF.Parser.parse_str(text)
    return describe(parsed)


def describe(parsed):
    moves = " ".join(cshogi.move_to_usi(m) for m in parsed.moves)
    names = "|".join(n or "" for n in parsed.names)
    win = "-" if parsed.win is None else str(int(parsed.win))
    return "\t".join([parsed.sfen, moves, names, win, parsed.endgame or ""])


def main():
    command = sys.argv[1] if len(sys.argv) > 1 else ""
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        if command == "perft":
            depth, sfen = line.split(" ", 1)
            print(perft(cshogi.Board(sfen), int(depth)), flush=True)
        elif command == "record":
            print(read_record(line), flush=True)
        elif command == "kif-file":
            print(read_record(line, by_file=True), flush=True)
        elif command == "legal":
            board = cshogi.Board(line)
            moves = sorted(cshogi.move_to_usi(m) for m in board.legal_moves)
            print(" ".join([str(int(board.is_check()))] + moves), flush=True)
        else:
            sys.stderr.write(f"cshogi_referee.py: unknown command {command!r} (perft|legal)\n")
            sys.exit(2)


if __name__ == "__main__":
    main()
