#!/usr/bin/env python3
"""fx_table: a dra custom tool in Python (standard library only, no network).

Reads the local table data/fx_rates.csv (columns month, base, quote, rate)
and answers rows for a currency pair and a range of months, optionally
converting an amount at each month's rate. The shipped table is
illustrative sample data: replace it with your own.

    ./fx_table.py --describe
    echo '{"base": "USD", "quote": "INR", "from": "2026-01"}' | ./fx_table.py
"""

import csv
import json
import sys
from pathlib import Path

TABLE = Path(__file__).resolve().parent / "data" / "fx_rates.csv"

DESCRIPTION = {
    "name": "fx_table",
    "description": (
        "Monthly exchange rates from the deployment's own table (month, base, quote, rate), "
        "for one currency pair and a range of months, optionally converting an amount. "
        "Cite it like any source; the table's publisher is this deployment."
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "base": {"type": "string", "pattern": "^[A-Z]{3}$", "description": "Currency converted from, e.g. USD."},
            "quote": {"type": "string", "pattern": "^[A-Z]{3}$", "description": "Currency converted to, e.g. INR."},
            "from": {"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}$", "description": "First month, YYYY-MM (default: the first in the table)."},
            "to": {"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}$", "description": "Last month, YYYY-MM (default: the last in the table)."},
            "amount": {"type": "number", "exclusiveMinimum": 0, "description": "An amount in the base currency to convert at each month's rate."},
        },
        "required": ["base", "quote"],
        "additionalProperties": False,
    },
}


def fail(kind, message):
    """Errors go to stderr with a [permanent] / [transient] prefix dra reads."""
    print(f"[{kind}] {message}", file=sys.stderr)
    sys.exit(2)


def rows(args):
    try:
        with TABLE.open(newline="", encoding="utf-8") as f:
            table = list(csv.DictReader(f))
    except OSError as e:
        fail("permanent", f"cannot read the rate table {TABLE}: {e}")
    base, quote = args["base"], args["quote"]
    lo, hi = args.get("from", "0000-00"), args.get("to", "9999-99")
    out = []
    for r in table:
        if lo <= r["month"] <= hi:
            if (r["base"], r["quote"]) == (base, quote):
                rate = float(r["rate"])
            elif (r["base"], r["quote"]) == (quote, base):
                rate = round(1 / float(r["rate"]), 6)
            else:
                continue
            row = {"month": r["month"], "base": base, "quote": quote, "rate": rate}
            if "amount" in args:
                row["converted"] = round(args["amount"] * rate, 2)
            out.append(row)
    if not out:
        pairs = sorted({f'{r["base"]}/{r["quote"]}' for r in table})
        fail("permanent", f"no rows for {base}/{quote} between {lo} and {hi}; the table has {', '.join(pairs)}")
    return out


def main():
    if sys.argv[1:] == ["--describe"]:
        print(json.dumps(DESCRIPTION))
        return
    try:
        args = json.load(sys.stdin)
    except json.JSONDecodeError as e:
        fail("permanent", f"arguments are not JSON: {e}")
    # A JSON array of objects: dra sees its rows and columns, and offloads
    # it to a file with a stub when it is large.
    print(json.dumps(rows(args)))


if __name__ == "__main__":
    main()
