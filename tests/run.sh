#!/usr/bin/env bash
# One command that sets up and runs all the tests, on a fresh Debian machine (as root or with
# sudo) or again on one already set up:
#
#   bash tests/run.sh                   # set up, then `cargo test --workspace --release`
#   bash tests/run.sh -p council-tests --test match_engines   # set up, then `cargo test --release ARGS`
#   bash tests/run.sh --setup-only      # set up only
#
# What it sets up (each step is skipped when already done, so a second run goes straight to cargo):
#   1. Debian packages: the real USI engines the tests play against (gpsshogi, fairy-stockfish,
#      sjaakii), python3 with python3-venv, slurm-wlm with munge for the one-node Slurm
#      cluster the shard tests start (configs/slurm/local-cluster.sh), chromium with its
#      WebDriver for the live page, and fontconfig with fonts-dejavu-core, the only fonts the
#      live page's no-CJK test lets chromium see (apt-get, only for those missing).
#   2. A project-local Python virtual environment, .venv/ at the workspace root (gitignored), with
#      tests/requirements.txt (cshogi, choix: the independent referees) installed into it, never
#      into the system Python. Re-installed only when tests/requirements.txt changes.
#   3. COUNCIL_PYTHON=<root>/.venv/bin/python, the interpreter every test helper runs under
#      (tests/support/python.rs; without the variable the tests look for .venv/ themselves).
# It needs a Rust toolchain (cargo) on PATH.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$(pwd)"

say() { printf 'tests/run.sh: %s\n' "$*" >&2; }

# 1. Debian packages.
PACKAGES=(gpsshogi fairy-stockfish sjaakii python3 python3-venv slurm-wlm munge chromium chromium-driver
    fontconfig fonts-dejavu-core)
missing=()
for p in "${PACKAGES[@]}"; do
    status="$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)"
    [ "$status" = "install ok installed" ] || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
    SUDO=""
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null || {
            say "need root or sudo to install: ${missing[*]}"
            exit 1
        }
        SUDO="sudo"
    fi
    say "installing Debian packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq "${missing[@]}"
else
    say "Debian packages present: ${PACKAGES[*]}"
fi

# 2. The virtual environment, made by Debian's python3 (the one python3-venv serves).
VENV="$ROOT/.venv"
REQS="$ROOT/tests/requirements.txt"
STAMP="$VENV/.requirements.sha256"
BASE_PYTHON=/usr/bin/python3
[ -x "$BASE_PYTHON" ] || BASE_PYTHON="$(command -v python3)"
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c 'import sys' 2>/dev/null; then
    say "creating $VENV with $BASE_PYTHON"
    rm -rf "$VENV"
    "$BASE_PYTHON" -m venv "$VENV"
fi
want="$(sha256sum "$REQS" | cut -d' ' -f1)"
have="$(cat "$STAMP" 2>/dev/null || true)"
if [ "$want" != "$have" ]; then
    say "installing $REQS into $VENV"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -r "$REQS"
    echo "$want" >"$STAMP"
else
    say "$VENV is up to date with $REQS"
fi
# Fail here, not in the middle of the tests, if the referees do not import.
"$VENV/bin/python" -c 'import cshogi, choix' || {
    say "cshogi or choix does not import in $VENV; delete $VENV and run again"
    exit 1
}

# 3. The tests, under the venv's Python.
export COUNCIL_PYTHON="$VENV/bin/python"
if [ "${1:-}" = "--setup-only" ]; then
    say "set up; COUNCIL_PYTHON=$COUNCIL_PYTHON"
    exit 0
fi
if [ "$#" -eq 0 ]; then
    set -- --workspace
fi
say "cargo test --release $*"
exec cargo test --release "$@"
