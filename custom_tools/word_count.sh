#!/bin/sh
# word_count: a dra custom tool in POSIX shell (needs jq to read its JSON input).
# Counts the words, lines and characters of a text and lists its most
# frequent words, so the model never counts by eye.
#
#   ./word_count.sh --describe                      # the contract, as JSON
#   echo '{"text": "a b a", "top": 2}' | ./word_count.sh
set -eu

if [ "${1:-}" = "--describe" ]; then
  cat <<'JSON'
{
  "name": "word_count",
  "description": "Counts the words, lines and characters of a text (a quote, a section of a source, a draft) and lists its most frequent words. Use it instead of counting by eye.",
  "parameters": {
    "type": "object",
    "properties": {
      "text": {"type": "string", "description": "The text to count."},
      "top": {"type": "integer", "minimum": 0, "maximum": 50, "description": "How many of the most frequent words to list (default 10)."}
    },
    "required": ["text"],
    "additionalProperties": false
  }
}
JSON
  exit 0
fi

if ! command -v jq >/dev/null 2>&1; then
  echo "[permanent] word_count needs jq on PATH (https://jqlang.org)" >&2
  exit 2
fi

input=$(cat)
text=$(printf '%s' "$input" | jq -r '.text')
top=$(printf '%s' "$input" | jq -r '.top // 10')

words=$(printf '%s' "$text" | wc -w | tr -d ' ')
lines=$(printf '%s\n' "$text" | wc -l | tr -d ' ')
chars=$(printf '%s' "$text" | wc -m | tr -d ' ')
frequent=$(printf '%s' "$text" \
  | tr -cs '[:alnum:]' '\n' | tr '[:upper:]' '[:lower:]' | grep -v '^$' \
  | sort | uniq -c | sort -k1,1nr -k2,2 | head -n "$top" \
  | awk '{ printf "%s{\"word\": \"%s\", \"count\": %d}", (NR > 1 ? ", " : ""), $2, $1 }')

printf '{"words": %s, "lines": %s, "characters": %s, "most_frequent": [%s]}\n' \
  "$words" "$lines" "$chars" "$frequent"
