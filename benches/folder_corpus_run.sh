#!/usr/bin/env bash
# Whole-run benchmark over a 1,000-page folder corpus: wall time and peak
# memory (max RSS) of `dra ask --corpus DIR` offline. The pages are the
# real-world-shaped pages of tests/corpora/realworld, each copied many times
# with its canonical URL, title and a few words varied (so that they are
# distinct documents, not copies the loader or the dedup folds together).
# Not a test: it measures and prints.
#   usage: benches/folder_corpus_run.sh [pages] [runs]   (default 1000 pages, 3 runs)
#   DRA_BIN=target/debug/dra to measure a debug build instead of release.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
pages=${1:-1000}
runs=${2:-3}
bin=${DRA_BIN:-target/release/dra}
if [ -z "${DRA_BIN:-}" ]; then cargo build --release --locked -q; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
corpus="$work/corpus"
mkdir -p "$corpus"
src=(tests/corpora/realworld/*.html)
words=(harbour council river market library festival bridge station garden museum)
for i in $(seq 1 "$pages"); do
  f=${src[$(( (i - 1) % ${#src[@]} ))]}
  base=$(basename "$f" .html)
  w=${words[$(( i % ${#words[@]} ))]}
  # Vary the canonical URL, the title and the body (a sentence naming the copy).
  sed -e "s#<link rel=\"canonical\" href=\"\([^\"]*\)\"#<link rel=\"canonical\" href=\"\1/v$i\"#I" \
      -e "s#<title>#<title>($w $i) #I" \
      -e "s#</body>#<p>Page $i of the sample: the $w report number $i was filed on day $(( i % 28 + 1 )).</p></body>#I" \
      "$f" > "$corpus/$base-$i.html"
done
question="When did the harbour bridge reopen and what did the council say about the cost?"
echo "folder corpus: $pages pages ($(du -sh "$corpus" | cut -f1)), $runs run(s), $bin, $(nproc) cores"
for r in $(seq "$runs"); do
  /usr/bin/time -v "$bin" -q --runs-dir "$work/runs" ask --no-memory --corpus "$corpus" "$question" \
    >"$work/out" 2>"$work/time" || true
  wall=$(grep "Elapsed (wall clock)" "$work/time" | awk '{print $NF}')
  rss=$(grep "Maximum resident set size" "$work/time" | awk '{print $NF}')
  echo "  run $r: wall $wall, peak RSS $(( rss / 1024 )) MB, $(tail -1 "$work/out")"
done
