#!/usr/bin/env python3
"""Runs tokio's own integration tests against volt, then the whole test
suites of tokio-util and tokio-stream.

tokio's `tests/*.rs` (the version in Cargo.lock) are copied unchanged into
a scratch crate under `target/tokio-suite`, whose `tokio` dependency is
patched to volt's compat crate (`compat/tokio`), as a user's would be.
tokio-test and tokio-stream come from crates.io and compile against it
too, so the files build exactly as tokio's CI builds them; the only edits
are two in `async_send_sync.rs` (it reaches into tokio's hidden
`macros::support`, and asserts `!Unpin` for a few io futures that volt
makes `Unpin`, which is a superset).

tokio-util and tokio-stream are copied whole from the registry (at the
versions in `COMPANIONS`) and their own tests, doc tests included, run
with their `tokio` patched to the compat crate: their library code runs on
volt as a service's would.

Every test binary runs with a time limit; the tests that fail (or hang)
for a known, deliberate or environmental reason are listed in
`scripts/tokio_suite_known.txt` with that reason. The script exits with
status 1 on any other failure, on a compile error, and on a listed test
that now passes (so the list stays true).

    python3 scripts/tokio_suite.py            # everything, 10 to 20 minutes
    python3 scripts/tokio_suite.py sync_mpsc  # only files whose name matches
    python3 scripts/tokio_suite.py --unstable # tokio's tests as tokio's CI runs
                                              # them with --cfg tokio_unstable

With `--unstable` everything is built with `RUSTFLAGS="--cfg
tokio_unstable"` (in `target/tokio-suite-unstable`), which turns on the
parts of tokio's test files that use its unstable API and adds the files
that are all about it (task hooks, poll callbacks, the unstable metrics,
the alternative timer, eager driver hand-off). Failures known only there
are listed in `scripts/tokio_suite_known_unstable.txt`. Task dumps
(`tokio_taskdump`), io_uring and the `tracing` instrumentation tests stay
out.

Needs network access the first time (crates.io), like `cargo fetch`.
"""

import json
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
UNSTABLE = "--unstable" in sys.argv[1:]
WORK = os.path.join(ROOT, "target", "tokio-suite-unstable" if UNSTABLE else "tokio-suite")
KNOWN_FILES = [os.path.join(ROOT, "scripts", "tokio_suite_known.txt")]
if UNSTABLE:
    KNOWN_FILES.append(os.path.join(ROOT, "scripts", "tokio_suite_known_unstable.txt"))
    os.environ["RUSTFLAGS"] = (os.environ.get("RUSTFLAGS", "") + " --cfg tokio_unstable").strip()
COMPAT = os.path.join(ROOT, "compat", "tokio")

# Files for other platforms or tokio internals; without `--unstable`, also
# the files about tokio's unstable API.
EXCLUDE = re.compile(
    r"(uring|windows|emscripten|wasm|task_trace|tracing_|^dump\.rs|io_poll_aio|net_named_pipe"
    + ("" if UNSTABLE else r"|rt_unstable|rt_poll_callbacks|task_hooks|time_alt") + ")"
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


# tokio's companion crates whose own test suites also run against volt
# (their library code and their tests compile against the compat crate), at the
# versions last checked.
COMPANIONS = {"tokio-util": "0.7.20", "tokio-stream": "0.1.19"}


def package_dirs(version):
    """Source folders of tokio and the companions from the cargo registry
    (fetched if needed)."""
    fetch = os.path.join(WORK, "fetch")
    os.makedirs(os.path.join(fetch, "src"), exist_ok=True)
    open(os.path.join(fetch, "src", "lib.rs"), "w").write("")
    deps = "".join(f'{n} = {{ version = "={v}", features = ["full"] }}\n'
                   for n, v in COMPANIONS.items())
    open(os.path.join(fetch, "Cargo.toml"), "w").write(
        f'[package]\nname = "fetch-tokio"\nversion = "0.0.0"\nedition = "2021"\n'
        f'[dependencies]\ntokio = "={version}"\n{deps}[workspace]\n')
    meta = json.loads(run(["cargo", "metadata", "--format-version", "1"], fetch).stdout)
    wanted = {"tokio": version, **COMPANIONS}
    return {p["name"]: os.path.dirname(p["manifest_path"]) for p in meta["packages"]
            if wanted.get(p["name"]) == p["version"]}


def setup(version, pattern):
    crate = os.path.join(WORK, "crate")
    tests = os.path.join(crate, "tests")
    shutil.rmtree(tests, ignore_errors=True)
    os.makedirs(os.path.join(crate, "src"), exist_ok=True)
    open(os.path.join(crate, "src", "lib.rs"), "w").write("")
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
tokio = {{ path = "{COMPAT}" }}
[workspace]
""")
    src = os.path.join(package_dirs(version)["tokio"], "tests")
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


def run_companion(name, known):
    """Copies the companion crate, points its `tokio` at the compat crate,
    runs all its tests (doc tests included). Returns (passed, failures)."""
    version = tokio_version()
    src = package_dirs(version)[name]
    crate = os.path.join(WORK, name)
    shutil.rmtree(crate, ignore_errors=True)
    shutil.copytree(src, crate, ignore=shutil.ignore_patterns("Cargo.lock", "target"))
    toml = os.path.join(crate, "Cargo.toml")
    s = open(toml).read()
    s += f'\n[patch.crates-io]\ntokio = {{ path = "{COMPAT}" }}\n\n[workspace]\n'
    open(toml, "w").write(s)
    skips = []
    for k, why in known.items():
        c, _, t = k.partition("::")
        if c == name and why.startswith("skipped"):
            skips += ["--skip", t]
    res = subprocess.run(["timeout", "1800", "cargo", "test", "--features", "full",
                          "--no-fail-fast", "--", "--test-threads=2", *skips], cwd=crate,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out = res.stdout
    if re.search(r"^error(\[E\d+\])?: ", out, re.M) and "test result:" not in out:
        sys.stderr.write(out[-5000:])
        sys.exit(f"{name}'s tests do not compile against volt")
    passed = sum(int(m.group(1)) for m in re.finditer(r"^test result: \w+\. (\d+) passed", out, re.M))
    fails = re.findall(r"^test (.+?)(?: - should panic)? \.\.\. FAILED", out, re.M)
    if res.returncode == 124:
        fails.append("<timed out>")
    return passed, [f"{name}::{t}" for t in fails]


def known_failures():
    known = {}
    for path in KNOWN_FILES:
        for line in open(path):
            line = line.strip()
            if line and not line.startswith("#"):
                name, _, why = line.partition(" ")
                known[name] = why.strip()
    return known


def main():
    args = [a for a in sys.argv[1:] if a != "--unstable"]
    pattern = args[0] if args else ""
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
    print(f"tokio {version}{' (--cfg tokio_unstable)' if UNSTABLE else ''}: "
          f"{len(bins)} test files, {passed} tests passed, "
          f"{len(failed)} failed ({len(failed) - len(unexpected)} known), "
          f"{sum(1 for k, w in known.items() if w.startswith('skipped'))} known slow or hanging ones skipped")
    ran = set(bins)
    for name, cversion in COMPANIONS.items():
        if pattern and not re.search(pattern, name):
            continue
        ran.add(name)
        cpassed, cfailed = run_companion(name, known)
        for key in cfailed:
            if key in known:
                hit.add(key)
            else:
                unexpected.append(key)
        hit.update(k for k, w in known.items()
                   if k.startswith(name + "::") and w.startswith("skipped"))
        print(f"{name} {cversion}: {cpassed} tests passed (doc tests included), "
              f"{len(cfailed)} failed")
    # Stale: known to fail, yet its test file ran and it did not fail. (A
    # pattern can match a known test's name but not its file's.)
    stale = sorted(k for k in known if k not in hit and k.partition("::")[0] in ran)
    for k in unexpected:
        print(f"  UNEXPECTED: {k}")
    for k in stale:
        print(f"  passes now, remove from the known list: {k}")
    sys.exit(1 if unexpected or stale else 0)


if __name__ == "__main__":
    main()
