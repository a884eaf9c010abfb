//! The poll-time histogram's builder methods and `RuntimeMetrics`
//! accessors (tokio has them behind `tokio_unstable`; volt offers them
//! stable). The layouts are in `histogram.rs`.
//!
//! With the histogram on, each worker reads the clock before and after
//! every task poll (`MetricsBatch::start_poll` / `end_poll`) and counts
//! the poll in its own batch; the counts are published with the worker's
//! other metrics. Off (the default), a poll pays a test of an `Option` in
//! the worker's own batch.

use super::RuntimeMetrics;
use super::histogram::HistogramBuilder;
use crate::runtime::{Builder, HistogramConfiguration, HistogramScale};

use std::ops::Range;
use std::time::Duration;

/// What the runtime builder holds.
#[derive(Debug, Clone, Default)]
pub(crate) struct PollTimeHistogram {
    enabled: bool,
    histogram: HistogramBuilder,
}

impl PollTimeHistogram {
    /// The layout each worker's histogram is built with, if enabled.
    pub(crate) fn builder(&self) -> Option<HistogramBuilder> {
        self.enabled.then(|| self.histogram.clone())
    }
}

impl Builder {
    /// Enables tracking the distribution of task poll times.
    ///
    /// Task poll times are not instrumented by default as doing so requires
    /// calling [`Instant::now()`] twice per task poll, which could add
    /// measurable overhead. Use the [`Handle::metrics()`] to access the
    /// metrics data.
    ///
    /// The histogram uses fixed bucket sizes. In other words, the histogram
    /// buckets are not dynamic based on input values. Use the
    /// `metrics_poll_time_histogram` builder methods to configure the
    /// histogram details.
    ///
    /// By default, a linear histogram with 10 buckets each 100 microseconds
    /// wide will be used. This has an extremely low memory footprint, but
    /// may not provide enough granularity. For better granularity with low
    /// memory usage, use [`metrics_poll_time_histogram_configuration()`] to
    /// select [`LogHistogram`] instead.
    ///
    /// **Note**: tokio offers this only under `--cfg tokio_unstable`; volt
    /// offers it stable.
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_runtime::runtime;
    ///
    /// let rt = runtime::Builder::new_multi_thread()
    ///     .enable_metrics_poll_time_histogram()
    ///     .build()
    ///     .unwrap();
    /// # fn us(n: u64) -> std::time::Duration { std::time::Duration::from_micros(n) }
    /// let m = rt.handle().metrics();
    /// assert_eq!(m.poll_time_histogram_num_buckets(), 10);
    /// assert_eq!(m.poll_time_histogram_bucket_range(0), us(0)..us(100));
    /// assert_eq!(m.poll_time_histogram_bucket_range(1), us(100)..us(200));
    /// ```
    ///
    /// [`Handle::metrics()`]: crate::runtime::Handle::metrics
    /// [`Instant::now()`]: std::time::Instant::now
    /// [`LogHistogram`]: crate::runtime::LogHistogram
    /// [`metrics_poll_time_histogram_configuration()`]: Builder::metrics_poll_time_histogram_configuration
    pub fn enable_metrics_poll_time_histogram(&mut self) -> &mut Self {
        self.poll_time_histogram.enabled = true;
        self
    }

    /// Deprecated. Use [`enable_metrics_poll_time_histogram()`] instead.
    ///
    /// [`enable_metrics_poll_time_histogram()`]: Builder::enable_metrics_poll_time_histogram
    #[deprecated(
        note = "`poll_count_histogram` related methods have been renamed `poll_time_histogram` to better reflect their functionality."
    )]
    #[doc(hidden)]
    pub fn enable_metrics_poll_count_histogram(&mut self) -> &mut Self {
        self.enable_metrics_poll_time_histogram()
    }

    /// Sets the histogram scale for tracking the distribution of task poll
    /// times.
    ///
    /// Tracking the distribution of task poll times can be done using a
    /// linear or log scale. When using linear scale, each histogram bucket
    /// will represent the same range of poll times. When using log scale,
    /// each histogram bucket will cover a range twice as big as the
    /// previous bucket.
    ///
    /// **Default:** linear scale.
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_runtime::runtime::{self, HistogramScale};
    ///
    /// # #[allow(deprecated)]
    /// let rt = runtime::Builder::new_multi_thread()
    ///     .enable_metrics_poll_time_histogram()
    ///     .metrics_poll_count_histogram_scale(HistogramScale::Log)
    ///     .build()
    ///     .unwrap();
    /// ```
    #[deprecated(note = "use `metrics_poll_time_histogram_configuration`")]
    pub fn metrics_poll_count_histogram_scale(
        &mut self,
        histogram_scale: HistogramScale,
    ) -> &mut Self {
        self.poll_time_histogram.histogram.legacy_mut().scale = histogram_scale;
        self
    }

    /// Configure the histogram for tracking poll times
    ///
    /// By default, a linear histogram with 10 buckets each 100 microseconds
    /// wide will be used. This has an extremely low memory footprint, but
    /// may not provide enough granularity. For better granularity with low
    /// memory usage, use [`LogHistogram`] instead.
    ///
    /// # Examples
    ///
    /// Configure a [`LogHistogram`] with [default configuration]:
    ///
    /// ```
    /// use volt_runtime::runtime;
    /// use volt_runtime::runtime::{HistogramConfiguration, LogHistogram};
    ///
    /// let rt = runtime::Builder::new_multi_thread()
    ///     .enable_metrics_poll_time_histogram()
    ///     .metrics_poll_time_histogram_configuration(
    ///         HistogramConfiguration::log(LogHistogram::default())
    ///     )
    ///     .build()
    ///     .unwrap();
    /// ```
    ///
    /// When migrating from the legacy histogram ([`HistogramScale::Log`])
    /// and wanting to match the previous behavior, use
    /// `precision_exact(0)`. This creates a histogram where each bucket is
    /// twice the size of the previous bucket.
    ///
    /// ```
    /// use std::time::Duration;
    /// use volt_runtime::runtime::{HistogramConfiguration, LogHistogram};
    ///
    /// let rt = volt_runtime::runtime::Builder::new_current_thread()
    ///     .enable_all()
    ///     .enable_metrics_poll_time_histogram()
    ///     .metrics_poll_time_histogram_configuration(HistogramConfiguration::log(
    ///         LogHistogram::builder()
    ///             .min_value(Duration::from_micros(20))
    ///             .max_value(Duration::from_millis(4))
    ///             // Set `precision_exact` to `0` to match `HistogramScale::Log`
    ///             .precision_exact(0)
    ///             .max_buckets(10)
    ///             .unwrap(),
    ///     ))
    ///     .build()
    ///     .unwrap();
    /// ```
    ///
    /// [`LogHistogram`]: crate::runtime::LogHistogram
    /// [default configuration]: crate::runtime::LogHistogramBuilder
    /// [`HistogramScale::Log`]: crate::runtime::HistogramScale::Log
    pub fn metrics_poll_time_histogram_configuration(
        &mut self,
        configuration: HistogramConfiguration,
    ) -> &mut Self {
        self.poll_time_histogram.histogram.histogram_type = configuration.inner;
        self
    }

    /// Sets the histogram resolution for tracking the distribution of task
    /// poll times.
    ///
    /// The resolution is the histogram's first bucket's range. When using a
    /// linear histogram scale, each bucket will cover the same range. When
    /// using a log scale, each bucket will cover a range twice as big as
    /// the previous bucket. In the log case, the resolution represents the
    /// smallest bucket range.
    ///
    /// Note that, when using log scale, the resolution is rounded up to the
    /// nearest power of 2 in nanoseconds.
    ///
    /// **Default:** 100 microseconds.
    ///
    /// # Panics
    ///
    /// Panics if `resolution` is zero or longer than one second.
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_runtime::runtime;
    /// use std::time::Duration;
    ///
    /// # #[allow(deprecated)]
    /// let rt = runtime::Builder::new_multi_thread()
    ///     .enable_metrics_poll_time_histogram()
    ///     .metrics_poll_count_histogram_resolution(Duration::from_micros(100))
    ///     .build()
    ///     .unwrap();
    /// ```
    #[deprecated(note = "use `metrics_poll_time_histogram_configuration`")]
    #[track_caller]
    pub fn metrics_poll_count_histogram_resolution(&mut self, resolution: Duration) -> &mut Self {
        assert!(resolution > Duration::from_secs(0));
        assert!(resolution <= Duration::from_secs(1));
        self.poll_time_histogram.histogram.legacy_mut().resolution = resolution.as_nanos() as u64;
        self
    }

    /// Sets the number of buckets for the histogram tracking the
    /// distribution of task poll times.
    ///
    /// The last bucket tracks all greater values that fall out of other
    /// ranges. So, configuring the histogram using a linear scale,
    /// resolution of 50ms, and 10 buckets, the 10th bucket will track task
    /// polls that take more than 450ms to complete.
    ///
    /// **Default:** 10
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_runtime::runtime;
    ///
    /// # #[allow(deprecated)]
    /// let rt = runtime::Builder::new_multi_thread()
    ///     .enable_metrics_poll_time_histogram()
    ///     .metrics_poll_count_histogram_buckets(15)
    ///     .build()
    ///     .unwrap();
    /// ```
    #[deprecated(note = "use `metrics_poll_time_histogram_configuration`")]
    pub fn metrics_poll_count_histogram_buckets(&mut self, buckets: usize) -> &mut Self {
        self.poll_time_histogram.histogram.legacy_mut().num_buckets = buckets;
        self
    }
}

impl RuntimeMetrics {
    /// Returns `true` if the runtime is tracking the distribution of task
    /// poll times.
    ///
    /// Task poll times are not instrumented by default as doing so requires
    /// calling [`Instant::now()`] twice per task poll. The feature is
    /// enabled by calling [`enable_metrics_poll_time_histogram()`] when
    /// building the runtime.
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_runtime::runtime::{self, Handle};
    ///
    /// runtime::Builder::new_current_thread()
    ///     .enable_metrics_poll_time_histogram()
    ///     .build()
    ///     .unwrap()
    ///     .block_on(async {
    ///         let metrics = Handle::current().metrics();
    ///         assert!(metrics.poll_time_histogram_enabled());
    ///     });
    /// ```
    ///
    /// [`enable_metrics_poll_time_histogram()`]: crate::runtime::Builder::enable_metrics_poll_time_histogram
    /// [`Instant::now()`]: std::time::Instant::now
    pub fn poll_time_histogram_enabled(&self) -> bool {
        self.histogram(0).is_some()
    }

    #[deprecated(note = "Renamed to `poll_time_histogram_enabled`")]
    #[doc(hidden)]
    pub fn poll_count_histogram_enabled(&self) -> bool {
        self.poll_time_histogram_enabled()
    }

    /// Returns the number of histogram buckets tracking the distribution of
    /// task poll times (0 when the histogram is off).
    ///
    /// This value is configured by calling
    /// [`metrics_poll_time_histogram_configuration()`] when building the
    /// runtime.
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_runtime::runtime::{self, Handle};
    ///
    /// runtime::Builder::new_current_thread()
    ///     .enable_metrics_poll_time_histogram()
    ///     .build()
    ///     .unwrap()
    ///     .block_on(async {
    ///         let metrics = Handle::current().metrics();
    ///         assert_eq!(metrics.poll_time_histogram_num_buckets(), 10);
    ///     });
    /// ```
    ///
    /// [`metrics_poll_time_histogram_configuration()`]: crate::runtime::Builder::metrics_poll_time_histogram_configuration
    pub fn poll_time_histogram_num_buckets(&self) -> usize {
        self.histogram(0).map_or(0, |h| h.num_buckets())
    }

    /// Deprecated. Use [`poll_time_histogram_num_buckets()`] instead.
    ///
    /// [`poll_time_histogram_num_buckets()`]: Self::poll_time_histogram_num_buckets
    #[doc(hidden)]
    #[deprecated(note = "renamed to `poll_time_histogram_num_buckets`.")]
    pub fn poll_count_histogram_num_buckets(&self) -> usize {
        self.poll_time_histogram_num_buckets()
    }

    /// Returns the range of task poll times tracked by the given bucket
    /// (an empty range when the histogram is off).
    ///
    /// This value is configured by calling
    /// [`metrics_poll_time_histogram_configuration()`] when building the
    /// runtime.
    ///
    /// # Panics
    ///
    /// The method panics if `bucket` represents an invalid bucket index,
    /// i.e. is greater than or equal to
    /// `poll_time_histogram_num_buckets()`.
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_runtime::runtime::{self, Handle};
    ///
    /// runtime::Builder::new_current_thread()
    ///     .enable_metrics_poll_time_histogram()
    ///     .build()
    ///     .unwrap()
    ///     .block_on(async {
    ///         let metrics = Handle::current().metrics();
    ///         let buckets = metrics.poll_time_histogram_num_buckets();
    ///         for i in 0..buckets {
    ///             let range = metrics.poll_time_histogram_bucket_range(i);
    ///             println!("Histogram bucket {} range: {:?}", i, range);
    ///         }
    ///     });
    /// ```
    ///
    /// [`metrics_poll_time_histogram_configuration()`]: crate::runtime::Builder::metrics_poll_time_histogram_configuration
    #[track_caller]
    pub fn poll_time_histogram_bucket_range(&self, bucket: usize) -> Range<Duration> {
        self.histogram(0).map_or_else(Range::default, |h| {
            let range = h.bucket_range(bucket);
            Duration::from_nanos(range.start)..Duration::from_nanos(range.end)
        })
    }

    /// Deprecated. Use [`poll_time_histogram_bucket_range()`] instead.
    ///
    /// [`poll_time_histogram_bucket_range()`]: Self::poll_time_histogram_bucket_range
    #[track_caller]
    #[doc(hidden)]
    #[deprecated(note = "renamed to `poll_time_histogram_bucket_range`")]
    pub fn poll_count_histogram_bucket_range(&self, bucket: usize) -> Range<Duration> {
        self.poll_time_histogram_bucket_range(bucket)
    }

    /// Returns the number of times the given worker polled tasks with a
    /// poll duration within the given bucket's range (0 when the histogram
    /// is off).
    ///
    /// Each worker maintains its own histogram and the counts for each
    /// bucket starts at zero when the runtime is created. Each time the
    /// worker polls a task, it tracks the duration the task poll time took
    /// and increments the associated bucket by 1.
    ///
    /// Each bucket is a monotonically increasing counter. It is never
    /// decremented or reset to zero.
    ///
    /// `worker` is the index of the worker being queried. The given value
    /// must be between 0 and `num_workers()`. The index uniquely identifies
    /// a single worker and will continue to identify the worker throughout
    /// the lifetime of the runtime instance.
    ///
    /// `bucket` is the index of the bucket being queried. The bucket is
    /// scoped to the worker. The range represented by the bucket can be
    /// queried by calling [`poll_time_histogram_bucket_range()`]. Each
    /// worker maintains identical bucket ranges.
    ///
    /// # Panics
    ///
    /// The method panics when `worker` represents an invalid worker, i.e.
    /// is greater than or equal to `num_workers()` or if `bucket`
    /// represents an invalid bucket.
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_runtime::runtime::{self, Handle};
    ///
    /// runtime::Builder::new_current_thread()
    ///     .enable_metrics_poll_time_histogram()
    ///     .build()
    ///     .unwrap()
    ///     .block_on(async {
    ///         let metrics = Handle::current().metrics();
    ///         let buckets = metrics.poll_time_histogram_num_buckets();
    ///         for worker in 0..metrics.num_workers() {
    ///             for i in 0..buckets {
    ///                 let count = metrics.poll_time_histogram_bucket_count(worker, i);
    ///                 println!("Poll count {}", count);
    ///             }
    ///         }
    ///     });
    /// ```
    ///
    /// [`poll_time_histogram_bucket_range()`]: crate::runtime::RuntimeMetrics::poll_time_histogram_bucket_range
    #[track_caller]
    pub fn poll_time_histogram_bucket_count(&self, worker: usize, bucket: usize) -> u64 {
        self.histogram(worker).map_or(0, |h| h.get(bucket))
    }

    #[doc(hidden)]
    #[deprecated(note = "use `poll_time_histogram_bucket_count` instead")]
    #[track_caller]
    pub fn poll_count_histogram_bucket_count(&self, worker: usize, bucket: usize) -> u64 {
        self.poll_time_histogram_bucket_count(worker, bucket)
    }

    #[track_caller]
    fn histogram(&self, worker: usize) -> Option<&super::histogram::Histogram> {
        self.worker(worker).poll_time_histogram.as_ref()
    }
}
