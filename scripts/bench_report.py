#!/usr/bin/env python3
"""Runs every side-by-side benchmark and writes BENCHMARKS.md, the SVG chart
of the ratios (benches/ratios.svg) and the README's benchmark section.

    python3 scripts/bench_report.py            # 3 runs of each bench, medians
    python3 scripts/bench_report.py --quick    # 1 short run: a smoke test
    python3 scripts/bench_report.py --runs 5 --benches sync,channel

Every criterion group holds a `volt` function and one or more competitors
(`tokio`, `async-channel`, `flume`, `kanal`, ...); the ratio is the
competitor's median time over volt's (above 1: volt is faster). The report
keeps the median ratio over the runs and lists every run's, because one
run on a small VM swings by 25%. The `memory` bench's printed heap counts
and the `time` bench's printed 100k-sleeper lines are copied verbatim.

Service-level numbers (axum, tonic, reqwest, the example servers under
wrk, redis-benchmark and an echo client, each on volt and on tokio) come
from `scripts/service_bench.py`, which this script runs with the same
number of rounds (`--no-services` skips it and reuses the last
`target/service-bench.json`, whose date the report shows).

The README's section between `<!-- bench:start -->` and `<!-- bench:end -->`
is replaced with the generated table, so the numbers there are never typed
by hand. Hand-written analysis lives in benches/NOTES.md and is appended to
BENCHMARKS.md as is.
"""
import argparse
import datetime
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CRITERION = os.path.join(ROOT, "target", "criterion")
ALL_BENCHES = ["runtime", "sync", "channel", "channel_peers", "fastpath", "blocking", "time", "net"]

# The README's summary: one row per area, (group, competitor), plus three
# services: ten rows. The full table is in BENCHMARKS.md.
README_ROWS = [
    ("spawn_many_local", "tokio"),
    ("blocking_burst_64x300", "tokio"),
    ("semaphore_64x2", "tokio"),
    ("mutex_8", "tokio"),
    ("mpsc_4p_bounded1024", "tokio"),
    ("mpmc_4p4c_bounded1024_peers", "kanal"),
    ("sleep_100k_tasks", "tokio"),
]
README_SERVICES = ["axum_hello", "axum_servedir_4k", "mini_redis"]


# One bench binary run takes about 2 minutes; one that has not finished in
# 20 has stalled. This happened with flume's async channel, 16 + 16 tasks,
# bounded(1024): flume loses a receiver's wake-up now and then (reproduced
# on tokio's runtime too), so that shape no longer runs flume. A stalled run
# is killed, reported loudly, and run again once, rather than hanging the
# report.
STALL_SECONDS = 20 * 60


def run(cmd, capture=False):
    for attempt in (1, 2):
        print("+", " ".join(cmd), file=sys.stderr, flush=True)
        try:
            res = subprocess.run(
                cmd, cwd=ROOT, text=True, capture_output=capture, timeout=STALL_SECONDS
            )
            break
        except subprocess.TimeoutExpired:
            print(f"STALLED (no result in {STALL_SECONDS} s): {' '.join(cmd)}",
                  file=sys.stderr, flush=True)
            if attempt == 2:
                sys.exit(f"stalled twice: {' '.join(cmd)}")
    if res.returncode != 0:
        if capture:
            sys.stderr.write(res.stdout + res.stderr)
        sys.exit(f"command failed ({res.returncode}): {' '.join(cmd)}")
    return res.stdout if capture else ""


def median_since(group, func, start):
    """Criterion's median time (ns per iteration) of `group/func`, if it
    was written after `start`; None for a result left from an older run
    (of another bench, or of a competitor a bench no longer runs, such as
    flume at 16p16c)."""
    est = os.path.join(CRITERION, group, func, "new", "estimates.json")
    if not os.path.exists(est) or os.path.getmtime(est) < start:
        return None
    return json.load(open(est))["median"]["point_estimate"]


def ratios_since(start):
    """(group, competitor) -> ratio for every group and competitor that
    criterion wrote after `start`."""
    out = {}
    if not os.path.isdir(CRITERION):
        return out
    for group in sorted(os.listdir(CRITERION)):
        volt = median_since(group, "volt", start)
        if volt is None:
            continue
        for other in sorted(os.listdir(os.path.join(CRITERION, group))):
            if other in ("volt", "report"):
                continue
            o = median_since(group, other, start)
            if o is not None:
                out[(group, other)] = o / volt
    return out


# The seed runtime's figures for the `fastpath` groups (`../shared/seeds/`,
# measured there on a 2-core VM like this one: a single task, no
# contention, ns per operation), shown beside volt's and tokio's absolute
# times. `None`: the seed gives no figure (the target is a ratio to tokio).
SEED_NS = {
    "fast_mpsc_try_send_try_recv": "15 (8.4 + 6.6)",
    "fast_oneshot": "18",
    "fast_watch_send_borrow": "19-21",
    "fast_broadcast_1to4": "66-72",
    "fast_barrier_1": "18",
    "fast_once_cell": None,
    "fast_arc_mutex": None,
    "fast_mpsc_life": None,
}


def ns_per_op_since(start):
    """(group, function) -> nanoseconds per operation for the `fastpath`
    groups criterion wrote after `start`: the median time of an iteration
    over the elements it counts (its throughput)."""
    out = {}
    for group in SEED_NS:
        for func in ("volt", "tokio"):
            median = median_since(group, func, start)
            if median is None:
                continue
            meta = os.path.join(CRITERION, group, func, "new", "benchmark.json")
            elements = (json.load(open(meta)).get("throughput") or {}).get("Elements") or 1
            out[(group, func)] = median / elements
    return out


def fast_path_table(times):
    """The fast-path section: volt's and tokio's ns per operation, medians
    over the runs, beside the seed runtime's figure."""
    lines = [
        "| operation | volt ns | tokio ns | seed runtime ns | volt's runs |",
        "| --- | ---: | ---: | ---: | --- |",
    ]
    for group, seed in SEED_NS.items():
        volt = times.get((group, "volt"))
        if not volt:
            continue
        tokio = times.get((group, "tokio"))
        t = f"{statistics.median(tokio):.1f}" if tokio else "-"
        lines.append(
            f"| `{group}` | {statistics.median(volt):.1f} | {t} | {seed or '-'} | "
            f"{' '.join(f'{x:.1f}' for x in volt)} |"
        )
    return "\n".join(lines)


def machine():
    cpu = "unknown CPU"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = ""
    try:
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal"):
                mem = f", {int(line.split()[1]) / 1024 / 1024:.0f} GiB RAM"
                break
    except OSError:
        pass
    rustc = subprocess.run(["rustc", "--version"], capture_output=True, text=True).stdout.strip()
    return f"{os.cpu_count()} CPUs ({cpu}){mem}, {platform.system()} {platform.release()}, {rustc}"


def svg(rows, path):
    """Horizontal bars of the median ratios, with a line at 1.0."""
    bar_h, gap, label_w, chart_w = 18, 6, 330, 420
    top = 30
    height = top + len(rows) * (bar_h + gap) + 30
    max_r = max([r for _, _, r, _ in rows] + [2.0])
    scale = chart_w / max_r
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{label_w + chart_w + 70}" '
        f'height="{height}" font-family="sans-serif" font-size="12">',
        '<rect width="100%" height="100%" fill="white"/>',
        f'<text x="{label_w}" y="18" font-weight="bold">volt speed-up (competitor time / volt time; '
        f'right of the line: volt faster)</text>',
    ]
    for i, (group, other, r, _) in enumerate(rows):
        y = top + i * (bar_h + gap)
        color = "#2e7d32" if r >= 1.0 else "#c62828"
        parts.append(
            f'<text x="{label_w - 6}" y="{y + bar_h - 5}" text-anchor="end">{group} vs {other}</text>'
        )
        parts.append(
            f'<rect x="{label_w}" y="{y}" width="{max(r * scale, 1):.1f}" height="{bar_h}" fill="{color}"/>'
        )
        parts.append(f'<text x="{label_w + r * scale + 4:.1f}" y="{y + bar_h - 5}">{r:.2f}x</text>')
    x1 = label_w + scale
    parts.append(
        f'<line x1="{x1:.1f}" y1="{top - 4}" x2="{x1:.1f}" y2="{height - 24}" '
        'stroke="black" stroke-dasharray="4,3"/>'
    )
    parts.append(f'<text x="{x1:.1f}" y="{height - 10}" text-anchor="middle">1.0</text>')
    parts.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(parts) + "\n")


def table(rows):
    lines = ["| benchmark | vs | median ratio | runs |", "| --- | --- | --- | --- |"]
    for group, other, r, runs in rows:
        lines.append(f"| `{group}` | {other} | {r:.2f}x | {' '.join(f'{x:.2f}' for x in runs)} |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="one short run of each bench (smoke test)")
    ap.add_argument("--runs", type=int, help="runs per bench (default 3, 1 with --quick)")
    ap.add_argument("--benches", default=",".join(ALL_BENCHES), help="comma-separated bench names")
    ap.add_argument("--no-readme", action="store_true", help="do not rewrite README.md")
    ap.add_argument("--no-services", action="store_true",
                    help="skip scripts/service_bench.py (reuse its last result, if any)")
    args = ap.parse_args()
    runs = args.runs or (1 if args.quick else 3)
    benches = [b for b in args.benches.split(",") if b]
    crit = (
        ["--warm-up-time", "0.3", "--measurement-time", "1", "--sample-size", "10"]
        if args.quick
        else ["--warm-up-time", "1", "--measurement-time", "3"]
    )

    all_runs = {}
    fast_times = {}
    printed = {}
    for bench in benches:
        for _ in range(runs):
            start = time.time() - 1
            out = run(["cargo", "bench", "-q", "--bench", bench, "--", *crit], capture=True)
            printed.setdefault(bench, []).append(out)
            for key, r in ratios_since(start).items():
                all_runs.setdefault(key, []).append(r)
            for key, ns in ns_per_op_since(start).items():
                fast_times.setdefault(key, []).append(ns)
    memory = ""
    if not args.quick or "memory" in benches:
        memory = run(["cargo", "bench", "-q", "--bench", "memory"], capture=True)

    if not args.no_services:
        cmd = ["python3", "scripts/service_bench.py", "--rounds", str(runs)]
        run(cmd + (["--seconds", "3"] if args.quick else []))
    services = None
    service_json = os.path.join(ROOT, "target", "service-bench.json")
    if os.path.exists(service_json):
        sys.path.insert(0, os.path.join(ROOT, "scripts"))
        import service_bench
        sdata = json.load(open(service_json))
        services = (sdata, service_bench.table(sdata))

    rows = [(g, o, statistics.median(rs), rs) for (g, o), rs in sorted(all_runs.items())]
    if not rows:
        sys.exit("no criterion results found")
    svg(rows, os.path.join(ROOT, "benches", "ratios.svg"))

    # The 100k-sleeper lines the time bench prints before its groups.
    sleeper = [
        line
        for out in printed.get("time", [])
        for line in out.splitlines()
        if "sleep_100k" in line or "lateness" in line or "overhead" in line
    ]
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    mode = "quick smoke run" if args.quick else f"{runs} runs per bench, median"
    md = [
        "# Benchmarks",
        "",
        "Generated by `python3 scripts/bench_report.py"
        + (" --quick" if args.quick else "")
        + f"` on {when}; do not edit by hand.",
        "",
        f"Machine: {machine()}. Mode: {mode}.",
        "",
        "Ratio = competitor's median time / volt's median time, same workload,",
        "same process, back to back (above 1: volt is faster). In the",
        "`channel` bench every MPMC channel runs on volt's runtime, so only the",
        "channel differs; in `channel_peers` (groups ending in `_peers`) each",
        "peer runs on tokio, as its users run it, against volt on volt.",
        "",
        "![ratios](benches/ratios.svg)",
        "",
        table(rows),
        "",
    ]
    if services:
        sdata, stable = services
        md += ["## Services: real servers under real clients (`scripts/service_bench.py`)", "",
               f"{sdata['rounds']} rounds of {sdata['seconds']} s, volt and tokio alternating, "
               f"medians; {sdata['when']}. Ratio: volt's throughput / tokio's.", "", stable, ""]
    if fast_times:
        md += ["## Uncontended fast paths, ns per operation (`cargo bench --bench fastpath`)", "",
               "One task inside `block_on` on each runtime's multi-thread runtime, medians over",
               "the runs. Absolute times move with the host CPU the VM lands on: an uncontended",
               "locked instruction costs about 8-9 ns on the Xeon hosts and about 3 ns on the",
               "EPYC ones (`cargo bench --bench locked_floor`), so compare them on the machine",
               "named above. The seed runtime's figures are its own measurement",
               "(`../shared/seeds/`), on a 2-core VM of this kind.", "",
               fast_path_table(fast_times), ""]
    if sleeper:
        md += ["## 100,000 sleeping tasks (printed by the `time` bench)", "", "```"]
        md += sleeper + ["```", ""]
    if memory.strip():
        md += ["## Heap use (`cargo bench --bench memory`)", "", "```", memory.strip(), "```", ""]
    notes = os.path.join(ROOT, "benches", "NOTES.md")
    if os.path.exists(notes):
        md += [open(notes).read().strip(), ""]
    with open(os.path.join(ROOT, "BENCHMARKS.md"), "w") as f:
        f.write("\n".join(md))

    if not args.no_readme:
        readme = os.path.join(ROOT, "README.md")
        text = open(readme).read()
        summary = ["| benchmark | vs | median ratio |", "| --- | --- | --- |"]
        by_key = {(g, o): r for g, o, r, _ in rows}
        for g, o in README_ROWS:
            if (g, o) in by_key:
                summary.append(f"| `{g}` | {o} | {by_key[(g, o)]:.2f}x |")
        if services:
            for name in README_SERVICES:
                r = services[0]["rows"].get(name)
                if r:
                    summary.append(f"| `{name}` (service) | tokio | {r['ratio']:.2f}x |")
        block = "\n".join(
            [
                "<!-- bench:start (generated by scripts/bench_report.py; do not edit) -->",
                f"Machine: {machine()}; {mode}; {when}. Ratio: competitor's time / volt's "
                "(services: volt's throughput / tokio's); above 1, volt is faster. "
                "Every row, the charts and the notes: [BENCHMARKS.md](BENCHMARKS.md).",
                "",
                "\n".join(summary),
                "<!-- bench:end -->",
            ]
        )
        new, n = re.subn(r"<!-- bench:start.*?<!-- bench:end -->", block, text, flags=re.S)
        if n != 1:
            sys.exit("README.md has no <!-- bench:start --> ... <!-- bench:end --> block")
        with open(readme, "w") as f:
            f.write(new)
    print(f"wrote BENCHMARKS.md, benches/ratios.svg ({len(rows)} ratios)")


if __name__ == "__main__":
    main()
