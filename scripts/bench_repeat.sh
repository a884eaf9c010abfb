#!/usr/bin/env bash
# Runs a criterion bench N times and prints the median volt/competitor ratio
# per group (the machine is noisy: one run swings +-25%).
# usage: scripts/bench_repeat.sh <bench> <runs> [criterion args...]
set -euo pipefail
bench=$1; runs=$2; shift 2
out=$(mktemp -d)
for i in $(seq 1 "$runs"); do
  start=$(($(date +%s) - 1))
  cargo bench -q --bench "$bench" -- --warm-up-time 1 --measurement-time 3 "$@" >/dev/null 2>&1
  python3 scripts/ratios.py --since "$start" > "$out/run$i.txt"
done
python3 - "$out" <<'PY'
import sys, os, statistics, re
d = sys.argv[1]
ratios = {}
for f in sorted(os.listdir(d)):
    for line in open(os.path.join(d, f)):
        m = re.match(r"(\S+)\s+volt\s+([\d.]+) us\s+(\S+)\s+([\d.]+) us\s+ratio\s+([\d.]+)x", line)
        if m:
            ratios.setdefault((m.group(1), m.group(3)), []).append(float(m.group(5)))
for (g, o), rs in sorted(ratios.items()):
    print(f"{g:<28} vs {o:<14} median {statistics.median(rs):5.2f}x   runs {' '.join(f'{r:.2f}' for r in rs)}")
PY
