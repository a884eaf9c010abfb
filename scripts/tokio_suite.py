#!/usr/bin/env python3
"""Runs tokio's own integration tests against volt.

tokio's `tests/*.rs` (the version in Cargo.lock) are copied unchanged into
a scratch crate under `target/tokio-suite`, whose `tokio` dependency is
patched to a shim crate named `tokio` that re-exports volt
(`pub use volt::*;`). tokio-test and tokio-stream come from crates.io and
compile against that shim too, so the files build exactly as tokio's CI
builds them; the only edits are two in `async_send_sync.rs` (it reaches
into tokio's hidden `macros::support`, and asserts `!Unpin` for a few io
futures that volt makes `Unpin`, which is a superset).

Every test binary runs with a time limit; the tests that fail (or hang)
for a known, deliberate or environmental reason are listed in
`scripts/tokio_suite_known.txt` with that reason. The script exits with
status 1 on any other failure, on a compile error, and on a listed test
that now passes (so the list stays true).

    python3 scripts/tokio_suite.py            # all files, about 10 minutes
    python3 scripts/tokio_suite.py sync_mpsc  # only files whose name matches

Needs network access the first time (crates.io), like `cargo fetch`.
"""

import json
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = os.path.join(ROOT, "target", "tokio-suite")
KNOWN_FILE = os.path.join(ROOT, "scripts", "tokio_suite_known.txt")

# Files for other platforms, unstable features or tokio internals.
EXCLUDE = re.compile(
    r"(uring|windows|emscripten|wasm|task_trace|tracing_|^dump\.rs|rt_unstable|"
    r"io_poll_aio|net_named_pipe|rt_poll_callbacks|task_hooks|time_alt)"
)
FEATURES = ["full", "fs", "io-util", "io-std", "macros", "net", "process", "rt",
            "rt-multi-thread", "signal", "sync", "time", "test-util", "parking_lot"]
TIME_LIMIT = 120


def run(cmd, cwd, check=True):
    """Runs `cmd`; stdout is captured apart from stderr (cargo's JSON)."""
    res = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    if check and res.returncode != 0:
        sys.stderr.write(res.stderr[-20000:])
        sys.exit(f"failed: {' '.join(cmd)}")
    return res


def tokio_version():
    lock = open(os.path.join(ROOT, "Cargo.lock")).read()
    return re.search(r'name = "tokio"\nversion = "([^"]+)"', lock).group(1)


def tokio_tests_dir(version):
    """tokio's source from the cargo registry (fetched if needed)."""
    fetch = os.path.join(WORK, "fetch")
    os.makedirs(os.path.join(fetch, "src"), exist_ok=True)
    open(os.path.join(fetch, "src", "lib.rs"), "w").write("")
    open(os.path.join(fetch, "Cargo.toml"), "w").write(
        f'[package]\nname = "fetch-tokio"\nversion = "0.0.0"\nedition = "2021"\n'
        f'[dependencies]\ntokio = "={version}"\n[workspace]\n')
    meta = json.loads(run(["cargo", "metadata", "--format-version", "1"], fetch).stdout)
    pkg = next(p for p in meta["packages"] if p["name"] == "tokio")
    return os.path.join(os.path.dirname(pkg["manifest_path"]), "tests")


def setup(version, pattern):
    crate = os.path.join(WORK, "crate")
    tests = os.path.join(crate, "tests")
    shutil.rmtree(tests, ignore_errors=True)
    os.makedirs(os.path.join(crate, "src"), exist_ok=True)
    os.makedirs(os.path.join(crate, "shim", "src"), exist_ok=True)
    open(os.path.join(crate, "src", "lib.rs"), "w").write("")
    open(os.path.join(crate, "shim", "src", "lib.rs"), "w").write("pub use volt::*;\n")
    feats = "\n".join(f'{f} = []' for f in FEATURES if f != "full")
    open(os.path.join(crate, "shim", "Cargo.toml"), "w").write(f"""[package]
name = "tokio"
version = "{version}"
edition = "2021"
[dependencies]
volt = {{ path = "{ROOT}", features = ["full", "test-util"] }}
[features]
default = []
full = []
{feats}
""")
    all_feats = ", ".join(f'"{f}"' for f in FEATURES)
    open(os.path.join(crate, "Cargo.toml"), "w").write(f"""[package]
name = "tokio-suite"
version = "0.0.0"
edition = "2021"
publish = false
[features]
default = [{all_feats}]
{chr(10).join(f'{f} = []' for f in FEATURES)}
[dependencies]
tokio = {{ version = "{version}", features = ["full", "test-util"] }}
volt = {{ path = "{ROOT}", features = ["full", "test-util"] }}
tokio-test = "0.4"
tokio-stream = "0.1"
futures = {{ version = "0.3", features = ["async-await"] }}
futures-test = "0.3"
futures-concurrency = "7.6"
async-stream = "0.3"
tempfile = "3"
rand = "0.9"
socket2 = "0.6"
libc = "0.2"
bytes = "1"
pin-project-lite = "0.2"
mockall = "0.13"
serde_json = "1"
nix = {{ version = "0.31", default-features = false, features = ["fs", "socket", "signal", "process"] }}
[patch.crates-io]
tokio = {{ path = "shim" }}
[workspace]
""")
    src = tokio_tests_dir(version)
    shutil.copytree(os.path.join(src, "support"), os.path.join(tests, "support"))
    for name in sorted(os.listdir(src)):
        if name.endswith(".rs") and not EXCLUDE.search(name) and re.search(pattern, name):
            shutil.copy(os.path.join(src, name), tests)
    sendsync = os.path.join(tests, "async_send_sync.rs")
    if os.path.exists(sendsync):
        s = open(sendsync).read()
        s = s.replace("tokio::macros::support::poll_fn", "std::future::poll_fn")
        # volt's io futures may be `Unpin` where tokio's are not: allowed.
        s = s.replace("        AmbiguousIfUnpin::some_item(&$value);", "        let _ = &$value;", 1)
        open(sendsync, "w").write(s)
    return crate


def known_failures():
    known = {}
    for line in open(KNOWN_FILE):
        line = line.strip()
        if line and not line.startswith("#"):
            name, _, why = line.partition(" ")
            known[name] = why.strip()
    return known


def main():
    pattern = sys.argv[1] if len(sys.argv) > 1 else ""
    version = tokio_version()
    crate = setup(version, pattern)
    known = known_failures()
    res = run(["cargo", "test", "--no-run", "--message-format=json"], crate, check=False)
    bins, errors = {}, []
    for line in res.stdout.splitlines():
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if msg.get("reason") == "compiler-artifact" and msg.get("executable") \
                and msg["target"]["kind"] == ["test"]:
            bins[msg["target"]["name"]] = msg["executable"]
        if msg.get("reason") == "compiler-message" and msg["message"]["level"] == "error":
            errors.append(msg["message"]["rendered"])
    if errors or res.returncode != 0:
        sys.stderr.write("".join(errors[:10]) or res.stderr[-5000:])
        sys.exit("tokio's tests do not compile against volt")

    passed, failed, unexpected, hit = 0, [], [], set()
    for name, exe in sorted(bins.items()):
        # Tests known to hang (or to fail only after long retries) are skipped.
        skips = []
        for k, why in known.items():
            b, _, t = k.partition("::")
            if b == name and why.startswith("skipped"):
                skips += ["--skip", t]
                hit.add(k)
        out = subprocess.run(["timeout", str(TIME_LIMIT), exe, "--test-threads=2", *skips],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True).stdout
        for m in re.finditer(r"^test result: \w+\. (\d+) passed", out, re.M):
            passed += int(m.group(1))
        fails = re.findall(r"^test (\S+)(?: - should panic)? \.\.\. FAILED", out, re.M)
        if "test result:" not in out:
            fails = fails or ["<binary crashed or timed out>"]
        for t in fails:
            key = f"{name}::{t}"
            failed.append(key)
            if key in known:
                hit.add(key)
            else:
                unexpected.append(key)
    stale = sorted(k for k in known if k not in hit and (not pattern or re.search(pattern, k)))
    print(f"tokio {version}: {len(bins)} test files, {passed} tests passed, "
          f"{len(failed)} failed ({len(failed) - len(unexpected)} known), "
          f"{sum(1 for k, w in known.items() if w.startswith('skipped'))} known slow or hanging ones skipped")
    for k in unexpected:
        print(f"  UNEXPECTED: {k}")
    for k in stale:
        print(f"  passes now, remove from the known list: {k}")
    sys.exit(1 if unexpected or stale else 0)


if __name__ == "__main__":
    main()
