#!/usr/bin/env python3
"""Service-level benchmarks: real servers under real clients, each on volt
and on tokio, rounds alternating, medians.

    python3 scripts/service_bench.py                 # 3 rounds, 8 s per run
    python3 scripts/service_bench.py --rounds 5 --seconds 10
    python3 scripts/service_bench.py --only axum     # rows whose name matches

What runs (every server with its default worker count, one per core):

| row | server | client |
| --- | --- | --- |
| `axum_hello` | `ecosystem/service` (axum 0.8) | wrk, `/` |
| `axum_servedir_4k` | the same, tower-http `ServeDir` | wrk, a 4 KiB file |
| `axum_servedir_1m` | the same | wrk, a 1 MiB file |
| `tonic_unary` | `ecosystem/grpc` (tonic 0.14) | its own tonic client, same runtime |
| `reqwest_client` | the axum app, always on tokio | `ecosystem/service`'s reqwest `load` |
| `http_hello` | `examples/http_hello` | wrk |
| `mini_redis` | `examples/mini_redis` | redis-benchmark, SET and GET |
| `tcp_echo` | `examples/echo` | `echo_load`, always on tokio, 64 connections |

The volt side of the ecosystem apps is `ecosystem/` as it is (through
`compat/tokio`); the tokio side is the same workspace without the patch.
The volt side of an example is the example; the tokio side is its source
with `volt` replaced by `tokio` (`target/tokio-twins`, also used by
`scripts/load.sh`). Each round runs every row on both, the order of the
two flipped every round. The result is written to
`target/service-bench.json`, which `scripts/bench_report.py` puts in
BENCHMARKS.md; the ratio is volt's throughput over tokio's (above 1: volt
is faster).

Needs wrk, redis-benchmark (Debian: apt-get install wrk redis-tools) and
crates.io. About 10 minutes at the defaults on 2 cores, builds included.

For a machine with no Rust toolchain or network (the 16-core runs in
benches/NOTES.md): `--stage DIR` builds here and copies the stripped
servers and clients into DIR, with wrk, redis-benchmark and the shared
libraries they load beyond the C library; `--staged DIR` on the other
machine runs from DIR and builds nothing.

On many cores the clients can be the bottleneck: `--wrk-threads N` sets
wrk's `-t` (2 by default, the report's setting), and `--client-cpus K`
pins every client to the last K CPUs and every server to the others,
each side's runtime with one worker per CPU it may use.
"""
import argparse
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ecosystem  # noqa: E402

ROOT = ecosystem.ROOT
TARGET = ecosystem.TARGET
OUT = os.path.join(TARGET, "service-bench.json")
EXAMPLES = ["http_hello", "mini_redis", "echo"]
TWIN_EXAMPLES = EXAMPLES + ["hyper_server"]


def build():
    """Release builds of both sides; returns {side: {name: path}}."""
    volt_t = os.path.join(TARGET, "ecosystem")
    tokio_t = os.path.join(TARGET, "ecosystem-tokio")
    bins = "--bins"
    ecosystem.cargo(["build", "--release", bins], ecosystem.ECO, volt_t, quiet=True)
    ecosystem.cargo(["build", "--release", bins], ecosystem.tokio_twin(), tokio_t, quiet=True)
    ecosystem.cargo(["build", "--release", *[a for e in EXAMPLES for a in ("--example", e)]],
                    ROOT, TARGET, quiet=True)
    twins = build_tokio_twins()
    rel = lambda t, n: os.path.join(t, "release", n)  # noqa: E731
    return {
        "volt": {"service": rel(volt_t, "eco-service"), "grpc": rel(volt_t, "eco-grpc"),
                 "load": rel(volt_t, "load"),
                 **{e: os.path.join(TARGET, "release", "examples", e) for e in EXAMPLES}},
        "tokio": {"service": rel(tokio_t, "eco-service"), "grpc": rel(tokio_t, "eco-grpc"),
                  "load": rel(tokio_t, "load"), "echo_load": rel(tokio_t, "echo_load"),
                  **{e: os.path.join(twins, "target", "release", "examples", e) for e in EXAMPLES}},
    }


def stage(bins, dest):
    """Copies the stripped binaries of `bins` and the two load generators
    (with their non-libc shared libraries and a wrapper that points the
    loader at them) into `dest`."""
    for side, named in bins.items():
        os.makedirs(os.path.join(dest, side), exist_ok=True)
        for name, path in named.items():
            subprocess.run(["strip", "-o", os.path.join(dest, side, name), path], check=True)
    tools = os.path.join(dest, "tools")
    os.makedirs(os.path.join(tools, "lib"), exist_ok=True)
    os.makedirs(os.path.join(tools, "bin"), exist_ok=True)
    libc = ("libc.so", "libm.so", "libpthread.so", "libdl.so", "ld-linux", "linux-vdso")
    for tool in ("wrk", "redis-benchmark"):
        real = shutil.which(tool)
        shutil.copy(real, os.path.join(tools, tool))
        for m in re.finditer(r"=> (\S+) \(", out_of(["ldd", real], 30)):
            if not os.path.basename(m.group(1)).startswith(libc):
                shutil.copy(m.group(1), os.path.join(tools, "lib"))
        wrapper = os.path.join(tools, "bin", tool)
        open(wrapper, "w").write(
            '#!/bin/sh\nd=$(dirname "$(dirname "$(readlink -f "$0")")")\n'
            f'LD_LIBRARY_PATH="$d/lib" exec "$d/{tool}" "$@"\n')
        os.chmod(wrapper, 0o755)


def staged(src):
    """The binaries `stage` copied into `src`; puts its tools first on PATH."""
    os.environ["PATH"] = os.path.join(src, "tools", "bin") + os.pathsep + os.environ["PATH"]
    return {side: {n: os.path.join(src, side, n) for n in os.listdir(os.path.join(src, side))}
            for side in ("volt", "tokio")}


def build_tokio_twins():
    """The examples on tokio: `examples/` copied with `volt` replaced by
    `tokio` (the migration, in reverse) into `target/tokio-twins`, built
    against the same Cargo.lock. Returns the twins' crate directory."""
    twins = os.path.join(TARGET, "tokio-twins")
    shutil.rmtree(os.path.join(twins, "examples"), ignore_errors=True)
    for dirpath, _, files in os.walk(os.path.join(ROOT, "examples")):
        rel = os.path.relpath(dirpath, ROOT)
        os.makedirs(os.path.join(twins, rel), exist_ok=True)
        for f in files:
            src = open(os.path.join(dirpath, f)).read()
            open(os.path.join(twins, rel, f), "w").write(src.replace("volt", "tokio"))
    os.makedirs(os.path.join(twins, "src"), exist_ok=True)
    open(os.path.join(twins, "src", "lib.rs"), "w").write("")
    open(os.path.join(twins, "Cargo.toml"), "w").write(
        '[package]\nname = "tokio-twins"\nversion = "0.0.0"\nedition = "2024"\npublish = false\n'
        '[workspace]\n[dependencies]\ntokio = { version = "1.54", features = ["full"] }\n'
        'hyper = { version = "1", features = ["server", "http1"] }\nhttp-body-util = "0.1"\n'
        'bytes = "1"\n[profile.release]\ndebug = false\n')
    shutil.copy(os.path.join(ROOT, "Cargo.lock"), os.path.join(twins, "Cargo.lock"))
    # The servers only: `demo` prints volt-only (tokio_unstable) metrics.
    servers = [a for e in TWIN_EXAMPLES for a in ("--example", e)]
    ecosystem.cargo(["build", "--release", *servers], twins, os.path.join(twins, "target"),
                    quiet=True)
    return twins


def wait_port(port, proc):
    for _ in range(200):
        if proc.poll() is not None:
            sys.exit(f"server exited early: {proc.args}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    sys.exit(f"server did not listen on {port}: {proc.args}")


class Server:
    def __init__(self, args, port):
        env = dict(os.environ)
        if SERVER_CPUS is not None:
            # One worker per CPU it may use, as on an unpinned machine.
            env["VOLT_WORKER_THREADS"] = env["TOKIO_WORKER_THREADS"] = str(len(SERVER_CPUS))
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     env=env, preexec_fn=pinned(SERVER_CPUS))
        wait_port(port, self.proc)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def out_of(cmd, timeout):
    env = dict(os.environ)
    if CLIENT_CPUS is not None:
        env["VOLT_WORKER_THREADS"] = env["TOKIO_WORKER_THREADS"] = str(len(CLIENT_CPUS))
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env,
                         preexec_fn=pinned(CLIENT_CPUS))
    if res.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{res.stdout}{res.stderr}")
    return res.stdout


# wrk's `-t` (`--wrk-threads`). On 16 cores two threads saturate at 2.00
# CPUs on the 1 MiB file, and the row then measures the client
# (benches/NOTES.md, "Many cores").
WRK_THREADS = 2
# With `--client-cpus K`: the CPUs the clients and the servers may use
# (the last K, and the rest); None runs both unpinned.
CLIENT_CPUS = None
SERVER_CPUS = None


def static_files():
    """Writes the files `ServeDir` serves (4 KiB and 1 MiB); returns their folder."""
    static = os.path.join(TARGET, "ecosystem-static")
    os.makedirs(static, exist_ok=True)
    open(os.path.join(static, "small.txt"), "wb").write(b"x" * 4096)
    open(os.path.join(static, "big.bin"), "wb").write(bytes(i % 256 for i in range(1 << 20)))
    return static


def pinned(cpus):
    """A `preexec_fn` that confines the child to `cpus` (None: no-op)."""
    return None if cpus is None else (lambda: os.sched_setaffinity(0, cpus))


def wrk(url, secs):
    """(requests/s, p99 in ms) from wrk, which must see no error."""
    out = out_of(["wrk", f"-t{WRK_THREADS}", "-c64", f"-d{secs}s", "--latency", url], secs + 30)
    if "Non-2xx" in out or "Socket errors" in out:
        sys.exit(f"wrk saw errors on {url}:\n{out}")
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    m = re.search(r"^\s+99%\s+([\d.]+)(us|ms|s)\b", out, re.M)
    p99 = float(m.group(1)) * {"us": 0.001, "ms": 1, "s": 1000}[m.group(2)]
    return rps, p99


def per_second(out):
    return float(re.search(r"^([\d.]+) ", out.strip().splitlines()[-1]).group(1))


def run_row(name, side, bins, secs, static):
    """One measurement: (throughput, p99 ms or None)."""
    b = bins[side]
    port = 19000 + (os.getpid() + hash(name)) % 500 + (0 if side == "volt" else 500)
    addr = f"127.0.0.1:{port}"
    if name.startswith("axum_"):
        path = {"axum_hello": "/", "axum_servedir_4k": "/static/small.txt",
                "axum_servedir_1m": "/static/big.bin"}[name]
        with Server([b["service"], addr, static], port):
            return wrk(f"http://{addr}{path}", secs)
    if name == "tonic_unary":
        with Server([b["grpc"], "serve", addr], port):
            return per_second(out_of([b["grpc"], "load", f"http://{addr}", "64", str(secs)],
                                     secs + 60)), None
    if name == "reqwest_client":
        with Server([bins["tokio"]["service"], addr, static], port):
            return per_second(out_of([b["load"], f"http://{addr}/", "64", str(secs)],
                                     secs + 60)), None
    if name == "http_hello":
        with Server([b["http_hello"], addr], port):
            return wrk(f"http://{addr}/", secs)
    if name == "mini_redis":
        with Server([b["mini_redis"], addr], port):
            out = out_of(["redis-benchmark", "-p", str(port), "-t", "set,get", "-c", "50",
                          "-n", str(40000 * secs), "-q", "--csv"], secs * 10 + 60)
            rows = {m.group(1): (float(m.group(2)), float(m.group(3))) for m in re.finditer(
                r'^"(SET|GET)","([\d.]+)","[\d.]+","[\d.]+","[\d.]+","[\d.]+","([\d.]+)"', out, re.M)}
            if set(rows) != {"SET", "GET"}:
                sys.exit(f"redis-benchmark printed no SET/GET result:\n{out}")
            return (statistics.mean(r[0] for r in rows.values()),
                    max(r[1] for r in rows.values()))
    if name == "tcp_echo":
        with Server([b["echo"], addr], port):
            return per_second(out_of([bins["tokio"]["echo_load"], addr, "64", str(secs), "64"],
                                     secs + 60)), None
    raise ValueError(name)


ROWS = ["axum_hello", "axum_servedir_4k", "axum_servedir_1m", "tonic_unary", "reqwest_client",
        "http_hello", "mini_redis", "tcp_echo"]
UNITS = {"tonic_unary": "RPC/s", "mini_redis": "req/s (SET, GET mean)", "tcp_echo": "round trips/s"}


def table(result):
    lines = ["| service | unit | volt | tokio | ratio | runs | p99 volt / tokio (ms) |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for name, r in result["rows"].items():
        p99 = (f"{r['volt_p99']:.2f} / {r['tokio_p99']:.2f}"
               if r.get("volt_p99") is not None else "")
        lines.append(f"| `{name}` | {UNITS.get(name, 'req/s')} | {r['volt']:,.0f} | "
                     f"{r['tokio']:,.0f} | {r['ratio']:.2f}x | "
                     f"{' '.join(f'{x:.2f}' for x in r['ratios'])} | {p99} |")
    return "\n".join(lines)


def main():
    global WRK_THREADS
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=int, default=8)
    ap.add_argument("--only", default="", help="regex: rows to run")
    ap.add_argument("--wrk-threads", type=int, default=WRK_THREADS,
                    help="wrk's -t (default 2)")
    ap.add_argument("--client-cpus", type=int, metavar="K",
                    help="pin the clients to the last K CPUs and the servers (with one worker "
                         "per CPU) to the others")
    ap.add_argument("--stage", metavar="DIR", help="build, copy what a run needs into DIR, exit")
    ap.add_argument("--staged", metavar="DIR", help="run from a --stage DIR; build nothing")
    args = ap.parse_args()
    WRK_THREADS = args.wrk_threads
    if args.client_cpus is not None:
        global CLIENT_CPUS, SERVER_CPUS
        cpus = sorted(os.sched_getaffinity(0))
        if not 0 < args.client_cpus < len(cpus):
            sys.exit(f"--client-cpus must leave the servers a CPU (this machine: {len(cpus)})")
        CLIENT_CPUS = set(cpus[-args.client_cpus:])
        SERVER_CPUS = set(cpus[:-args.client_cpus])
    if args.stage and args.staged:
        sys.exit("--stage and --staged exclude each other")
    # Before the tool check: a staged run brings its own wrk and redis-benchmark.
    bins = staged(args.staged) if args.staged else None
    for tool in ("wrk", "redis-benchmark"):
        if not shutil.which(tool):
            sys.exit(f"needs {tool} (apt-get install wrk redis-tools)")
    if args.stage:
        stage(build(), args.stage)
        return
    if bins is None:
        bins = build()
    rows = [r for r in ROWS if re.search(args.only, r)]
    static = static_files()

    samples = {r: {"volt": [], "tokio": []} for r in rows}
    for rnd in range(args.rounds):
        order = ["volt", "tokio"] if rnd % 2 == 0 else ["tokio", "volt"]
        for name in rows:
            for side in order:
                samples[name][side].append(run_row(name, side, bins, args.seconds, static))
            v, t = samples[name]["volt"][-1][0], samples[name]["tokio"][-1][0]
            print(f"round {rnd + 1} {name:18} volt {v:12,.0f}  tokio {t:12,.0f}  {v / t:.2f}x",
                  flush=True)
    result = {"machine": f"{os.cpu_count()} CPUs", "seconds": args.seconds,
              "rounds": args.rounds, "wrk_threads": WRK_THREADS,
              "client_cpus": len(CLIENT_CPUS) if CLIENT_CPUS else None, "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
              "rows": {}}
    for name in rows:
        v = [x[0] for x in samples[name]["volt"]]
        t = [x[0] for x in samples[name]["tokio"]]
        vp = [x[1] for x in samples[name]["volt"] if x[1] is not None]
        tp = [x[1] for x in samples[name]["tokio"] if x[1] is not None]
        result["rows"][name] = {
            "volt": statistics.median(v), "tokio": statistics.median(t),
            "ratio": statistics.median(a / b for a, b in zip(v, t)),
            "ratios": [a / b for a, b in zip(v, t)],
            "volt_p99": statistics.median(vp) if vp else None,
            "tokio_p99": statistics.median(tp) if tp else None,
        }
    json.dump(result, open(OUT, "w"), indent=1)
    print()
    print(table(result))
    print(f"\nwrote {os.path.relpath(OUT, ROOT)}")


if __name__ == "__main__":
    main()
