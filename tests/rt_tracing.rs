//! The `tracing` feature: what tokio emits and tokio-console reads (task
//! spans, waker events, resources and their async ops and state updates,
//! with tokio's targets, names and fields), and runtime lifecycle events.
//! Run with `cargo test --features tracing --test rt_tracing` (CI does).

use std::sync::{Arc, Mutex};

use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Metadata, Subscriber};

/// A span's (name, target, fields).
type SpanSeen = (String, String, Vec<(String, String)>);

#[derive(Default)]
struct Seen {
    /// (name, target, fields)
    spans: Vec<SpanSeen>,
    /// Messages of the events that have one.
    events: Vec<String>,
    /// (target, fields) of every event.
    all_events: Vec<(String, Vec<(String, String)>)>,
}

impl Seen {
    fn span(&self, name: &str, field: &str, value: &str) -> Option<&SpanSeen> {
        self.spans
            .iter()
            .find(|(n, _, f)| n == name && f.iter().any(|(k, v)| k == field && v == value))
    }

    fn events_of(&self, target: &str) -> Vec<&Vec<(String, String)>> {
        self.all_events
            .iter()
            .filter(|(t, _)| t == target)
            .map(|(_, f)| f)
            .collect()
    }
}

struct Collect(Arc<Mutex<Seen>>, std::sync::atomic::AtomicU64);

struct Fields(Vec<(String, String)>);
impl Visit for Fields {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0
            .push((field.name().to_string(), format!("{value:?}")));
    }
}

impl Subscriber for Collect {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, attrs: &Attributes<'_>) -> Id {
        let mut f = Fields(Vec::new());
        attrs.record(&mut f);
        self.0.lock().unwrap().spans.push((
            attrs.metadata().name().to_string(),
            attrs.metadata().target().to_string(),
            f.0,
        ));
        Id::from_u64(self.1.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1)
    }
    fn record(&self, _: &Id, _: &Record<'_>) {}
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, event: &Event<'_>) {
        let mut f = Fields(Vec::new());
        event.record(&mut f);
        let msg =
            f.0.iter()
                .find(|(k, _)| k == "message")
                .map(|(_, v)| v.clone())
                .unwrap_or_default();
        let mut seen = self.0.lock().unwrap();
        if !msg.is_empty() {
            seen.events.push(msg);
        }
        seen.all_events
            .push((event.metadata().target().to_string(), f.0));
    }
    fn enter(&self, _: &Id) {}
    fn exit(&self, _: &Id) {}
}

#[test]
fn tasks_get_spans_and_runtimes_report_start_and_stop() {
    let seen = Arc::new(Mutex::new(Seen::default()));
    let sub = Collect(seen.clone(), std::sync::atomic::AtomicU64::new(0));
    tracing::subscriber::with_default(sub, || {
        let rt = volt::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let id = rt.block_on(async {
            let h = volt::spawn(async {}); // the spawn site below is recorded
            let id = h.id();
            h.await.unwrap();
            id
        });
        drop(rt);

        let seen = seen.lock().unwrap();
        let (name, target, fields) = seen
            .spans
            .iter()
            .find(|(n, _, _)| n == "runtime.spawn")
            .expect("a span for the task");
        assert_eq!(
            (name.as_str(), target.as_str()),
            ("runtime.spawn", "tokio::task")
        );
        let get = |k: &str| fields.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
        assert_eq!(get("task.id"), Some(id.to_string()));
        assert_eq!(get("loc.file").as_deref(), Some("\"tests/rt_tracing.rs\""));
        assert!(get("loc.line").is_some());
        assert_eq!(
            seen.events,
            [
                "runtime started",
                "runtime shutting down",
                "runtime stopped"
            ]
        );
    });
}

/// What tokio-console reads: task names and kinds, waker operations, and
/// resources with their async ops and state updates.
#[test]
fn console_instrumentation_has_tokios_shape() {
    let seen = Arc::new(Mutex::new(Seen::default()));
    let sub = Collect(seen.clone(), std::sync::atomic::AtomicU64::new(0));
    tracing::subscriber::with_default(sub, || {
        let rt = volt::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            let sem = Arc::new(volt::sync::Semaphore::new(1));
            let held = sem.clone().acquire_owned().await.unwrap();
            let (tx, rx) = volt::sync::oneshot::channel::<u32>();
            let waiter = volt::task::Builder::new()
                .name("waiter")
                .spawn(async move {
                    let _permit = sem.acquire().await.unwrap();
                    rx.await.unwrap()
                })
                .unwrap();
            volt::task::yield_now().await;
            drop(held);
            volt::time::sleep(std::time::Duration::from_millis(1)).await;
            tx.send(5).unwrap();
            assert_eq!(waiter.await.unwrap(), 5);
            let blocking = volt::task::Builder::new()
                .name("blocking-one")
                .spawn_blocking(|| 1)
                .unwrap();
            assert_eq!(blocking.await.unwrap(), 1);
            let mut set = volt::task::JoinSet::new();
            set.build_task().name("in-a-set").spawn(async {}).unwrap();
            set.join_next().await.unwrap().unwrap();
        });
        drop(rt);

        let seen = seen.lock().unwrap();
        // Named tasks, with their kind and size.
        let (_, _, waiter) = seen
            .span("runtime.spawn", "task.name", "waiter")
            .expect("the named task");
        assert!(waiter.iter().any(|(k, v)| k == "kind" && v == "task"));
        assert!(waiter.iter().any(|(k, _)| k == "size.bytes"));
        assert!(
            seen.span("runtime.spawn", "task.name", "blocking-one")
                .is_some()
        );
        assert!(seen.span("runtime.spawn", "kind", "blocking").is_some());
        assert!(
            seen.span("runtime.spawn", "task.name", "in-a-set")
                .is_some()
        );
        // Waker operations, by the task span's id.
        let ops: Vec<String> = seen
            .events_of("tokio::task::waker")
            .iter()
            .filter_map(|f| f.iter().find(|(k, _)| k == "op").map(|(_, v)| v.clone()))
            .collect();
        for op in ["waker.clone", "waker.wake", "waker.drop"] {
            assert!(ops.iter().any(|o| o.contains(op)), "no {op} in {ops:?}");
        }
        // Resources, async ops and state updates.
        for ty in ["Semaphore", "Sleep", "Sender|Receiver"] {
            let debug = format!("{ty:?}");
            assert!(
                seen.span("runtime.resource", "concrete_type", &debug)
                    .is_some()
                    || seen.span("runtime.resource", "concrete_type", ty).is_some(),
                "no {ty} resource"
            );
        }
        assert!(seen.spans.iter().any(|(n, _, f)| {
            n == "runtime.resource.async_op"
                && f.iter()
                    .any(|(k, v)| k == "source" && v.contains("Semaphore::acquire"))
        }));
        assert!(!seen.events_of("runtime::resource::state_update").is_empty());
        assert!(!seen.events_of("runtime::resource::poll_op").is_empty());
    });
}
