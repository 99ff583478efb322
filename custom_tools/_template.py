#!/usr/bin/env python3
"""Template for a dra custom tool. Copy it to a new name (not starting
with `_template`: those are skipped), make it executable, fill in the three
marked places, and check it with `dra doctor`.

The contract (see README.md in this folder):

* `TOOL --describe` prints one JSON object on stdout and exits 0, within
  5 seconds: {"name", "description", "parameters"}. `parameters` is a JSON
  Schema for an object; dra checks every call's arguments against it before
  the tool runs (a call that does not fit never reaches you).
* A call gets its arguments as one JSON object on stdin and answers on
  stdout: JSON (an array of objects is best for tables) or plain text.
* Errors: exit non-zero with a message on stderr. Start it with
  `[permanent]` (the arguments are wrong: the model should not retry) or
  `[transient]` (worth one retry).
* The tool runs in the run's workspace (its working directory) with a clean
  environment: PATH, HOME, LANG, TZ, TMPDIR and a few more; none of dra's
  keys. It has DRA_CUSTOM_TOOL_TIMEOUT seconds (60 by default); then its
  whole process group is killed. stdout is read up to 8 MiB.
* What it prints is untrusted text for the model and a citable source:
  stored under tool://NAME/<hash>, published by "custom tool NAME". Large
  answers (DRA_MAX_RESULT_CHARS / DRA_MAX_RESULT_ROWS) are written to a
  file in the workspace and the model gets a stub.
"""

import json
import sys

DESCRIPTION = {
    # 1. A name of letters, digits, _ and - (at most 64).
    "name": "my_tool",
    # 2. What it does and when to use it: the model reads this.
    "description": "What this tool returns, and when the model should call it.",
    # 3. The arguments, as JSON Schema.
    "parameters": {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "What to look up."},
        },
        "required": ["query"],
        "additionalProperties": False,
    },
}


def run(args):
    """Does the work; returns something JSON can encode (or a str)."""
    query = args["query"]
    if not query.strip():
        raise PermissionError("query is empty")  # becomes a [permanent] error
    return [{"query": query, "answer": "..."}]


def main():
    if sys.argv[1:] == ["--describe"]:
        print(json.dumps(DESCRIPTION))
        return
    args = json.load(sys.stdin)
    try:
        result = run(args)
    except PermissionError as e:
        print(f"[permanent] {e}", file=sys.stderr)
        sys.exit(2)
    except OSError as e:
        print(f"[transient] {e}", file=sys.stderr)
        sys.exit(1)
    print(result if isinstance(result, str) else json.dumps(result))


if __name__ == "__main__":
    main()
