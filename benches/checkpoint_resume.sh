#!/usr/bin/env bash
# Checkpoint and replay benchmark (not a test: it measures and prints).
#  - cost of checkpointing: records.jsonl bytes and lines per run, bytes per
#    step, and the run's wall time (every step waits for its record);
#  - replay speed: the same run cut back to the first 90% of its records
#    and half its events (as after a kill), then `dra resume`: steps
#    replayed per second and the resume's wall time.
#   usage: benches/checkpoint_resume.sh [runs] [debug|release]   (default 5 runs, release)
#   DRA_BIN=path skips the build; DRA_SYNC_MS / DRA_SYNC_LINES (group
#   commit) are passed through, e.g. DRA_SYNC_LINES=1 to fsync every line.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
runs=${1:-5}
profile=${2:-release}
if [ -n "${DRA_BIN:-}" ]; then bin=$DRA_BIN
elif [ "$profile" = release ]; then cargo build --release --locked -q; bin=target/release/dra
else cargo build --locked -q; bin=target/debug/dra; fi
question="Is PadmaPay (Kochi, India) a reliable payment-gateway partner for our D2C startup today? Check leadership, licence status, funding, reliability, security incidents, pricing and merchant sentiment."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME="$work/home" XDG_CONFIG_HOME="$work/home/config" XDG_DATA_HOME="$work/home/data" DRA_MEMORY=false
mkdir -p "$HOME"
for i in $(seq "$runs"); do
  rd="$work/runs$i"
  t0=$(date +%s.%N)
  "$bin" -q --runs-dir "$rd" ask "$question" >/dev/null
  t1=$(date +%s.%N)
  dir=$(ls -d "$rd"/*/)
  lines=$(wc -l < "$dir/records.jsonl"); bytes=$(wc -c < "$dir/records.jsonl")
  # Cut back as after a kill: 90% of the records, half the events.
  keep=$(( lines * 9 / 10 ))
  head -n "$keep" "$dir/records.jsonl" > "$dir/r" && mv "$dir/r" "$dir/records.jsonl"
  ev=$(wc -l < "$dir/events.jsonl")
  head -n $(( ev / 2 )) "$dir/events.jsonl" > "$dir/e" && mv "$dir/e" "$dir/events.jsonl"
  rm -f "$dir/report.md"
  t2=$(date +%s.%N)
  "$bin" -q --runs-dir "$rd" resume --last >/dev/null
  t3=$(date +%s.%N)
  echo "$(echo "$t1 - $t0" | bc) $lines $bytes $keep $(echo "$t3 - $t2" | bc)"
done > "$work/out"
echo "checkpoints and replay, offline run on the embedded corpus, $runs runs ($profile build, $(nproc) cores, group commit: ${DRA_SYNC_MS:-250} ms / ${DRA_SYNC_LINES:-32} lines)"
awk '{t+=$1; l+=$2; b+=$3; k+=$4; r+=$5} END {
  printf "  run: %.3f s, %d records, %.0f KB records.jsonl, %.0f bytes per step\n", t/NR, l/NR, b/NR/1024, b/l;
  printf "  resume after a cut to %d records: %.3f s (%.0f recorded steps replayed per second, run included)\n", k/NR, r/NR, k/r }' "$work/out"
