//! The poll-time histogram through tokio's paths (tokio has it behind
//! `tokio_unstable`; volt offers it stable, with tokio's bucket layout).

use std::time::Duration;

use tokio::runtime::{Builder, HistogramConfiguration, LogHistogram};

#[test]
fn poll_time_histogram_through_the_tokio_name() {
    let rt = Builder::new_current_thread()
        .enable_metrics_poll_time_histogram()
        .metrics_poll_time_histogram_configuration(HistogramConfiguration::log(
            LogHistogram::builder()
                .min_value(Duration::from_micros(20))
                .max_value(Duration::from_millis(4))
                .precision_exact(0)
                .max_buckets(10)
                .unwrap(),
        ))
        .build()
        .unwrap();
    let metrics = rt.metrics();
    rt.block_on(async { tokio::spawn(async {}).await.unwrap() });
    drop(rt);
    let buckets = metrics.poll_time_histogram_num_buckets();
    let polls: u64 = (0..buckets)
        .map(|b| metrics.poll_time_histogram_bucket_count(0, b))
        .sum();
    assert_eq!(polls, 1);
    assert_eq!(
        metrics.poll_time_histogram_bucket_range(0).start,
        Duration::ZERO
    );
}
