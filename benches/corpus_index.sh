#!/usr/bin/env bash
# The on-disk corpus index at scale (issue 21): for a real documentation tree
# or a synthetic one, the first `dra index` (wall time, peak RSS), a second
# run's time to its first search results (`dra ask --json`, from the process
# start to the first `search_results` event), and a refresh after 10 files
# changed. Each measurement uses its own cache directory under a temporary
# folder; nothing is sent anywhere (offline runs, no model).
# Not a test: it measures and prints.
#   usage: benches/corpus_index.sh DIR            a real tree (it is not modified:
#                                                 the refresh step changes a copy of
#                                                 10 files in an overlay folder)
#          benches/corpus_index.sh --synthetic N  N generated HTML pages
#   DRA_BIN=path/to/dra (default target/release/dra)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bin=$(realpath "${DRA_BIN:-target/release/dra}")
[ -x "$bin" ] || { echo "no dra binary at $bin: cargo build --release first, or set DRA_BIN" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ "${1:-}" = "--synthetic" ]; then
  n=${2:-50000}
  tree="$work/tree"
  python3 - "$tree" "$n" <<'PY'
import os, random, sys
root, n = sys.argv[1], int(sys.argv[2])
rng = random.Random(7)
words = [w.strip() for w in open("src/answer/english_words.txt") if w.strip().isalpha()]
for i in range(n):
    d = os.path.join(root, f"part{i // 1000:03d}")
    os.makedirs(d, exist_ok=True)
    title = " ".join(rng.choice(words) for _ in range(4)).title()
    paras = "\n".join(
        "<p>" + " ".join(rng.choice(words) for _ in range(rng.randint(40, 120))) + ".</p>"
        for _ in range(rng.randint(3, 12)))
    with open(os.path.join(d, f"page{i:05d}.html"), "w") as f:
        f.write(f"<!doctype html><html><head><title>{title} {i}</title></head>"
                f"<body><h1>{title}</h1>{paras}</body></html>\n")
PY
else
  tree=${1:?usage: benches/corpus_index.sh DIR | --synthetic N}
  # A copy made of links: the refresh step replaces 10 of them with edited files.
  cp -rs "$(realpath "$tree")" "$work/tree"
  tree="$work/tree"
fi
files=$(find -L "$tree" -type f \( -name '*.htm*' -o -name '*.md' -o -name '*.txt' \) | wc -l)
env=(env XDG_CACHE_HOME="$work/cache" HOME="$work")
echo "tree: $files files, $(du -shL "$tree" 2>/dev/null | cut -f1); $bin; $(nproc) cores"
measure() {
  local label=$1; shift
  /usr/bin/time -v "$@" >"$work/out" 2>"$work/time" || { cat "$work/time" >&2; exit 1; }
  local wall rss
  wall=$(grep "Elapsed (wall clock)" "$work/time" | awk '{print $NF}')
  rss=$(grep "Maximum resident set size" "$work/time" | awk '{print $NF}')
  echo "  $label: wall $wall, peak RSS $(( rss / 1024 )) MB; $(head -1 "$work/out")"
}
measure "first index" "${env[@]}" "$bin" -q index "$tree"
measure "second index (nothing changed)" "${env[@]}" "$bin" -q index "$tree"
# Time to the first search results of a run over the indexed tree.
start=$(date +%s.%N)
first=$("${env[@]}" "$bin" --json --runs-dir "$work/runs" ask --no-memory --offline --corpus "$tree" \
  "How is the configuration file read?" 2>/dev/null \
  | while IFS= read -r line; do
      case $line in *'"type":"search_results"'*) date +%s.%N; break;; esac
    done)
echo "  second run, time to first search results: $(python3 -c "print(f'{$first - $start:.2f} s')")"
# Change 10 files (append a paragraph; a link is replaced by an edited copy).
find "$tree" -type l -name '*.htm*' | sed -n 1,10p > "$work/changed"
[ -s "$work/changed" ] || find "$tree" -type f -name '*.htm*' | sed -n 1,10p > "$work/changed"
while IFS= read -r f; do
  cp --remove-destination "$(realpath "$f")" "$f.tmp" && mv "$f.tmp" "$f"
  echo "<p>An added paragraph about refresh timing.</p>" >> "$f"
done < "$work/changed"
measure "refresh after changing 10 files" "${env[@]}" "$bin" -q index "$tree"
echo "  index on disk: $(du -sh "$work/cache/dra/corpora" | cut -f1)"
