#!/usr/bin/env bash
# Whole-run benchmark: wall time and peak memory (max RSS) of the offline run
# on the embedded corpus, release build. Not a test: it measures and prints.
#   usage: benches/offline_run.sh [runs]      (default 20 runs)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
runs=${1:-20}
cargo build --release --locked -q
bin=target/release/dra
question="Is PadmaPay (Kochi, India) a reliable payment-gateway partner for our D2C startup today? Check leadership, licence status, funding, reliability, security incidents, pricing and merchant sentiment."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
times=()
rss=()
for i in $(seq "$runs"); do
  out=$( { /usr/bin/time -f "%e %M" "$bin" -q --runs-dir "$work/runs" ask "$question" >/dev/null; } 2>&1 | tail -1 )
  times+=("${out% *}")
  rss+=("${out#* }")
done
printf '%s\n' "${times[@]}" | sort -n > "$work/t"
printf '%s\n' "${rss[@]}" | sort -n > "$work/m"
median() { awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}' "$1"; }
echo "offline run on the embedded corpus, $runs runs (release build, $(nproc) cores)"
echo "  wall time s: median $(median "$work/t"), min $(head -1 "$work/t"), max $(tail -1 "$work/t")"
echo "  peak RSS MB: median $(awk '{print $1/1024}' "$work/m" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'), max $(awk '{print $1/1024}' "$work/m" | sort -n | tail -1)"
