#!/usr/bin/env bash
# Head-to-head SPRT between two council-engine builds, run by council-match: NEW against BASE,
# colour-swapped pairs over the openings book, stopping when the SPRT decides.
#
# Why: every engine change is accepted only on a measured result against a frozen copy of the
# previous build (copy target/release/council-engine somewhere before changing it).
#
#   engine/scripts/selfplay.sh NEW BASE LIMIT [GAMES] [ELO0] [ELO1] [OUT]
#     LIMIT   nodes=N (search and evaluation quality; deterministic) or byoyomi=MS (speed counts)
#     GAMES   the most games played (default 400); ELO0/ELO1 logistic Elo (default 0 / 25)
#   e.g. engine/scripts/selfplay.sh /tmp/council-new /tmp/council-base nodes=50000
#
# Extra environment: CONCURRENCY (default 2; use 1 when timing matters), SEED (default 1),
# OPENINGS (default engine/scripts/openings.txt).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
new="$(realpath "$1")"
base="$(realpath "$2")"
limit="$3"
games="${4:-400}"
elo0="${5:-0}"
elo1="${6:-25}"
out="${7:-$root/runs/selfplay-$(date +%Y%m%d-%H%M%S)}"
openings="$(realpath "${OPENINGS:-$here/openings.txt}")"
case "$limit" in
  nodes=*) limit_line="nodes = ${limit#nodes=}" ;;
  byoyomi=*) limit_line="byoyomi_ms = ${limit#byoyomi=}" ;;
  *) echo "LIMIT must be nodes=N or byoyomi=MS, not '$limit'" >&2; exit 2 ;;
esac
mkdir -p "$out"
cat > "$out/selfplay.toml" <<EOF
# Written by engine/scripts/selfplay.sh: $new against $base at $limit.
[match]
format = "head-to-head"
players = ["new", "base"]
games = $games
max_plies = 320
seed = ${SEED:-1}
openings = "$openings"
timeout_margin_ms = 300
sprt = { elo0 = $elo0, elo1 = $elo1, model = "logistic" }

[[player]]
name = "new"
kind = "usi"
command = "$new"
options = { USI_Hash = 64 }
$limit_line

[[player]]
name = "base"
kind = "usi"
command = "$base"
options = { USI_Hash = 64 }
$limit_line
EOF
exec "$root/target/release/council-match" "$out/selfplay.toml" \
  --concurrency "${CONCURRENCY:-2}" --out "$out" --quiet
