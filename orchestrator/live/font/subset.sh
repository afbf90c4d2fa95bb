#!/usr/bin/env bash
# Builds the live page's kanji font, src/assets/font/kanji.woff2, and its licence,
# src/assets/font/OFL.txt, from Debian's fonts-noto-cjk (SIL Open Font License 1.1):
#
#   bash orchestrator/live/font/subset.sh
#
# The font is Noto Serif CJK JP Regular cut down by fontTools' pyftsubset to the characters of
# glyphs.txt (beside this script): the pieces, their promoted forms, the KIF move words, the
# rank numerals and full-width file digits, ▲△☗☖, and the Japanese names of the opening
# families. Add a character there and run this again when the page shows a new one (the live
# crate's tests fail until then). The build is reproducible: the same package and the pinned
# fontTools of requirements.txt give the same bytes.
#
# Needs Debian's fonts-noto-cjk (apt-get install -y fonts-noto-cjk) and python3 with venv; the
# pinned fontTools and brotli are installed into a temporary virtual environment, never into
# the system Python.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
OUT="$(dirname "$HERE")/src/assets/font"
SOURCE=/usr/share/fonts/opentype/noto/NotoSerifCJK-Regular.ttc
COPYRIGHT=/usr/share/doc/fonts-noto-cjk/copyright

say() { printf 'subset.sh: %s\n' "$*" >&2; }

if [ ! -f "$SOURCE" ] || [ ! -f "$COPYRIGHT" ]; then
    say "no $SOURCE: install Debian's fonts-noto-cjk (apt-get install -y fonts-noto-cjk)"
    exit 1
fi
VERSION="$(dpkg-query -W -f='${Version}' fonts-noto-cjk)"

VENV="$(mktemp -d)"
trap 'rm -rf "$VENV"' EXIT
python3 -m venv "$VENV"
"$VENV/bin/pip" install --quiet --disable-pip-version-check -r "$HERE/requirements.txt"

mkdir -p "$OUT"
# Font 0 of the collection is the Japanese one. No hinting, subroutines or layout features:
# the page draws single characters at fixed sizes, so they would only add bytes. Every name
# record is kept, the copyright and the licence (name IDs 0, 13, 14) among them.
"$VENV/bin/pyftsubset" "$SOURCE" \
    --font-number=0 \
    --text-file="$HERE/glyphs.txt" \
    --flavor=woff2 \
    --no-hinting \
    --desubroutinize \
    --layout-features='' \
    --name-IDs='*' \
    --output-file="$OUT/kanji.woff2"

# The licence beside the font: the font's own copyright line, then the OFL's text as Debian's
# package states it.
"$VENV/bin/python" - "$OUT/kanji.woff2" "$COPYRIGHT" "$VERSION" >"$OUT/OFL.txt" <<'EOF'
import sys
from fontTools.ttLib import TTFont

font, copyright_file, version = sys.argv[1:]
names = TTFont(font)["name"]
print("kanji.woff2 is a subset of Noto Serif CJK JP Regular (Debian's fonts-noto-cjk", version + "),")
print("made by orchestrator/live/font/subset.sh for the live page of council.")
print()
print("Noto Serif CJK JP:", names.getDebugName(0))
print(names.getDebugName(7))
print()
lines = open(copyright_file, encoding="utf-8").read().splitlines()
# The stanza that holds the licence's text (the first mention only names it).
start = next(
    i + 1
    for i, line in enumerate(lines[:-1])
    if line == "License: SIL-1.1" and lines[i + 1].startswith(" ")
)
for line in lines[start:]:
    if not line.startswith(" "):
        break
    text = line[1:]
    print("" if text == "." else text)
EOF
say "wrote $OUT/kanji.woff2 ($(stat -c %s "$OUT/kanji.woff2") bytes, sha256 $(sha256sum "$OUT/kanji.woff2" | cut -d' ' -f1)) and $OUT/OFL.txt"
