#!/usr/bin/env python3
"""Prints volt/tokio throughput ratios from criterion's last run.

Each benchmark group is expected to hold a `volt` function and one or more
competitors (`tokio`, `async-channel`, ...). The ratio is competitor time /
volt time (>1: volt is faster), from criterion's median estimates.
"""
import json, os, sys

# usage: ratios.py [criterion dir] [--since EPOCH]: with --since, results
# criterion wrote before EPOCH (older runs, dropped competitors) are skipped.
args = sys.argv[1:]
since = 0.0
if "--since" in args:
    i = args.index("--since")
    since = float(args[i + 1])
    del args[i : i + 2]
root = args[0] if args else "target/criterion"
rows = []
for group in sorted(os.listdir(root)):
    gdir = os.path.join(root, group)
    vfile = os.path.join(gdir, "volt", "new", "estimates.json")
    if not os.path.exists(vfile) or os.path.getmtime(vfile) < since:
        continue
    volt = json.load(open(vfile))["median"]["point_estimate"]
    for other in sorted(os.listdir(gdir)):
        ofile = os.path.join(gdir, other, "new", "estimates.json")
        if other in ("volt", "report") or not os.path.exists(ofile):
            continue
        if os.path.getmtime(ofile) < since:
            continue
        o = json.load(open(ofile))["median"]["point_estimate"]
        rows.append((group, other, volt, o, o / volt))
w = max((len(r[0]) for r in rows), default=10)
for g, other, v, o, r in rows:
    print(f"{g:<{w}}  volt {v/1e3:10.1f} us  {other:<14} {o/1e3:10.1f} us  ratio {r:5.2f}x")
