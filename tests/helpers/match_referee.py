#!/usr/bin/env python3
"""Independent referee for council-match's games, built on cshogi (PyPI).

Usage: match_referee.py RUN_FOLDER
Reads RUN_FOLDER/results.jsonl and checks every game with cshogi, not with our rules code:
  - every move is in cshogi's legal-move list (which excludes pawn-drop mate) at its turn;
  - the ending fits the position: `checkmate` leaves the side to move without a legal move and
    the other side won; `resign`/`illegal_move`/... the side to move lost; `repetition` and
    `perpetual_check` end on a position seen for the fourth time; `max_plies` is a draw at the
    limit given as the second argument (if any); no game has a legal move left yet claims mate;
  - its CSA and KIF records (RUN_FOLDER/records/<id>-*.csa|.kif), read by cshogi's own parsers,
    hold the same start, moves and winner (the `.kif` read as Shift_JIS by cshogi's file reader;
    KIF only when it has no board diagram: cshogi's KIF reader does not read those, so games
    from other start positions are checked by CSA alone).
Prints one line per game, `ok <id>` or `bad <id>: <problem>`. Exits non-zero (loudly) if cshogi
is missing: the Rust test reports that as a failure, never a skip.
"""
import glob
import json
import os
import sys

try:
    import cshogi
    from cshogi import CSA, KIF
except ImportError as exc:
    sys.stderr.write(f"match_referee.py: cannot import cshogi ({exc}); run `bash tests/run.sh` to set up .venv/\n")
    sys.exit(3)

# Endings where the side to move when the game stopped is the loser.
MOVER_LOSES = {"resign", "illegal_move", "malformed_move", "timeout", "crash", "illegal_impasse"}


def position_key(board):
    """Board, hands and side to move, without the move number."""
    return " ".join(board.sfen().split(" ")[:3])


def check_game(folder, game, max_plies):
    board = cshogi.Board(game["start"])
    seen = {position_key(board): 1}
    for i, usi in enumerate(game["moves"]):
        legal = {cshogi.move_to_usi(m) for m in board.legal_moves}
        if usi not in legal:
            return f"move {i + 1} `{usi}` is not legal in {board.sfen()}"
        board.push_usi(usi)
        key = position_key(board)
        seen[key] = seen.get(key, 0) + 1
    if len(game["moves"]) != game["plies"]:
        return f"plies {game['plies']} but {len(game['moves'])} moves"
    mover = "sente" if board.turn == cshogi.BLACK else "gote"
    other = "gote" if mover == "sente" else "sente"
    reason, result = game["reason"], game["result"]
    no_move = not any(True for _ in board.legal_moves)
    if reason == "checkmate":
        if not no_move:
            return f"`checkmate` but {mover} has legal moves in {board.sfen()}"
        if result != other:
            return f"`checkmate` of {mover} but the result is {result}"
    elif no_move:
        return f"{mover} has no legal move, yet the game ended by {reason}"
    elif reason in MOVER_LOSES:
        if result != other:
            return f"{reason} by the side to move ({mover}) but the result is {result}"
    elif reason in ("repetition", "perpetual_check"):
        if seen[position_key(board)] < 4:
            return f"{reason} but the last position occurred {seen[position_key(board)]} times"
        if reason == "repetition" and result != "draw":
            return f"repetition is a draw, not {result}"
    elif reason == "max_plies":
        if result != "draw" or (max_plies is not None and game["plies"] != max_plies):
            return f"max_plies: result {result} after {game['plies']} plies"
    elif reason == "impasse":
        if result != mover:
            return f"impasse declared by {mover} but the result is {result}"
    winner = {"sente": cshogi.BLACK + 1, "gote": cshogi.WHITE + 1, "draw": 0}[result]
    stem = os.path.join(folder, "records", f"{game['id']:04d}-")
    for ext in ("csa", "kif"):
        paths = glob.glob(stem + "*." + ext)
        if len(paths) != 1:
            return f"{len(paths)} {ext.upper()} records"
        # `.kif` is Shift_JIS (CP932), as cshogi's file reader (and Japanese tools) read it.
        with open(paths[0], encoding="utf-8" if ext == "csa" else "cp932") as f:
            text = f.read()
        if ext == "kif" and "+---" in text:
            # cshogi's KIF reader ignores board diagrams (it would replay the moves from the
            # even start); the CSA record of the same game is checked in full.
            continue
        parsed = CSA.Parser.parse_str(text)[0] if ext == "csa" else KIF.Parser.parse_file(paths[0])
        moves = [cshogi.move_to_usi(m) for m in parsed.moves]
        if moves != game["moves"]:
            return f"the {ext.upper()} record's moves differ from results.jsonl"
        if " ".join(parsed.sfen.split(" ")[:3]) != " ".join(game["start"].split(" ")[:3]):
            return f"the {ext.upper()} record starts from {parsed.sfen}, not {game['start']}"
        # cshogi leaves `win` unset for endings it does not name; a named ending must agree.
        if parsed.win is not None and winner and int(parsed.win) != winner:
            return f"the {ext.upper()} record's winner is {parsed.win}, results.jsonl says {result}"
    return None


def main():
    folder = sys.argv[1]
    max_plies = int(sys.argv[2]) if len(sys.argv) > 2 else None
    with open(os.path.join(folder, "results.jsonl"), encoding="utf-8") as f:
        games = [json.loads(line) for line in f if line.strip()]
    for game in sorted(games, key=lambda g: g["id"]):
        problem = check_game(folder, game, max_plies)
        print(f"ok {game['id']}" if problem is None else f"bad {game['id']}: {problem}", flush=True)


if __name__ == "__main__":
    main()
