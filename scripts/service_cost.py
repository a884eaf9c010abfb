#!/usr/bin/env python3
"""What a response costs the server: the axum app (`ecosystem/service`)
under wrk, on volt and on tokio, rounds alternating, with the server's CPU
time, context switches and threads and the client's CPU time per run.

    python3 scripts/service_cost.py                        # 1 MiB file, all workers, wrk -t2
    python3 scripts/service_cost.py --staged DIR 16:2 16:8 4:2
    python3 scripts/service_cost.py --path /static/small.txt

Each CONFIG is `WORKERS:WRK_THREADS` (WORKERS empty: one per CPU). Read
from /proc, so it needs no perf: the server's CPU time is fields 14-15 of
`/proc/PID/stat`, its context switches are summed over `/proc/PID/task/*`,
wrk's CPU time is `RUSAGE_CHILDREN`, and "machine" is every CPU's busy
time from `/proc/stat`. A client at its CPU limit (wrk at `-t` CPUs)
means the row measures the client (benches/NOTES.md, "Many cores").

Builds as `service_bench.py` does, or runs from its `--stage DIR`.
"""

import argparse
import glob
import os
import re
import resource
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import service_bench as sb  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")


def server_stat(pid):
    """(CPU seconds, voluntary, involuntary context switches, threads)."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / TICK
    vol = inv = 0
    for status in glob.glob(f"/proc/{pid}/task/*/status"):
        try:
            text = open(status).read()
        except OSError:  # the thread has exited meanwhile
            continue
        vol += int(re.search(r"^voluntary_ctxt_switches:\s+(\d+)", text, re.M).group(1))
        inv += int(re.search(r"^nonvoluntary_ctxt_switches:\s+(\d+)", text, re.M).group(1))
    return cpu, vol, inv, len(os.listdir(f"/proc/{pid}/task"))


def machine_busy():
    """CPU seconds every CPU spent neither idle nor in I/O wait."""
    f = [int(x) for x in open("/proc/stat").readline().split()[1:]]
    return (sum(f) - f[3] - f[4]) / TICK


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def one_run(binary, workers, threads, path, secs, static, port):
    env = dict(os.environ)
    if workers:
        env["VOLT_WORKER_THREADS"] = env["TOKIO_WORKER_THREADS"] = workers
    addr = f"127.0.0.1:{port}"
    proc = subprocess.Popen([binary, addr, static], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        sb.wait_port(port, proc)
        s0, b0, k0 = server_stat(proc.pid), machine_busy(), children_cpu()
        out = sb.out_of(["wrk", f"-t{threads}", "-c64", f"-d{secs}s", f"http://{addr}{path}"],
                        secs + 30)
        s1, b1, k1 = server_stat(proc.pid), machine_busy(), children_cpu()
    finally:
        proc.kill()
        proc.wait()
    if "Non-2xx" in out or "Socket errors" in out:
        sys.exit(f"wrk saw errors:\n{out}")
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    n = rps * secs
    return (f"{rps:9,.0f} req/s  server {(s1[0] - s0[0]) / secs:5.2f} CPUs, "
            f"{1e6 * (s1[0] - s0[0]) / n:7.1f} us and {(s1[1] - s0[1]) / n:5.1f} + "
            f"{(s1[2] - s0[2]) / n:5.1f} switches per response, {s1[3]:3} threads  "
            f"wrk {(k1 - k0) / secs:4.2f} CPUs  machine {(b1 - b0) / secs:5.2f} CPUs")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("configs", nargs="*", default=[":2"], metavar="CONFIG")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--seconds", type=int, default=5)
    ap.add_argument("--path", default="/static/big.bin")
    ap.add_argument("--staged", metavar="DIR", help="run from a service_bench.py --stage DIR")
    args = ap.parse_args()
    bins = sb.staged(args.staged) if args.staged else sb.build()
    static = sb.static_files()
    port = 21000 + os.getpid() % 1000
    for config in args.configs:
        workers, _, threads = config.partition(":")
        for rnd in range(args.rounds):
            for side in ("volt", "tokio") if rnd % 2 == 0 else ("tokio", "volt"):
                port += 1
                line = one_run(bins[side]["service"], workers, threads or "2", args.path,
                               args.seconds, static, port)
                print(f"workers {workers or 'all':>3} wrk -t{threads or 2} {side:5} {line}",
                      flush=True)


if __name__ == "__main__":
    main()
