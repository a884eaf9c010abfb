//! A program under console-subscriber, read back through its gRPC API
//! (console-api's `InstrumentClient`), as tokio-console reads it.
//!
//! Named tasks wait on a `Sleep`, a `Semaphore`, a `Mutex`, an `RwLock`, a
//! `Barrier`, a oneshot and an mpsc channel. The program then checks what
//! the console would show: every task name, wake-ups counted, each kind
//! of resource present with its async operations, and no task that is
//! waiting without a live waker (tokio-console's "lost waker" warning).
//! Exit status 0 when all of that holds; it prints what it saw either way.

use console_api::instrument::instrument_client::InstrumentClient;
use console_api::instrument::InstrumentRequest;
use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, oneshot, Barrier, Mutex, RwLock, Semaphore};
use tracing_subscriber::prelude::*;

const NAMES: &[&str] = &[
    "sleeper",
    "sem-holder",
    "sem-waiter",
    "mutex-user",
    "rwlock-user",
    "barrier-a",
    "barrier-b",
    "oneshot-rx",
    "mpsc-rx",
    "mpsc-tx",
    "idle-forever",
];

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let layer = console_subscriber::ConsoleLayer::builder()
        .server_addr(([127, 0, 0, 1], port))
        .publish_interval(Duration::from_millis(100))
        .spawn();
    tracing_subscriber::registry().with(layer).init();

    // Connected first: by then the console's own thread has spawned its
    // tasks, so the spawn callsite is registered. A task spawned while
    // another thread is registering that callsite is created before the
    // console layer knows the callsite is a spawn, and is not recorded (a
    // race between `tracing-core`'s registration and console-subscriber,
    // the same on tokio); the workload starts after it.
    let client = connect(port).await;
    spawn_workload();
    let failures = check(client).await;
    if failures.is_empty() {
        println!("console-subscriber ran: every check passed");
    } else {
        for f in &failures {
            println!("FAILED: {f}");
        }
        std::process::exit(1);
    }
}

fn named(name: &'static str, f: impl std::future::Future<Output = ()> + Send + 'static) {
    tokio::task::Builder::new().name(name).spawn(f).unwrap();
}

fn spawn_workload() {
    named("sleeper", async {
        loop {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    });
    let sem = Arc::new(Semaphore::new(1));
    let s = sem.clone();
    named("sem-holder", async move {
        loop {
            let permit = s.acquire().await.unwrap();
            tokio::time::sleep(Duration::from_millis(30)).await;
            drop(permit);
            tokio::task::yield_now().await;
        }
    });
    named("sem-waiter", async move {
        loop {
            let _permit = sem.acquire().await.unwrap();
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    });
    let mutex = Arc::new(Mutex::new(0u64));
    named("mutex-user", async move {
        loop {
            *mutex.lock().await += 1;
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    });
    let rw = Arc::new(RwLock::new(0u64));
    named("rwlock-user", async move {
        loop {
            *rw.write().await += 1;
            let _ = *rw.read().await;
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    });
    let barrier = Arc::new(Barrier::new(2));
    for name in ["barrier-a", "barrier-b"] {
        let b = barrier.clone();
        named(name, async move {
            loop {
                b.wait().await;
                tokio::time::sleep(Duration::from_millis(15)).await;
            }
        });
    }
    let (otx, orx) = oneshot::channel::<u32>();
    named("oneshot-rx", async move {
        let _ = orx.await;
    });
    let (mtx, mut mrx) = mpsc::channel::<u32>(4);
    named(
        "mpsc-rx",
        async move { while mrx.recv().await.is_some() {} },
    );
    named("mpsc-tx", async move {
        let _otx = otx;
        for i in 0.. {
            if mtx.send(i).await.is_err() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    });
    let (_keep, never) = oneshot::channel::<()>();
    std::mem::forget(_keep);
    named("idle-forever", async move {
        let _ = never.await;
    });
}

type Client = InstrumentClient<tonic::transport::Channel>;

/// The console's gRPC client, once its server answers.
async fn connect(port: u16) -> Client {
    let url = format!("http://127.0.0.1:{port}");
    loop {
        match InstrumentClient::connect(url.clone()).await {
            Ok(c) => return c,
            Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
        }
    }
}

/// Reads the console's updates for a while and checks them.
async fn check(mut client: Client) -> Vec<String> {
    let mut stream = client
        .watch_updates(InstrumentRequest {})
        .await
        .unwrap()
        .into_inner();
    let mut field_names: HashMap<u64, Vec<String>> = HashMap::new();
    let mut spawned = Vec::new();
    let mut stats: HashMap<u64, console_api::tasks::Stats> = HashMap::new();
    let mut resources = BTreeSet::new();
    let mut async_ops = 0usize;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(3);
    while tokio::time::Instant::now() < deadline {
        let Ok(Ok(Some(update))) =
            tokio::time::timeout(Duration::from_secs(1), stream.message()).await
        else {
            continue;
        };
        if let Some(meta) = update.new_metadata {
            for m in meta.metadata {
                if let (Some(id), Some(md)) = (m.id, m.metadata) {
                    field_names.insert(id.id, md.field_names);
                }
            }
        }
        if let Some(tasks) = update.task_update {
            for task in tasks.new_tasks {
                let id = task.id.map_or(0, |i| i.id);
                let meta = task.metadata.map_or(0, |m| m.id);
                spawned.push((id, meta, task.fields));
            }
            stats.extend(tasks.stats_update);
        }
        if let Some(res) = update.resource_update {
            for r in res.new_resources {
                resources.insert(r.concrete_type);
            }
        }
        if let Some(ops) = update.async_op_update {
            async_ops += ops.new_async_ops.len();
        }
    }
    // Names resolved once every update is in: a field names its key by
    // index into its callsite's metadata, which may come in a later update.
    let mut task_names: HashMap<u64, String> = HashMap::new();
    for (id, meta, fields) in spawned {
        for f in fields {
            use console_api::field::{Name, Value};
            let name = match f.name {
                Some(Name::StrName(s)) => s,
                Some(Name::NameIdx(i)) => field_names
                    .get(&meta)
                    .and_then(|n| n.get(i as usize).cloned())
                    .unwrap_or_default(),
                None => String::new(),
            };
            if name == "task.name" {
                if let Some(Value::DebugVal(v) | Value::StrVal(v)) = f.value {
                    task_names.insert(id, v);
                }
            }
        }
    }
    println!(
        "tasks named: {:?}",
        task_names.values().collect::<BTreeSet<_>>()
    );
    println!("resources: {resources:?}; async ops: {async_ops}");
    let mut failures = Vec::new();
    for name in NAMES {
        if !task_names.values().any(|n| n == name) {
            failures.push(format!("no task named {name}"));
        }
    }
    let woken: u64 = task_names
        .keys()
        .filter_map(|id| stats.get(id))
        .map(|s| s.wakes)
        .sum();
    println!("wakes of the named tasks: {woken}");
    if woken == 0 {
        failures.push("no wake-up counted".into());
    }
    for want in [
        "Sleep",
        "Semaphore",
        "Mutex",
        "RwLock",
        "Barrier",
        "Sender|Receiver",
        "mpsc::Sender|Receiver",
    ] {
        if !resources.contains(want) {
            failures.push(format!("no {want} resource"));
        }
    }
    if async_ops == 0 {
        failures.push("no async op".into());
    }
    // tokio-console's lost-waker lint: a task that is not done, not
    // running, not woken since its last poll, and holds no waker anyone
    // could wake it with.
    let at = |t: &Option<prost_types::Timestamp>| t.as_ref().map(|t| (t.seconds, t.nanos));
    for (id, name) in &task_names {
        if let Some(s) = stats.get(id) {
            let Some(p) = s.poll_stats.as_ref().filter(|p| p.polls > 0) else {
                continue;
            };
            let running = at(&p.last_poll_started) > at(&p.last_poll_ended);
            let awakened = at(&s.last_wake) > at(&p.last_poll_started);
            let live_wakers = s.waker_clones.saturating_sub(s.waker_drops);
            if s.dropped_at.is_none() && !running && !awakened && live_wakers == 0 {
                failures.push(format!("task {name} has lost its waker ({s:?})"));
            }
        }
    }
    failures
}
