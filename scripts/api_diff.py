#!/usr/bin/env python3
"""Diff volt's public API against tokio's (the version in Cargo.lock).

Builds rustdoc JSON (nightly) for tokio (features full + test-util) and
for volt-runtime, volt-sync and volt-channel, walks each crate's public
module tree (following re-exports), maps tokio's paths onto volt's crates
(`tokio::sync::{broadcast,mpsc,oneshot,watch}` -> volt-channel, the rest
of `tokio::sync` -> volt-sync, what the `volt` facade defines itself ->
volt, everything else -> volt-runtime), and lists:

* public paths tokio has and volt lacks;
* per type, inherent methods (and enum variants, trait items) tokio has
  and volt lacks, and traits tokio implements for the type and volt does
  not, auto traits included (`Send`, `Sync`, `Unpin`, `UnwindSafe`,
  `RefUnwindSafe`; their bounds are not compared);
* methods and functions whose shape differs: number of parameters, or
  `async`/`unsafe`/`const` (an `async fn` where tokio returns `impl
  Future` starts its work later and borrows its arguments).

Differences that are equivalent for a user are listed in KNOWN below (a
`TryFrom` where tokio has the `TryInto` it implies, ...). Anything else
makes the script exit with status 1.

    python3 scripts/api_diff.py          # needs `cargo +nightly`
    python3 scripts/api_diff.py --unstable

`--unstable` documents tokio with `--cfg tokio_unstable` and lists what
volt lacks of that larger API, for information: it exits 0 (volt's
promise is tokio's stable API; README names the unstable parts it has).

Parameter and return types are not compared; tests/auto_traits.rs checks
the main types' auto traits with their bounds at compile time.
"""

import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# tokio's API with `--cfg tokio_unstable` (informational; see above).
UNSTABLE = "--unstable" in sys.argv[1:]
WORK = os.path.join(ROOT, "target", "api-diff-unstable" if UNSTABLE else "api-diff")

# (tokio path, what) pairs that are not gaps. `what` is "path" for a
# missing path, "method:NAME" or "trait:NAME" for a member.
KNOWN = {
    # Drop impls are implementation detail.
    ("tokio::runtime::LocalRuntime", "trait:Drop"): "implementation detail",
    ("tokio::sync::mpsc::WeakSender", "trait:Drop"): "implementation detail",
    ("tokio::sync::mpsc::WeakUnboundedSender", "trait:Drop"): "implementation detail",
    # volt implements TryFrom<ChildStd*> for Stdio, which implies tokio's
    # TryInto<Stdio> for ChildStd*.
    ("tokio::process::ChildStdin", "trait:TryInto<Stdio>"): "TryFrom on Stdio",
    ("tokio::process::ChildStdout", "trait:TryInto<Stdio>"): "TryFrom on Stdio",
    ("tokio::process::ChildStderr", "trait:TryInto<Stdio>"): "TryFrom on Stdio",
    # rustdoc files `impl AsRef<TcpStream> for ReadHalf` under the stream
    # too; volt has those impls on the halves.
    ("tokio::net::TcpStream", "trait:AsRef<TcpStream>"): "impl is on the halves",
    ("tokio::net::UnixStream", "trait:AsRef<UnixStream>"): "impl is on the halves",
}


def run(cmd, cwd):
    res = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if res.returncode != 0:
        sys.stderr.write(res.stdout)
        sys.exit(f"failed: {' '.join(cmd)}")


def tokio_version():
    lock = open(os.path.join(ROOT, "Cargo.lock")).read()
    m = re.search(r'name = "tokio"\nversion = "([^"]+)"', lock)
    if not m:
        sys.exit("tokio is not in Cargo.lock")
    return m.group(1)


def build_json():
    """A throwaway crate depending on tokio and volt's crates, so cargo
    can rustdoc each of them with the features below."""
    crate = os.path.join(WORK, "crate")
    os.makedirs(os.path.join(crate, "src"), exist_ok=True)
    open(os.path.join(crate, "src", "lib.rs"), "w").write("")
    features = '"rt", "rt-multi-thread", "macros", "time", "net", "io-util", "io-std", "fs", "signal", "process", "test-util"'
    open(os.path.join(crate, "Cargo.toml"), "w").write(f"""[package]
name = "volt-api-diff"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
tokio = {{ version = "={tokio_version()}", features = ["full", "test-util"] }}
volt-runtime = {{ path = "{ROOT}/runtime", features = [{features}] }}
volt-sync = {{ path = "{ROOT}/sync" }}
volt-channel = {{ path = "{ROOT}/channel", features = ["time", "futures-core"] }}
volt = {{ path = "{ROOT}", features = ["full", "test-util"] }}

[workspace]
""")
    env_target = os.path.join(WORK, "target")
    for pkg in ["tokio", "volt-runtime", "volt-sync", "volt-channel", "volt"]:
        run(["cargo", "+nightly", "rustdoc", "-q", "-p", pkg, "--lib", "--target-dir", env_target,
             "--", "-Z", "unstable-options", "--output-format", "json"]
            + (["--cfg", "tokio_unstable"] if UNSTABLE and pkg == "tokio" else []), crate)
    docs = os.path.join(env_target, "doc")
    return {n: json.load(open(os.path.join(docs, n + ".json")))
            for n in ["tokio", "volt_runtime", "volt_sync", "volt_channel", "volt"]}


def kind(item):
    return next(iter(item["inner"].keys()))


def walk(doc, mod_id, prefix, out, seen):
    """Public items reachable from module `mod_id`, by public path."""
    if mod_id in seen:
        return
    seen.add(mod_id)
    for iid in doc["index"][str(mod_id)]["inner"]["module"]["items"]:
        it = doc["index"].get(str(iid))
        if it is None or it["visibility"] != "public":
            continue
        if kind(it) == "use":
            use = it["inner"]["use"]
            target = doc["index"].get(str(use["id"])) if use["id"] is not None else None
            if use["is_glob"]:
                if target is not None and kind(target) == "module":
                    walk(doc, use["id"], prefix, out, seen)
                continue
            if target is None:
                out[prefix + (use["name"],)] = None  # from another crate
                continue
            register(doc, target, use["id"], prefix + (use["name"],), out, seen)
        else:
            register(doc, it, iid, prefix + (it["name"],), out, seen)


def register(doc, it, iid, path, out, seen):
    out[path] = iid
    if kind(it) == "module":
        walk(doc, iid, path, out, seen)


def type_name(t):
    t = t.get("type", t)
    if "resolved_path" in t:
        return t["resolved_path"]["path"].split("::")[-1]
    if "generic" in t:
        return "_"
    if "primitive" in t:
        return t["primitive"]
    return "?"


def own_impls(doc, it):
    """The impls of struct/enum/union `it` written for the type itself
    (rustdoc also files impls that merely mention it), including the
    auto traits it gets, minus blanket and negative impls: (trait path or
    None, impl item ids)."""
    k = kind(it)
    if k not in ("struct", "enum", "union"):
        return
    for impl_id in it["inner"][k]["impls"]:
        im = doc["index"].get(str(impl_id))
        if im is None:
            continue
        imp = im["inner"]["impl"]
        # Auto-trait impls (`is_synthetic`) count: a type that is not
        # `UnwindSafe` where tokio's is breaks a `catch_unwind` caller.
        if imp.get("is_negative") or imp.get("blanket_impl"):
            continue
        if type_name(imp["for"]) != it["name"]:
            continue
        yield imp["trait"], imp["items"]


def members(doc, iid):
    """(inherent member names, implemented trait names) of an item."""
    it = doc["index"][str(iid)]
    k = kind(it)
    names, traits = set(), set()
    for trait, items in own_impls(doc, it):
        if trait is None:
            for mid in items:
                m = doc["index"].get(str(mid))
                if m and m["visibility"] == "public" and m["name"]:
                    names.add(m["name"])
        else:
            name = (trait.get("path") or trait.get("name")).split("::")[-1]
            args = trait.get("args") or {}
            generic = args.get("angle_bracketed", {}).get("args", []) if isinstance(args, dict) else []
            if generic:
                name += "<" + ",".join(type_name(a) for a in generic) + ">"
            traits.add(name)
    if k == "enum":
        for v in it["inner"]["enum"]["variants"]:
            var = doc["index"].get(str(v))
            if var:
                names.add("variant " + var["name"])
    elif k == "trait":
        for mid in it["inner"]["trait"]["items"]:
            m = doc["index"].get(str(mid))
            if m:
                names.add(m["name"])
    return names, traits


def fn_shapes(doc, iid):
    """Name -> (number of parameters, async, unsafe, const) of an item's
    inherent methods, or of the item itself if it is a function."""
    it = doc["index"][str(iid)]
    k = kind(it)

    def shape(f):
        h = f["header"]
        return (len(f["sig"]["inputs"]), h.get("is_async"), h.get("is_unsafe"), h.get("is_const"))

    if k == "function":
        return {"": shape(it["inner"]["function"])}
    out = {}
    for trait, items in own_impls(doc, it):
        if trait is None:
            for mid in items:
                m = doc["index"].get(str(mid))
                if m and m["visibility"] == "public" and "function" in m["inner"]:
                    out[m["name"]] = shape(m["inner"]["function"])
    return out


def volt_crate_and_path(tokio_path):
    rest = tokio_path[1:]
    if rest[:1] == ("sync",):
        if rest[1:2] and rest[1] in ("broadcast", "mpsc", "oneshot", "watch"):
            return "volt_channel", rest[1:]
        return "volt_sync", rest[1:]
    return "volt_runtime", rest


def main():
    docs = build_json()
    tok = {}
    walk(docs["tokio"], docs["tokio"]["root"], ("tokio",), tok, set())
    volt = {}
    for c in ["volt_runtime", "volt_sync", "volt_channel", "volt"]:
        paths = {}
        walk(docs[c], docs[c]["root"], (), paths, set())
        volt[c] = paths

    gaps, known, hit = [], [], set()

    def note(name, what, text):
        if (name, what) in KNOWN:
            hit.add((name, what))
            known.append(text)
        else:
            gaps.append(text)

    for tpath, tid in sorted(tok.items()):
        name = "::".join(tpath)
        crate, vpath = volt_crate_and_path(tpath)
        if volt["volt"].get(tpath[1:]) is not None:
            # Defined in the facade itself (`volt::stream`).
            crate, vpath = "volt", tpath[1:]
        if vpath not in volt[crate]:
            note(name, "path", f"{name}: missing")
            continue
        vid = volt[crate][vpath]
        if tid is None or vid is None:
            continue
        t_names, t_traits = members(docs["tokio"], tid)
        v_names, v_traits = members(docs[crate], vid)
        for m in sorted(t_names - v_names):
            note(name, "method:" + m, f"{name}: no `{m}`")
        for t in sorted(t_traits - v_traits):
            note(name, "trait:" + t, f"{name}: no impl {t}")
        # Same number of parameters, and async/unsafe/const alike: an
        # `async fn` where tokio returns `impl Future` (or the reverse)
        # changes when the work starts and what the future borrows.
        t_fns, v_fns = fn_shapes(docs["tokio"], tid), fn_shapes(docs[crate], vid)
        for f in sorted(set(t_fns) & set(v_fns)):
            if t_fns[f] != v_fns[f]:
                what = f"{name}{'::' + f if f else ''}"
                note(name, "shape:" + f, f"{what}: (params, async, unsafe, const) "
                     f"tokio {t_fns[f]}, volt {v_fns[f]}")

    print(f"tokio {tokio_version()}: {len(tok)} public paths compared")
    print(f"equivalent differences (KNOWN): {len(known)}")
    if UNSTABLE:
        print("tokio_unstable API that volt lacks:" if gaps else "nothing of tokio_unstable is missing")
        for g in gaps:
            print("  " + g)
        return
    # An entry that no longer matches anything is stale: drop it.
    gaps += [f"stale KNOWN entry: {k}" for k in sorted(set(KNOWN) - hit)]
    if gaps:
        print("gaps:")
        for g in gaps:
            print("  " + g)
        sys.exit(1)
    print("no gaps")


if __name__ == "__main__":
    main()
