#!/usr/bin/env bash
# Real documentation sets, offline: every case of tests/gold/realdocs/*.facts.json
# (questions over HTML manuals installed from Debian packages, nobody here
# wrote them) run with the extractive model in a private network namespace (no
# packet leaves it), scored by key facts: the share of a case's key facts
# (short exact strings from the manual) found in the report's `## Answer`
# section and anywhere in report.md. Tallied per set, per question kind and in
# total. Not a test: it measures and prints. The manuals are not copied here;
# this script installs nothing: it says which `apt-get install` is missing.
#   usage: benches/realdocs.sh [filter] [jobs]
#   filter: a grep pattern on case ids (default: every case); jobs: default 2
#   DRA_BIN=/path/to/dra to measure another build (default: target/debug/dra
#   of this checkout). Per-case lines go to $REALDOCS_OUT/scores (default
#   /tmp/realdocs), each case's report.md to $REALDOCS_OUT/reports/ID.md;
#   REALDOCS_TALLY_ONLY=1 scores the last run's saved reports again and
#   prints the tables, without running dra. Every run uses the manuals'
#   on-disk indexes under $REALDOCS_CACHE (default: the caller's ~/.cache;
#   the first run of a manual builds its index, the others wait for it).
#   DRA_EMBED_MODEL=DIR measures hybrid search: each run then also reads the
#   passage vectors `dra index` keeps there (run `dra index` on each manual
#   first to measure whole-corpus dense ranking).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
filter=${1:-.}
jobs=${2:-2}
bin=$(realpath "${DRA_BIN:-target/debug/dra}")
out=${REALDOCS_OUT:-/tmp/realdocs}
gold=tests/gold/realdocs
[ -x "$bin" ] || { echo "no dra binary at $bin: cargo build first, or set DRA_BIN" >&2; exit 2; }
command -v unshare >/dev/null || { echo "unshare is needed (util-linux)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "python3 is needed to score" >&2; exit 2; }

# The sets and where their packages put the manual: missing ones are named
# with the command that installs them.
missing=$(python3 - "$gold"/*.facts.json <<'PY'
import json, os, sys
for f in sys.argv[1:]:
    d = json.load(open(f))
    if not os.path.isdir(d["corpus"]):
        print(f'{os.path.basename(f)}: {d["corpus"]} is missing: apt-get install {d["package"]}')
PY
)
[ -z "$missing" ] || { echo "$missing" >&2; exit 2; }

# The scorer: key facts (case-insensitive, whitespace, quotes and markdown
# escapes normalised; a fact starting or ending in a letter or digit must not
# be part of a longer word) found in the Answer section / the whole report.
# Prints: set id kind answer_hits report_hits n_facts rc missing-facts
# page-cited (1 when a page the facts come from is among the sources).
read -r -d '' SCORER <<'PY' || true
import json, re, sys
set_name, case_id, facts_file, report_path, rc = sys.argv[1:6]
case = next(c for c in json.load(open(facts_file))["cases"] if c["id"] == case_id)
def norm(s):
    for a, b in (("\u201c", '"'), ("\u201d", '"'), ("\u2018", "'"), ("\u2019", "'"),
                 ("\u00a0", " "), ("\u2011", "-"), ("\u2013", "-"), ("\u2014", "-")):
        s = s.replace(a, b)
    s = re.sub(r"\\([\\`*_{}\[\]()#+\-.!|<>~])", r"\1", s)   # markdown escapes
    s = s.replace("`", "").replace("**", "")
    return re.sub(r"\s+", " ", s).strip().lower()
def found(fact, text):
    f = norm(fact)
    pat = re.escape(f)
    if f[:1].isalnum(): pat = r"(?<![0-9a-z])" + pat
    if f[-1:].isalnum(): pat = pat + r"(?![0-9a-z])"
    return re.search(pat, text) is not None
try:
    report = open(report_path).read()
except OSError:
    report = ""
answer = ""
m = re.search(r"^## Answer[^\n]*\n(.*?)(?=^## |\Z)", report, re.S | re.M)
if m: answer = m.group(1)
whole, ans = norm(report), norm(answer)
a = [f for f in case["facts"] if found(f, ans)]
r = [f for f in case["facts"] if found(f, whole)]
miss = [f for f in case["facts"] if f not in r]
# Whether a page the facts come from is among the report's sources.
pages = [p.split(" ")[0].split("#")[0] for p in case["pages"]]
cited = int(any(f'file://{case["corpus"].rstrip("/")}/{p}' in report for p in pages))
print(f'{set_name}\t{case_id}\t{case["kind"]}\t{len(a)}\t{len(r)}\t{len(case["facts"])}\t{rc}\t{json.dumps(miss)}\t{cited}')
PY

one() {
  local set=$1 id=$2 corpus=$3 question=$4 h r rc=0 report
  h=$(mktemp -d); r=$(mktemp -d)
  unshare --net -- bash -c 'ip link set lo up 2>/dev/null; exec "$@"' _ \
    env -i PATH="$PATH" HOME="$h" LANG=C.UTF-8 XDG_CACHE_HOME="$cache" ${DRA_EMBED_MODEL:+DRA_EMBED_MODEL="$DRA_EMBED_MODEL"} \
    "$bin" ask --json --no-memory --corpus "$corpus" --runs-dir "$r" "$question" \
    </dev/null >/dev/null 2>&1 || rc=$?
  report=$(find "$r" -name report.md -print -quit)
  if [ -n "$report" ]; then cp "$report" "$out/reports/$id.md"; else : > "$out/reports/$id.md"; fi
  python3 -c "$SCORER" "$set" "$id" "$gold/$set.facts.json" "${report:-/nonexistent}" "$rc" || true
  rm -rf "$h" "$r"
}
export -f one
cache=${REALDOCS_CACHE:-$HOME/.cache}
export bin gold out SCORER cache

if [ -z "${REALDOCS_TALLY_ONLY:-}" ]; then
  mkdir -p "$out/reports"
  python3 - "$gold"/*.facts.json <<'PY' | grep -E "^[^	]*	[^	]*($filter)" \
    | tr '\t\n' '\0\0' | xargs -0 -n 4 -P "$jobs" bash -c 'one "$@"' _ | sort > "$out/scores"
import json, os, sys
for f in sys.argv[1:]:
    d = json.load(open(f))
    s = os.path.basename(f).removesuffix(".facts.json")
    for c in d["cases"]:
        print(f'{s}\t{c["id"]}\t{c["corpus"]}\t{c["question"]}')
PY
else
  # Score the saved reports again (after editing the facts), keeping each
  # case's recorded exit code.
  while IFS=$'\t' read -r set id _ _ _ _ rc _; do
    python3 -c "$SCORER" "$set" "$id" "$gold/$set.facts.json" "$out/reports/$id.md" "$rc"
  done < "$out/scores" > "$out/scores.new"
  mv "$out/scores.new" "$out/scores"
fi

echo "real documentation sets offline, $(basename "$bin") ($(wc -l < "$out/scores") cases; per case: $out/scores, reports: $out/reports/)"
python3 - "$out/scores" <<'PY'
import json, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
def table(title, key, rows=rows):
    groups = {}
    for r in rows:
        g = groups.setdefault(key(r), [0, 0, 0, 0, 0])
        g[0] += int(r[3]); g[1] += int(r[4]); g[2] += int(r[5]); g[3] += 1; g[4] += int(r[8])
    print(f"\n{title:<28} {'cases':>5} {'facts':>5} {'in Answer':>12} {'in report':>12} {'page cited':>10}")
    tot = [0, 0, 0, 0, 0]
    for k in sorted(groups):
        g = groups[k]
        tot = [x + y for x, y in zip(tot, g)]
        print(f"{k:<28} {g[3]:>5} {g[2]:>5} {g[0]:>4} {100*g[0]/g[2]:>6.1f}% {g[1]:>4} {100*g[1]/g[2]:>6.1f}% {g[4]:>6}/{g[3]:<3}")
    print(f"{'total':<28} {tot[3]:>5} {tot[2]:>5} {tot[0]:>4} {100*tot[0]/tot[2]:>6.1f}% {tot[1]:>4} {100*tot[1]/tot[2]:>6.1f}% {tot[4]:>6}/{tot[3]:<3}")
if rows:
    table("set", lambda r: r[0])
    table("question kind", lambda r: r[2].split("-")[0] if r[2].startswith("lookup") else r[2])
    lookups = [r for r in rows if r[2].startswith("lookup")]
    if lookups:
        table("lookups: where the value is", lambda r: {"lookup": "text", "lookup-table": "table",
              "lookup-code": "code block"}.get(r[2], r[2]), lookups)
    print(f"\n{'case':<32} {'Answer':>6} {'report':>6} page exit  missing from report")
    for r in rows:
        print(f"{r[1]:<32} {r[3]+'/'+r[5]:>6} {r[4]+'/'+r[5]:>6} {'yes' if r[8] == '1' else 'no':>4} {r[6]:>4}  {', '.join(json.loads(r[7]))}")
    print("\npage: a page the key facts come from is among the report's sources; exit: dra's exit code")
PY
