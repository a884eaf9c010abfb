//! The `tracing` feature: a span per task (id and spawn location) and
//! runtime lifecycle events. Run with `cargo test --features tracing --test
//! rt_tracing` (CI does).

use std::sync::{Arc, Mutex};

use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Metadata, Subscriber};

#[derive(Default)]
struct Seen {
    spans: Vec<(String, Vec<(String, String)>)>,
    events: Vec<String>,
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
        self.0
            .lock()
            .unwrap()
            .spans
            .push((attrs.metadata().name().to_string(), f.0));
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
        self.0.lock().unwrap().events.push(msg);
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
        let (name, fields) = seen
            .spans
            .iter()
            .find(|(n, _)| n == "runtime.spawn")
            .expect("a span for the task");
        assert_eq!(name, "runtime.spawn");
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
