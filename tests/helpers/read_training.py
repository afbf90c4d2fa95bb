#!/usr/bin/env python3
"""Reads a training data file with cshogi's own record types (PyPI), as trainers do.

Usage: read_training.py psv|hcpe FILE
Reads FILE whole as a numpy array of cshogi.PackedSfenValue (40 bytes) or
cshogi.HuffmanCodedPosAndEval (38 bytes) and prints one JSON line per record, in file order:
  psv:  {"sfen": BOARD SIDE HANDS, "move": USI, "score": N, "ply": N, "result": 1|0|-1,
         "padding": N}
  hcpe: {"sfen": BOARD SIDE HANDS, "move": USI, "score": N, "result": "sente"|"gote"|"draw",
         "dummy": N}
The position is set by cshogi.Board.set_psfen / set_hcp and the move decoded against it by
move_from_psv / move_from_move16, so a record cshogi cannot read fails here. A file whose size
is not a whole number of records is an error. Exits non-zero (loudly) if cshogi is missing.
"""
import json
import os
import sys

try:
    import cshogi
    import numpy as np
except ImportError as exc:
    sys.stderr.write(f"read_training.py: cannot import cshogi ({exc}); run `bash tests/run.sh` to set up .venv/\n")
    sys.exit(3)

RESULT = {cshogi.BLACK_WIN: "sente", cshogi.WHITE_WIN: "gote", cshogi.DRAW: "draw"}


def key(board):
    return " ".join(board.sfen().split(" ")[:3])


def main():
    fmt, path = sys.argv[1], sys.argv[2]
    dtype = {"psv": cshogi.PackedSfenValue, "hcpe": cshogi.HuffmanCodedPosAndEval}[fmt]
    size = os.path.getsize(path)
    if size % dtype.itemsize:
        raise SystemExit(f"{path}: {size} bytes is not a whole number of {dtype.itemsize}-byte records")
    records = np.fromfile(path, dtype=dtype)
    board = cshogi.Board()
    for i, r in enumerate(records):
        if fmt == "psv":
            board.set_psfen(r["sfen"])
            move = board.move_from_psv(int(r["move"]))
            line = {"sfen": key(board), "move": cshogi.move_to_usi(move), "score": int(r["score"]),
                    "ply": int(r["gamePly"]), "result": int(r["game_result"]), "padding": int(r["padding"])}
        else:
            board.set_hcp(r["hcp"])
            move = board.move_from_move16(int(r["bestMove16"]) & 0xFFFF)
            line = {"sfen": key(board), "move": cshogi.move_to_usi(move), "score": int(r["eval"]),
                    "result": RESULT[int(r["gameResult"])], "dummy": int(r["dummy"])}
        if not board.is_legal(move):
            raise SystemExit(f"{path}: record {i}: move {line['move']} is not legal in {line['sfen']}")
        print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()
