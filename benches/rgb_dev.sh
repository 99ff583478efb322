#!/usr/bin/env bash
# The public RGB benchmark split (Chen et al., AAAI-24), offline: every case of
# rgb-dev run with the extractive model in a private network namespace (no
# packet leaves it), scored with the split's own score.py, tallied per
# condition. Not a test: it measures and prints. The data is CC BY-NC-SA and
# is never copied here: point DRA_RGB_DEV at the folder.
#   usage: DRA_RGB_DEV=/path/to/rgb-dev benches/rgb_dev.sh [filter] [jobs]
#   filter: a grep pattern on case ids (default: every case); jobs: default 2
#   DRA_BIN=target/release/dra to measure another build (default: debug).
#   Per-case lines go to $RGB_OUT (default /tmp/rgb-dev.scores).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
rgb=${DRA_RGB_DEV:?set DRA_RGB_DEV to the rgb-dev folder}
filter=${1:-.}
jobs=${2:-2}
bin=$(realpath "${DRA_BIN:-target/debug/dra}")
out=${RGB_OUT:-/tmp/rgb-dev.scores}
[ -x "$bin" ] || { echo "no dra binary at $bin: cargo build first" >&2; exit 2; }
command -v unshare >/dev/null || { echo "unshare is needed (util-linux)" >&2; exit 2; }

one() {
  local id=$1 corpus=$2 question=$3 h r rc=0
  h=$(mktemp -d); r=$(mktemp -d)
  unshare --net -- bash -c 'ip link set lo up 2>/dev/null; exec "$@"' _ \
    env -i PATH="$PATH" HOME="$h" LANG=C.UTF-8 \
    "$bin" ask --json --no-memory --corpus "$corpus" --runs-dir "$r" "$question" \
    </dev/null >/dev/null 2>&1 || rc=$?
  # One file per case: parallel jobs never share an output stream.
  python3 "$rgb/score.py" "$r" "$id" > "$lines/$id" 2>&1 \
    || { [ -s "$lines/$id" ] || echo "$id: wrong: score.py failed (exit $rc)" > "$lines/$id"; }
  rm -rf "$h" "$r"
}
lines=$(mktemp -d)
trap 'rm -rf "$lines"' EXIT
export -f one
export bin rgb lines

python3 "$rgb/score.py" --list | grep -E "^[^	]*($filter)" \
  | tr '\t\n' '\0\0' | xargs -0 -n 3 -P "$jobs" bash -c 'one "$@"' _
cat "$lines"/* | sort > "$out"

echo "rgb-dev offline ($(wc -l < "$out") cases; per case: $out)"
printf '%-16s %7s %7s\n' condition right of
for c in noise0.0 noise0.4 noise0.8 reject counterfactual zh-integration; do
  n=$(grep -c "^$c-" "$out" || true)
  [ "$n" = 0 ] && continue
  k=$(grep -c "^$c-q[0-9]*: right" "$out" || true)
  printf '%-16s %7s %7s\n' "$c" "$k" "$n"
done
