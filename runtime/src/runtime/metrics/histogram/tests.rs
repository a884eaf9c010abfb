use super::*;

fn h2(builder: LogHistogramBuilder) -> HistogramType {
    HistogramType::H2(builder.build())
}

/// Every bucket's range starts where the previous one ended, from 0 to
/// `u64::MAX`, and each value lands in the bucket whose range holds it.
fn check_layout(layout: HistogramType) {
    let n = layout.num_buckets();
    assert_eq!(layout.bucket_range(0).start, 0);
    assert_eq!(layout.bucket_range(n - 1).end, u64::MAX);
    for i in 1..n {
        assert_eq!(layout.bucket_range(i - 1).end, layout.bucket_range(i).start);
    }
    for i in 0..n {
        let range = layout.bucket_range(i);
        for v in [
            range.start,
            range.start + (range.end - range.start) / 2,
            range.end - 1,
        ] {
            assert_eq!(
                layout.value_to_bucket(v),
                i,
                "value {v} of bucket {i} ({range:?})"
            );
        }
    }
}

#[test]
fn linear_default() {
    let layout = HistogramBuilder::default().build().histogram_type;
    assert_eq!(layout.num_buckets(), 10);
    assert_eq!(layout.bucket_range(0), 0..100_000);
    assert_eq!(layout.bucket_range(1), 100_000..200_000);
    assert_eq!(layout.bucket_range(9), 900_000..u64::MAX);
    assert_eq!(layout.value_to_bucket(99_999), 0);
    assert_eq!(layout.value_to_bucket(u64::MAX), 9);
    check_layout(layout);
}

#[test]
fn legacy_log() {
    let mut builder = HistogramBuilder::default();
    let legacy = builder.legacy_mut();
    legacy.scale = HistogramScale::Log;
    legacy.resolution = 1;
    let layout = builder.build().histogram_type;
    assert_eq!(layout.bucket_range(0), 0..1);
    assert_eq!(layout.bucket_range(1), 1..2);
    assert_eq!(layout.bucket_range(2), 2..4);
    assert_eq!(layout.bucket_range(3), 4..8);
    assert_eq!(layout.bucket_range(9), 256..u64::MAX);
    check_layout(layout);

    // The resolution is rounded up to a power of two.
    builder.legacy_mut().resolution = 100_000;
    let layout = builder.build().histogram_type;
    assert_eq!(layout.bucket_range(0), 0..131_072);
    assert_eq!(layout.bucket_range(1), 131_072..262_144);
    check_layout(layout);
}

#[test]
fn legacy_settings_win_over_the_configuration() {
    let mut builder = HistogramBuilder {
        histogram_type: HistogramType::H2(LogHistogram::default()),
        legacy: None,
    };
    builder.legacy_mut().num_buckets = 20;
    assert_eq!(builder.build().num_buckets(), 20);
}

#[test]
fn h2_layouts_are_contiguous_and_exact() {
    for p in 0..=MAX_PRECISION {
        for (min, max) in [
            (Duration::from_nanos(1), Duration::from_micros(50)),
            (Duration::from_nanos(100), Duration::from_secs(60)),
            (Duration::from_micros(20), Duration::from_millis(4)),
            (Duration::from_nanos(1000), Duration::from_nanos(1000)),
        ] {
            let layout = h2(LogHistogram::builder()
                .min_value(min)
                .max_value(max)
                .precision_exact(p));
            check_layout(layout);
            let HistogramType::H2(h) = layout else {
                unreachable!()
            };
            // Bucket 0 is no wider than `min_value`; the last bucket starts
            // at or above `max_value`.
            assert!(h.bucket_range(0).end <= nanos(min).max(1));
            assert!(h.bucket_range(h.num_buckets - 1).start >= nanos(max));
            // Past the exact buckets, the relative width is at most 2^-p.
            for i in 1..h.num_buckets - 1 {
                let r = h.bucket_range(i);
                if r.start >= 1 << p {
                    assert!((r.end - r.start) << p <= r.start, "p={p} bucket {i} {r:?}");
                }
            }
        }
    }
}

#[test]
fn h2_sizes_match_the_documented_configurations() {
    // The default.
    let default = LogHistogram::default();
    assert_eq!(default.num_buckets, 119);
    assert_eq!(default.max_value(), 60_129_542_144);
    // tokio's documented example: 100 ns to 120 s, error 0.1 (its docs
    // say 488 buckets; its code, like this one, makes 485).
    let h = LogHistogram::builder()
        .max_value(Duration::from_secs(120))
        .min_value(Duration::from_nanos(100))
        .max_error(0.1)
        .max_buckets(1024)
        .unwrap();
    assert_eq!(h.num_buckets, 485);
    // tokio's legacy-migration example fits in 10 buckets.
    let legacy_like = LogHistogram::builder()
        .min_value(Duration::from_micros(20))
        .max_value(Duration::from_millis(4))
        .precision_exact(0)
        .max_buckets(10)
        .unwrap();
    assert_eq!(legacy_like.p, 0);
    let err = LogHistogram::builder().max_buckets(10).unwrap_err();
    assert_eq!(
        err.to_string(),
        "The configuration for this histogram would have required 119 buckets"
    );
}

#[test]
fn max_error_picks_the_precision() {
    let p = |e: f64| LogHistogram::builder().max_error(e).build().p;
    assert_eq!(p(0.5), 2);
    assert_eq!(p(0.25), 2);
    assert_eq!(p(0.2), 3);
    assert_eq!(p(0.1), 4);
    assert_eq!(p(0.0001), MAX_PRECISION);
}

#[test]
fn batch_counts_and_publishes() {
    let histogram = HistogramBuilder::default().build();
    let mut batch = HistogramBatch::from_histogram(&histogram);
    batch.measure(50);
    batch.measure(150_000);
    batch.measure(150_001);
    batch.measure(u64::MAX);
    assert_eq!(histogram.get(0), 0, "nothing published yet");
    batch.submit(&histogram);
    assert_eq!(
        (0..10).map(|i| histogram.get(i)).collect::<Vec<_>>(),
        [1, 2, 0, 0, 0, 0, 0, 0, 0, 1]
    );
    // A batch made again (a worker on a new thread) keeps the counts.
    let mut again = HistogramBatch::from_histogram(&histogram);
    again.measure(0);
    again.submit(&histogram);
    assert_eq!(histogram.get(0), 2);
}

#[test]
#[should_panic = "bucket 10 out of range: the histogram has 10 buckets"]
fn bucket_range_past_the_end_panics() {
    let _ = HistogramBuilder::default().build().bucket_range(10);
}
