#!/usr/bin/env python3
"""Reads every game record of a council-match run with cshogi's own file readers (PyPI).

Usage: read_records.py RUN_FOLDER
For each file in RUN_FOLDER/records/, sorted by name, prints one JSON line:
  {"file": NAME, "moves": [USI...], "sfen": START, "win": "sente"|"gote"|"draw"|null,
   "endgame": CSA-style ending or null}
or {"file": NAME, "error": "..."} when cshogi cannot read it. `.csa` files are read by
cshogi.CSA.Parser.parse_file and `.kif`/`.kifu` files by cshogi.KIF.Parser.parse_file, which
decodes `.kif` as Shift_JIS (CP932) and `.kifu` as UTF-8, as Japanese tools do: the file's
bytes are never decoded here. The Rust test compares these lines with results.jsonl.
Exits non-zero (loudly) if cshogi is missing: the Rust test reports that as a failure.
"""
import json
import os
import sys

try:
    import cshogi
    from cshogi import CSA, KIF
except ImportError as exc:
    sys.stderr.write(f"read_records.py: cannot import cshogi ({exc}); run `bash tests/run.sh` to set up .venv/\n")
    sys.exit(3)

WINNER = {cshogi.BLACK_WIN: "sente", cshogi.WHITE_WIN: "gote", cshogi.DRAW: "draw"}


def read(path):
    ext = os.path.splitext(path)[1]
    if ext == ".csa":
        games = CSA.Parser.parse_file(path)
        if len(games) != 1:
            raise ValueError(f"{len(games)} games in one CSA file")
        parsed = games[0]
    elif ext in (".kif", ".kifu"):
        parsed = KIF.Parser.parse_file(path)
    else:
        raise ValueError(f"not a record file: {ext}")
    return {
        "moves": [cshogi.move_to_usi(m) for m in parsed.moves],
        "sfen": parsed.sfen,
        "win": WINNER.get(parsed.win),
        "endgame": parsed.endgame,
    }


def main():
    records = os.path.join(sys.argv[1], "records")
    for name in sorted(os.listdir(records)):
        try:
            line = {"file": name, **read(os.path.join(records, name))}
        except Exception as exc:  # reported per file: the test names every unreadable one
            line = {"file": name, "error": f"{type(exc).__name__}: {exc}"}
        print(json.dumps(line, ensure_ascii=False), flush=True)


if __name__ == "__main__":
    main()
