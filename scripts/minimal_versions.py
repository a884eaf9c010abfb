#!/usr/bin/env python3
"""Checks that volt builds with every direct dependency at the lowest
version its `Cargo.toml` allows (`cargo -Z direct-minimal-versions`,
nightly), so the lower bounds we declare are true for a user whose
lockfile pins old versions.

    python3 scripts/minimal_versions.py

The workspace's sources are copied to `target/minimal-versions/` with the
dev-dependencies taken out (as `cargo hack --no-dev-deps` does): a user's
build never sees them, and the benches' peers (tokio, kanal, ...) would
otherwise force their own, higher bounds on the shared graph. There the
lockfile is regenerated at minimal versions (nightly cargo), and every
crate is checked with all features (stable). Runs in `.ci/run`; about a minute with a warm cache.
"""
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = os.path.join(ROOT, "target", "minimal-versions")
MEMBERS = [".", "runtime", "sync", "channel", "macros", "compat/tokio"]


def strip_dev(manifest):
    """Removes every `[dev-dependencies]` table (also target-specific
    ones), the bench and test targets, which need them, and loom, which
    only the model tests' `--cfg loom` builds use."""
    out, skip = [], False
    for line in open(manifest).read().splitlines():
        header = re.match(r"^\s*\[\[?([^\]]+)\]\]?\s*$", line)
        if header:
            name = header.group(1)
            skip = (name.endswith("dev-dependencies") or name in ("bench", "test")
                    or "cfg(loom)" in name)
        if not skip:
            out.append(line)
    return "\n".join(out) + "\n"


def main():
    shutil.rmtree(os.path.join(WORK, "src"), ignore_errors=True)
    src = os.path.join(WORK, "src")
    for member in MEMBERS:
        dst = os.path.join(src, member)
        os.makedirs(dst, exist_ok=True)
        for item in ("src", "build.rs"):
            p = os.path.join(ROOT, member, item)
            if os.path.isdir(p):
                shutil.copytree(p, os.path.join(dst, item))
            elif os.path.exists(p):
                shutil.copy(p, dst)
        open(os.path.join(dst, "Cargo.toml"), "w").write(
            strip_dev(os.path.join(ROOT, member, "Cargo.toml")))
    for f in ("README.md",):
        shutil.copy(os.path.join(ROOT, f), src)
    env = dict(os.environ, CARGO_TARGET_DIR=os.path.join(WORK, "target"))
    for cmd in (["cargo", "+nightly", "update", "-Z", "direct-minimal-versions"],
                # The stable toolchain builds: old proc-macro2 releases
                # probe nightly's unstable features and break on new ones.
                ["cargo", "check", "--workspace", "--all-features", "--lib", "--bins"]):
        print("+", " ".join(cmd), flush=True)
        if subprocess.run(cmd, cwd=src, env=env).returncode != 0:
            sys.exit("volt does not build with its declared minimal versions: raise the bound "
                     "named above in its Cargo.toml")
    lock = open(os.path.join(src, "Cargo.lock")).read()
    direct = ["mio", "slab", "libc", "signal-hook-registry", "socket2", "pin-project-lite",
              "bytes", "crossbeam-utils", "tracing", "futures-core", "proc-macro2", "quote", "syn"]
    got = {n: re.findall(rf'name = "{n}"\nversion = "([^"]+)"', lock) for n in direct}
    print("builds at the minimal versions: "
          + ", ".join(f"{n} {'/'.join(v)}" for n, v in got.items() if v))


if __name__ == "__main__":
    main()
