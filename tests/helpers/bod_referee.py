#!/usr/bin/env python3
"""An independent reading of a KIF board diagram (BOD) with cshogi (PyPI), for the Rust tests.

Usage: bod_referee.py FILE [SFEN]
FILE is UTF-8 text holding one diagram (bare, or at the head of a KIF). Prints one JSON object:
  {"sfen": ..., "legal_moves": N, "bod": ...}
  "sfen"        the diagram's position as cshogi's Board writes it,
  "legal_moves" how many legal moves cshogi finds there,
  "bod"         cshogi's own drawing of that position (Board.to_bod),
and, with SFEN, "bod_of_sfen": cshogi's drawing of SFEN (to compare with our writer's).

cshogi 1.1's KIF.Parser does not read diagrams (it skips the grid and compares the hands with
`==` instead of assigning them), so the grid and hands are read here, with cshogi's own symbol
tables (KIF.PIECE_BOD_SYMBOLS, HAND_PIECE_JAPANESE_SYMBOLS, NUMBER_JAPANESE_KANJI_SYMBOLS)
mapping each square and hand to cshogi's piece codes, and the position is built by
cshogi.Board.set_pieces: no code is shared with the Rust reader (rsshogi).
Exits non-zero (loudly) if cshogi is missing or the diagram is malformed.
"""
import json
import sys

try:
    import cshogi
    from cshogi import KIF
except ImportError as exc:
    sys.stderr.write(f"bod_referee.py: cannot import cshogi ({exc}); run `bash tests/run.sh` to set up .venv/\n")
    sys.exit(3)


def hands_of(text):
    """cshogi hand counts (歩香桂銀金角飛) of a value like `角 金 桂 歩四` or `なし`."""
    counts = [0] * 7
    text = text.strip()
    if text in ("", "なし"):
        return counts
    for item in text.replace("　", " ").split():
        piece = cshogi.HAND_PIECE_JAPANESE_SYMBOLS.index(item[0])
        number = item[1:]
        counts[piece] += cshogi.NUMBER_JAPANESE_KANJI_SYMBOLS.index(number) if number else 1
    return counts


def read(text):
    lines = text.replace("\r\n", "\n").split("\n")
    hands = [[0] * 7, [0] * 7]
    pieces = [cshogi.NONE] * 81
    gote_to_move = False
    rows = [l for l in lines if l.startswith("|")]
    if len(rows) != 9:
        raise ValueError(f"{len(rows)} grid rows, 9 expected")
    for rank, row in enumerate(rows):
        cells = row.split("|")[1]
        if len(cells) != 18:
            raise ValueError(f"grid row {rank + 1}: {len(cells)} characters, 18 expected")
        for i in range(9):
            symbol = cells[2 * i: 2 * i + 2].replace("王", "玉").replace("竜", "龍")
            file = 9 - i
            # cshogi squares: (file - 1) * 9 + (rank - 1), 9a first.
            pieces[(file - 1) * 9 + rank] = KIF.PIECE_BOD_SYMBOLS.index(symbol)
    for line in lines:
        line = line.strip()
        for key, side in (("先手の持駒", 0), ("下手の持駒", 0), ("後手の持駒", 1), ("上手の持駒", 1)):
            if line.startswith(key):
                hands[side] = hands_of(line[len(key):].lstrip("：:"))
        if line in ("後手番", "上手番"):
            gote_to_move = True
    board = cshogi.Board()
    board.set_pieces(pieces, (hands[0], hands[1]))
    if gote_to_move:
        fields = board.sfen().split(" ")
        fields[1] = "w"
        board.set_sfen(" ".join(fields))
    return board


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        board = read(f.read())
    out = {
        "sfen": board.sfen(),
        "legal_moves": len(list(board.legal_moves)),
        "bod": board.to_bod(),
    }
    if len(sys.argv) > 2:
        out["bod_of_sfen"] = cshogi.Board(sys.argv[2]).to_bod()
    print(json.dumps(out, ensure_ascii=False))


if __name__ == "__main__":
    main()
