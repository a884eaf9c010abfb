#!/usr/bin/env python3
"""Summarises a soak log written by `scripts/load.sh --soak N`.

Prints the median of each column over the first and the last minute of
samples (growth in RSS or latency shows as a difference), the worst
sample, and the number of samples that saw errors. Exits 1 if any did.
"""

import statistics
import sys


def ms(text):
    """wrk prints latencies as 812.00us, 1.23ms or 1.02s."""
    for suffix, scale in (("us", 0.001), ("ms", 1.0), ("s", 1000.0)):
        if text.endswith(suffix):
            return float(text[: -len(suffix)]) * scale
    return float(text)


COLUMNS = [
    # name, column, parser, worst is the max (latency, memory) or the min
    ("http req/s", 1, float, min),
    ("http p99 ms", 2, ms, max),
    ("http RSS kB", 3, float, max),
    ("redis GET req/s", 4, float, min),
    ("redis GET p99 ms", 5, float, max),
    ("redis RSS kB", 6, float, max),
]


def main(path, minutes):
    rows = [line.split() for line in open(path).read().splitlines()[1:]]
    rows = [r for r in rows if len(r) >= 8]
    if not rows:
        print("no samples")
        return 1
    # About one minute of samples: the log covers `minutes` minutes.
    per_minute = max(1, len(rows) // max(1, minutes))
    first, last = rows[:per_minute], rows[-per_minute:]
    print(f"samples: {len(rows)}; medians of the first and last {per_minute}:")
    for name, col, parse, worst in COLUMNS:
        values = [parse(r[col]) for r in rows]
        a = statistics.median(parse(r[col]) for r in first)
        b = statistics.median(parse(r[col]) for r in last)
        print(f"  {name:17} {a:>12.2f} -> {b:>12.2f}   worst {worst(values):.2f}")
    bad = [r for r in rows if r[7] != "none"]
    print(f"samples with errors: {len(bad)}")
    for r in bad[:10]:
        print("  ", " ".join(r))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 1))
