//! The poll-time histogram (`Builder::enable_metrics_poll_time_histogram`
//! and `RuntimeMetrics::poll_time_histogram_*`; tokio has them behind
//! `tokio_unstable`, volt offers them stable): tokio's
//! `worker_poll_count_histogram` cases, and where a long poll lands.

use std::time::Duration;

use volt::runtime::{Builder, HistogramConfiguration, HistogramScale, LogHistogram, Runtime};

const N: u64 = 50;

fn runtimes(configure: impl Fn(&mut Builder)) -> Vec<Runtime> {
    let mut current = Builder::new_current_thread();
    let mut threaded = Builder::new_multi_thread();
    threaded.worker_threads(2);
    [current.enable_all(), threaded.enable_all()]
        .into_iter()
        .map(|b| {
            configure(b);
            b.build().unwrap()
        })
        .collect()
}

fn total_count(metrics: &volt::runtime::RuntimeMetrics) -> u64 {
    let buckets = metrics.poll_time_histogram_num_buckets();
    (0..metrics.num_workers())
        .flat_map(|w| (0..buckets).map(move |b| (w, b)))
        .map(|(w, b)| metrics.poll_time_histogram_bucket_count(w, b))
        .sum()
}

#[test]
fn off_by_default() {
    for rt in runtimes(|_| {}) {
        let metrics = rt.metrics();
        rt.block_on(async { volt::spawn(async {}).await.unwrap() });
        assert!(!metrics.poll_time_histogram_enabled());
        assert_eq!(metrics.poll_time_histogram_num_buckets(), 0);
        assert_eq!(
            metrics.poll_time_histogram_bucket_range(3),
            Duration::ZERO..Duration::ZERO
        );
        assert_eq!(metrics.poll_time_histogram_bucket_count(0, 3), 0);
    }
}

/// Every task poll is counted once, in one of the worker's buckets.
#[test]
fn every_poll_is_counted() {
    let configs: [fn(&mut Builder); 3] = [
        |b| {
            b.enable_metrics_poll_time_histogram()
                .metrics_poll_time_histogram_configuration(HistogramConfiguration::linear(
                    Duration::from_millis(50),
                    3,
                ));
        },
        |b| {
            b.enable_metrics_poll_time_histogram()
                .metrics_poll_time_histogram_configuration(HistogramConfiguration::log(
                    LogHistogram::default(),
                ));
        },
        #[allow(deprecated)]
        |b| {
            b.enable_metrics_poll_count_histogram()
                .metrics_poll_count_histogram_scale(HistogramScale::Log)
                .metrics_poll_count_histogram_resolution(Duration::from_micros(50))
                .metrics_poll_count_histogram_buckets(8);
        },
    ];
    let buckets = [3, 119, 8];
    for (configure, buckets) in configs.into_iter().zip(buckets) {
        for rt in runtimes(configure) {
            let metrics = rt.metrics();
            rt.block_on(async {
                for _ in 0..N {
                    volt::spawn(async {}).await.unwrap();
                }
            });
            drop(rt);
            assert!(metrics.poll_time_histogram_enabled());
            assert_eq!(metrics.poll_time_histogram_num_buckets(), buckets);
            assert_eq!(total_count(&metrics), N);
            let polls: u64 = (0..metrics.num_workers())
                .map(|w| metrics.worker_poll_count(w))
                .sum();
            assert_eq!(polls, N);
        }
    }
}

/// A poll that blocks its worker for 30 ms is counted in a bucket that
/// reaches past 30 ms; the quick ones in the first.
#[test]
fn a_long_poll_lands_in_a_late_bucket() {
    for rt in runtimes(|b| {
        b.enable_metrics_poll_time_histogram()
            .metrics_poll_time_histogram_configuration(HistogramConfiguration::linear(
                Duration::from_millis(10),
                10,
            ));
    }) {
        let metrics = rt.metrics();
        rt.block_on(async {
            volt::spawn(async { std::thread::sleep(Duration::from_millis(30)) })
                .await
                .unwrap();
        });
        drop(rt);
        let late: u64 = (0..metrics.num_workers())
            .flat_map(|w| (3..10).map(move |b| (w, b)))
            .map(|(w, b)| metrics.poll_time_histogram_bucket_count(w, b))
            .sum();
        assert_eq!(late, 1);
        assert_eq!(
            metrics.poll_time_histogram_bucket_range(3),
            Duration::from_millis(30)..Duration::from_millis(40)
        );
        assert_eq!(
            metrics.poll_time_histogram_bucket_range(9),
            Duration::from_millis(90)..Duration::from_nanos(u64::MAX)
        );
    }
}

#[test]
#[should_panic = "bucket 10 out of range: the histogram has 10 buckets"]
fn bucket_range_past_the_end_panics() {
    let rt = Builder::new_current_thread()
        .enable_metrics_poll_time_histogram()
        .build()
        .unwrap();
    let _ = rt.metrics().poll_time_histogram_bucket_range(10);
}

#[test]
#[should_panic = "bucket_width must be at least one nanosecond"]
fn zero_width_linear_histogram_panics() {
    let _ = HistogramConfiguration::linear(Duration::ZERO, 10);
}
