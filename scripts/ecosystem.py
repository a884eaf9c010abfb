#!/usr/bin/env python3
"""The tokio ecosystem on volt: builds and tests the apps in `ecosystem/`
through volt's compat crate, and the same apps on the registry's tokio.

    python3 scripts/ecosystem.py            # everything below, about 15 minutes from cold on 2 cores
    python3 scripts/ecosystem.py --volt     # only the volt side (what .ci/run runs)

`ecosystem/` is a Cargo workspace of its own, written only against
`tokio` and its ecosystem (axum, tower-http, reqwest, hyper-util, tonic,
tokio-util, tokio-stream, ...). Its `[patch.crates-io]` points `tokio` at
`compat/tokio`, exactly as a user's would; nothing in it depends on
`volt`. The script:

1. on volt: runs the two core apps' test suites (`service`: axum with
   `ServeDir`/`TraceLayer`/`TimeoutLayer`, reqwest, hyper-util's client,
   tokio-util, tokio-stream, `#[tokio::test]` in every flavor; `grpc`:
   tonic unary and server streaming), and fails if the registry's tokio
   appears anywhere in the workspace's dependency graph or lockfile;
2. serves the axum app to curl (text, JSON, a `Range` request to
   `ServeDir`) and stops it with SIGTERM (graceful shutdown, exit 0);
3. runs a program under console-subscriber (built with `--cfg
   tokio_unstable` and tokio's `tracing` feature, as its docs require on
   tokio) and reads it back through console-api's gRPC client: named
   tasks, wake counts, every kind of resource, no lost waker
   (`ecosystem/extras/console`);
4. reports on the extras one by one, which must not fail the run: sqlx
   with SQLite, and tokio-tungstenite;
5. on tokio (skipped with `--volt`): the workspace copied without the
   patch, the same core test suites, so a test that is wrong fails there
   too.

Needs crates.io and curl. The numbers (wrk, RPC/s) are
`scripts/service_bench.py`'s.
"""
import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ECO = os.path.join(ROOT, "ecosystem")
TARGET = os.path.join(ROOT, "target")
CORE = ["eco-service", "eco-grpc"]
# (package, how it is built, what it needs)
EXTRAS = [
    ("eco-sqlite", "sqlx 0.8, SQLite, a pool used from concurrent tasks", {}),
    ("eco-websocket", "tokio-tungstenite, a websocket echo", {}),
]
UNSTABLE = {"RUSTFLAGS": "--cfg tokio_unstable"}


def cargo(args, cwd, target, env=None, check=True, quiet=False):
    """Runs cargo with its own target dir; returns (ok, output)."""
    e = dict(os.environ, CARGO_TARGET_DIR=target, CARGO_TERM_COLOR="never")
    e.update(env or {})
    print("+ (cd %s && cargo %s)" % (os.path.relpath(cwd, ROOT), " ".join(args)), flush=True)
    res = subprocess.run(["cargo", *args], cwd=cwd, env=e, text=True,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if not quiet:
        for line in res.stdout.splitlines():
            if re.match(r"^(test |test result|error|warning: unused|thread .* panicked)", line):
                print("  " + line)
    if check and res.returncode != 0:
        sys.stdout.write(res.stdout[-8000:])
        sys.exit(f"failed: cargo {' '.join(args)} in {cwd}")
    return res.returncode == 0, res.stdout


def tokio_twin():
    """A copy of ecosystem/ without the patch: the same apps on tokio."""
    twin = os.path.join(TARGET, "ecosystem-tokio-src")
    shutil.rmtree(twin, ignore_errors=True)
    shutil.copytree(ECO, twin, ignore=shutil.ignore_patterns("target", "Cargo.lock"))
    toml = os.path.join(twin, "Cargo.toml")
    s = open(toml).read()
    s2 = re.sub(r"\[patch\.crates-io\]\ntokio = \{[^}]*\}\n", "", s)
    if s2 == s:
        sys.exit("ecosystem/Cargo.toml has no [patch.crates-io] tokio line to remove")
    open(toml, "w").write(s2)
    return twin


def check_no_registry_tokio():
    """The whole graph (every member, normal, build and dev edges) holds
    one tokio: the compat crate."""
    ok, out = cargo(["tree", "--workspace", "-e", "normal,build,dev", "--prefix", "none",
                     "--format", "{p}"], ECO, os.path.join(TARGET, "ecosystem"), quiet=True)
    tokios = sorted({l.strip() for l in out.splitlines() if re.match(r"^tokio v", l.strip())})
    lock = open(os.path.join(ECO, "Cargo.lock")).read()
    registry = re.findall(r'name = "tokio"\nversion = "[^"]+"\nsource = "registry', lock)
    if registry or any("compat/tokio" not in t for t in tokios):
        sys.exit(f"the registry's tokio is in the graph: {tokios} {registry}")
    print(f"  one tokio in the graph: {tokios[0]}")


def serve_to_curl(binary):
    """Serves the axum app, asks it for text, JSON and a byte range with
    curl, then stops it with SIGTERM and expects a graceful exit."""
    static = os.path.join(TARGET, "ecosystem-static")
    os.makedirs(static, exist_ok=True)
    with open(os.path.join(static, "big.bin"), "wb") as f:
        f.write(bytes(i % 256 for i in range(1 << 20)))
    port = 18600 + os.getpid() % 300
    proc = subprocess.Popen([binary, f"127.0.0.1:{port}", static], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().startswith("listening"), "the server did not start"
        base = f"http://127.0.0.1:{port}"

        def curl(*args):
            return subprocess.run(["curl", "-s", "--max-time", "10", *args], capture_output=True,
                                  text=False, check=True).stdout
        assert curl(base + "/") == b"Hello, World!"
        assert b'"name":"item-7"' in curl(base + "/items/7")
        assert curl("-H", "Range: bytes=256-259", base + "/static/big.bin") == bytes([0, 1, 2, 3])
        code = curl("-o", "/dev/null", "-w", "%{http_code}", base + "/static/missing")
        assert code == b"404", code
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=10)
        assert proc.returncode == 0 and "shut down" in out, (proc.returncode, out)
        print(f"  curl: text, JSON, Range 206, 404; SIGTERM -> graceful exit")
    finally:
        if proc.poll() is None:
            proc.kill()


def tracing_cost():
    """`extras/console/src/bin/tracing_cost.rs` on both sides."""
    sides = [("volt", ECO, os.path.join(TARGET, "ecosystem-unstable")),
             ("tokio", tokio_twin(), os.path.join(TARGET, "ecosystem-tokio-unstable"))]
    for _, cwd, target in sides:
        cargo(["build", "--release", "-p", "eco-console", "--bin", "tracing_cost"], cwd, target,
              env=UNSTABLE, quiet=True)
    for _ in range(3):
        for side, _, target in sides:
            out = subprocess.run([os.path.join(target, "release", "tracing_cost")],
                                 capture_output=True, text=True, check=True).stdout.strip()
            print(f"{side:6} {out}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--volt", action="store_true", help="only the volt side (no tokio twin)")
    ap.add_argument("--tracing-cost", action="store_true",
                    help="only: the hot paths with tracing compiled in, volt against tokio "
                         "(both with --cfg tokio_unstable), 3 alternating runs")
    args = ap.parse_args()
    if args.tracing_cost:
        return tracing_cost()
    if not shutil.which("curl"):
        sys.exit("needs curl")
    started = time.time()
    volt_target = os.path.join(TARGET, "ecosystem")

    print("== on volt, through compat/tokio")
    pkgs = [a for p in CORE for a in ("-p", p)]
    cargo(["test", *pkgs], ECO, volt_target)
    check_no_registry_tokio()
    cargo(["build", "-p", "eco-service", "--bin", "eco-service"], ECO, volt_target, quiet=True)
    serve_to_curl(os.path.join(volt_target, "debug", "eco-service"))

    print("== tokio-console: console-subscriber, read back through its gRPC API")
    ok, out = cargo(["run", "-p", "eco-console", "--bin", "eco-console"], ECO,
                    volt_target + "-unstable", env=UNSTABLE, check=False, quiet=True)
    print("\n".join("  " + l for l in out.splitlines()
                    if l.startswith(("tasks named", "resources", "wakes", "FAILED", "console"))))
    if not ok or "every check passed" not in out:
        sys.stdout.write(out[-4000:])
        sys.exit("the console check failed")

    print("== extras (reported, never fatal)")
    report = []
    for pkg, what, env in EXTRAS:
        target = volt_target
        ok, out = cargo(["test", "-p", pkg], ECO, target, env=env, check=False, quiet=True)
        why = ""
        if not ok:
            errs = re.findall(r"^error(?:\[E\d+\])?: .*$", out, re.M)
            why = errs[0] if errs else out.strip().splitlines()[-1]
        report.append((pkg, what, "works" if ok else "FAILS: " + why))
    for pkg, what, res in report:
        print(f"  {pkg:14} {what}: {res}")

    if not args.volt:
        print("== the same apps on the registry's tokio")
        cargo(["test", *pkgs], tokio_twin(), os.path.join(TARGET, "ecosystem-tokio"))

    print(f"ecosystem: passed in {time.time() - started:.0f} s")


if __name__ == "__main__":
    main()
