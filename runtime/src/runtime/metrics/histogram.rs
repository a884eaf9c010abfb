//! Histograms of task poll times (`Builder::enable_metrics_poll_time_histogram`).
//!
//! A histogram maps a value in nanoseconds to a bucket. Three layouts,
//! tokio's (there behind `tokio_unstable`), with the same bucket
//! boundaries, so a dashboard built on tokio's reads the same buckets:
//!
//! * **Linear** (the default: 10 buckets of 100 µs): bucket `i` holds
//!   `[i * width, (i + 1) * width)`.
//! * **Legacy log** (`HistogramScale::Log` through the deprecated builder
//!   methods): bucket 0 holds `[0, first)`, bucket `i` holds
//!   `[first << (i - 1), first << i)`, `first` the resolution rounded up
//!   to a power of two.
//! * **[`LogHistogram`]** (an H2 histogram, like an HdrHistogram with a
//!   relative error bound of `2^-p`): values below `2^p` get a bucket each;
//!   above, the values of `[2^h, 2^(h+1))` are cut into `2^p` buckets of
//!   width `2^(h-p)`. So value `v >= 2^p`, with `h = ilog2(v)` and
//!   `w = h - p`, goes to `((w + 1) << p) + (v >> w) - 2^p`. Buckets below
//!   the one of `min_value` fold into bucket 0 (`bucket_offset`).
//!
//! In every layout the last bucket reaches to `u64::MAX`.
//!
//! # Who writes
//!
//! A worker times each poll and counts it in its own [`HistogramBatch`]
//! (plain integers); it publishes the batch into the shared [`Histogram`]
//! (one atomic per bucket, `Relaxed` stores: each is a counter read on its
//! own) when it publishes its other metrics.

use std::cmp;
use std::error::Error;
use std::fmt;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Duration;

/// `LogHistogram` defaults (tokio's).
const DEFAULT_MIN_VALUE: Duration = Duration::from_nanos(100);
const DEFAULT_MAX_VALUE: Duration = Duration::from_secs(60);
const DEFAULT_PRECISION: u32 = 2;
const MAX_PRECISION: u32 = 10;

/// Nanoseconds, saturating.
fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

/// Whether the histogram used to aggregate a metric uses a linear or
/// logarithmic scale.
///
/// **Note**: tokio offers this only under `--cfg tokio_unstable`; volt
/// offers it stable.
#[derive(Debug, Copy, Clone, Eq, PartialEq)]
#[non_exhaustive]
pub enum HistogramScale {
    /// Linear bucket scale
    Linear,

    /// Logarithmic bucket scale
    Log,
}

/// Configuration for the poll count histogram
///
/// **Note**: tokio offers this only under `--cfg tokio_unstable`; volt
/// offers it stable.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use volt_runtime::runtime::{Builder, HistogramConfiguration, LogHistogram};
///
/// let rt = Builder::new_current_thread()
///     .enable_metrics_poll_time_histogram()
///     .metrics_poll_time_histogram_configuration(HistogramConfiguration::linear(
///         Duration::from_micros(10),
///         100,
///     ))
///     .build()
///     .unwrap();
/// assert_eq!(rt.metrics().poll_time_histogram_num_buckets(), 100);
/// # let _ = HistogramConfiguration::log(LogHistogram::default());
/// ```
#[derive(Debug, Clone)]
pub struct HistogramConfiguration {
    pub(crate) inner: HistogramType,
}

impl HistogramConfiguration {
    /// Create a linear bucketed histogram
    ///
    /// # Arguments
    ///
    /// * `bucket_width`: The width of each bucket
    /// * `num_buckets`: The number of buckets
    ///
    /// # Panics
    ///
    /// Panics if `bucket_width` is zero or `num_buckets` is zero (tokio
    /// fails later, on the first poll measured or the first bucket read).
    #[track_caller]
    pub fn linear(bucket_width: Duration, num_buckets: usize) -> Self {
        let width = nanos(bucket_width);
        assert!(width > 0, "bucket_width must be at least one nanosecond");
        assert!(num_buckets > 0, "num_buckets must be greater than 0");
        HistogramConfiguration {
            inner: HistogramType::Linear { width, num_buckets },
        }
    }

    /// Creates a log-scaled bucketed histogram
    ///
    /// See [`LogHistogramBuilder`] for information about configuration &
    /// defaults
    pub fn log(configuration: impl Into<LogHistogram>) -> Self {
        HistogramConfiguration {
            inner: HistogramType::H2(configuration.into()),
        }
    }
}

/// Log Histogram
///
/// This implements an [H2 Histogram](https://iop.systems/blog/h2-histogram/),
/// a histogram similar to HdrHistogram, but with better performance. It
/// guarantees an error bound of `2^-p`.
///
/// Unlike a traditional H2 histogram this has two small changes:
/// 1. The 0th bucket runs for `0..min_value`. This allows truncating a
///    large number of buckets that would cover extremely short timescales
///    that customers usually don't care about.
/// 2. The final bucket runs all the way to `u64::MAX`: traditional H2
///    histograms would truncate or reject these values.
///
/// For information about the default configuration, see
/// [`LogHistogramBuilder`].
///
/// **Note**: tokio offers this only under `--cfg tokio_unstable`; volt
/// offers it stable, with the same bucket boundaries.
///
/// # Examples
///
/// ```
/// use volt_runtime::runtime::LogHistogram;
///
/// let histogram = LogHistogram::default();
/// // 60 s, rounded up to a bucket boundary.
/// assert_eq!(histogram.max_value(), 60_129_542_144);
/// ```
#[derive(Debug, Copy, Clone, PartialEq, Eq)]
pub struct LogHistogram {
    /// Buckets in the histogram.
    num_buckets: usize,
    /// Precision: the relative error is at most `2^-p`.
    p: u32,
    /// Raw H2 buckets below this one are folded into bucket 0.
    bucket_offset: usize,
}

impl Default for LogHistogram {
    fn default() -> Self {
        LogHistogramBuilder::default().build()
    }
}

/// The raw H2 bucket of `value` at precision `p` (module docs).
fn h2_index(value: u64, p: u32) -> u64 {
    if value < 1 << p {
        return value;
    }
    let w = value.ilog2() - p;
    ((u64::from(w) + 1) << p) + (value >> w) - (1 << p)
}

impl LogHistogram {
    /// Creates a builder for [`LogHistogram`]
    pub fn builder() -> LogHistogramBuilder {
        LogHistogramBuilder::default()
    }

    /// The maximum value that can be stored before truncation in this
    /// histogram
    pub fn max_value(&self) -> u64 {
        self.bucket_range(self.num_buckets - 2).end
    }

    fn value_to_bucket(&self, value: u64) -> usize {
        let index = h2_index(value, self.p).saturating_sub(self.bucket_offset as u64);
        cmp::min(index, self.num_buckets as u64 - 1) as usize
    }

    fn bucket_range(&self, bucket: usize) -> Range<u64> {
        let raw = (bucket + self.bucket_offset) as u64;
        let (start, end) = if raw < 1 << self.p {
            (raw, raw + 1)
        } else {
            // Group `w` holds `2^p` buckets of width `2^w` from `2^(w + p)`.
            let w = (raw >> self.p) - 1;
            let offset = raw - ((w + 1) << self.p);
            let group_start = 1u64 << (w + u64::from(self.p));
            (
                group_start + (offset << w),
                group_start + ((offset + 1) << w),
            )
        };
        let start = if bucket == 0 { 0 } else { start };
        let end = if bucket == self.num_buckets - 1 {
            u64::MAX
        } else {
            end
        };
        start..end
    }
}

/// Configuration for a [`LogHistogram`]
///
/// The log-scaled histogram implements an H2 histogram where the first
/// bucket covers the range from 0 to [`LogHistogramBuilder::min_value`]
/// and the final bucket covers [`LogHistogramBuilder::max_value`] to
/// infinity. The precision is bounded to the specified
/// [`LogHistogramBuilder::max_error`]. Specifically, the precision is the
/// next smallest value of `2^-p` such that it is smaller than the
/// requested max error. You can also select `p` directly with
/// [`LogHistogramBuilder::precision_exact`].
///
/// Depending on the selected parameters, the number of buckets required is
/// variable. To ensure that the histogram size is acceptable, callers may
/// call [`LogHistogramBuilder::max_buckets`]. If the resulting histogram
/// would require more buckets, then the method will return an error.
///
/// ## Default values
/// The default configuration provides the following settings:
/// 1. `min_value`: 100ns
/// 2. `max_value`: 60 seconds. The final bucket covers all values from
///    the first bucket boundary at or above it (60.13 seconds)
/// 3. `precision`: max error of 25%
///
/// This uses 119 64-bit buckets (tokio's docs say 68 seconds and 237
/// buckets; its code gives the same layout as volt's, which is checked
/// against it bucket by bucket).
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use volt_runtime::runtime::LogHistogram;
///
/// let histogram = LogHistogram::builder()
///     .max_value(Duration::from_secs(120))
///     .min_value(Duration::from_nanos(100))
///     .max_error(0.1)
///     .max_buckets(1024)
///     .expect("the configuration fits in 1024 buckets");
/// # let _ = histogram;
/// ```
#[derive(Default, Debug, Copy, Clone)]
pub struct LogHistogramBuilder {
    max_value: Option<Duration>,
    min_value: Option<Duration>,
    precision: Option<u32>,
}

impl From<LogHistogramBuilder> for LogHistogram {
    fn from(value: LogHistogramBuilder) -> Self {
        value.build()
    }
}

impl LogHistogramBuilder {
    /// Set the precision for this histogram
    ///
    /// This function determines the smallest value of `p` that would
    /// satisfy the requested precision such that `2^-p` is less than
    /// `precision`. To set `p` directly, use
    /// [`LogHistogramBuilder::precision_exact`].
    ///
    /// Precision controls the size of the "bucket groups" (consecutive
    /// buckets with identical ranges). When `p` is 0, each bucket will be
    /// twice the size of the previous bucket. To match the behavior of the
    /// legacy log histogram implementation, use `builder.precision_exact(0)`.
    ///
    /// The default value is 25% (2^-2)
    ///
    /// The highest supported precision is `0.0977%` `(2^-10)`. Provided
    /// values less than this will be truncated.
    ///
    /// # Panics
    /// - `max_error` <= 0
    /// - `max_error` >= 1
    #[track_caller]
    pub fn max_error(mut self, max_error: f64) -> Self {
        assert!(max_error > 0.0, "max_error must be greater than 0");
        assert!(max_error < 1.0, "max_error must be less than 1");
        // The smallest `p` with `2^-p <= max_error`, i.e. `2^p * max_error >= 1`.
        // Scaling by a power of two is exact in binary floating point, so the
        // boundaries (`0.25` gives 2, not 3) do not hang on how a `powi` or a
        // `log2` rounds.
        let mut p = DEFAULT_PRECISION;
        while p < MAX_PRECISION && f64::from(1_u32 << p) * max_error < 1.0 {
            p += 1;
        }
        self.precision = Some(p);
        self
    }

    /// Sets the precision of this histogram directly.
    ///
    /// The precision (meaning: the ratio `n/bucket_range(n)` for some given
    /// `n`) will be `2^-p`.
    ///
    /// Precision controls the number consecutive buckets with identically
    /// sized ranges. When `p` is 0, each bucket will be twice the size of
    /// the previous bucket (bucket groups are only a single bucket wide).
    ///
    /// To match the behavior of the legacy implementation
    /// ([`HistogramScale::Log`]), use `builder.precision_exact(0)`.
    ///
    /// # Panics
    /// - `p` > 10
    #[track_caller]
    pub fn precision_exact(mut self, p: u32) -> Self {
        assert!(p <= MAX_PRECISION, "precision must be <= {MAX_PRECISION}");
        self.precision = Some(p);
        self
    }

    /// Sets the minimum duration that can be accurately stored by this
    /// histogram.
    ///
    /// This sets the resolution. The first bucket will be no larger than
    /// the provided duration. Setting this value will reduce the number of
    /// required buckets, sometimes quite significantly.
    pub fn min_value(mut self, duration: Duration) -> Self {
        self.min_value = Some(duration);
        self
    }

    /// Sets the maximum value that can by this histogram without truncation
    ///
    /// Values greater than this fall in the final bucket that stretches to
    /// `u64::MAX`.
    ///
    /// # Panics
    /// The provided value is 0
    #[track_caller]
    pub fn max_value(mut self, duration: Duration) -> Self {
        if duration.is_zero() {
            panic!("max value must be greater than 0");
        }
        self.max_value = Some(duration);
        self
    }

    /// Builds the log histogram, enforcing the max buckets requirement
    pub fn max_buckets(
        &mut self,
        max_buckets: usize,
    ) -> Result<LogHistogram, InvalidHistogramConfiguration> {
        let histogram = self.build();
        if histogram.num_buckets > max_buckets {
            return Err(InvalidHistogramConfiguration::TooManyBuckets {
                required_bucket_count: histogram.num_buckets,
            });
        }
        Ok(histogram)
    }

    /// Builds the log histogram
    ///
    /// # Panics
    ///
    /// Panics if `min_value` is so far above `max_value` that no bucket
    /// is left between them.
    #[track_caller]
    pub fn build(&self) -> LogHistogram {
        let requested_max = nanos(self.max_value.unwrap_or(DEFAULT_MAX_VALUE));
        let min_value = nanos(self.min_value.unwrap_or(DEFAULT_MIN_VALUE));
        let p = self.precision.unwrap_or(DEFAULT_PRECISION);
        // Bucket 0 must not be wider than `min_value`: fold in only the
        // raw buckets below the one `min_value` falls in.
        let bucket_offset = cmp::max(h2_index(min_value, p), 1) as usize - 1;
        // Enough groups to reach the power of two at or above the maximum,
        // then the buckets past the one that reaches it are dropped.
        let top = requested_max.checked_next_power_of_two().unwrap_or(1 << 63);
        let groups = cmp::max(top.ilog2(), p) + 1 - p + 1;
        let raw_buckets = (groups as usize) << p;
        assert!(
            raw_buckets >= bucket_offset + 2,
            "the histogram's min_value must be below its max_value"
        );
        let mut histogram = LogHistogram {
            num_buckets: raw_buckets - bucket_offset,
            p,
            bucket_offset,
        };
        // Drop the buckets past the one that reaches `max_value`, keeping
        // two at least (`[0, min)` and `[min, MAX)`: tokio underflows when
        // `min_value` and `max_value` leave fewer).
        while histogram.num_buckets > 2 && histogram.max_value() >= requested_max {
            histogram.num_buckets -= 1;
        }
        if histogram.max_value() < requested_max {
            histogram.num_buckets += 1;
        }
        histogram
    }
}

/// Error constructing a histogram
///
/// # Examples
///
/// ```
/// use volt_runtime::runtime::{InvalidHistogramConfiguration, LogHistogram};
///
/// let err = LogHistogram::builder().max_buckets(4).unwrap_err();
/// assert!(matches!(err, InvalidHistogramConfiguration::TooManyBuckets { .. }));
/// ```
#[derive(Debug)]
pub enum InvalidHistogramConfiguration {
    /// This histogram required more than the specified number of buckets
    TooManyBuckets {
        /// The number of buckets that would have been required
        required_bucket_count: usize,
    },
}

impl fmt::Display for InvalidHistogramConfiguration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InvalidHistogramConfiguration::TooManyBuckets {
                required_bucket_count,
            } => write!(
                f,
                "The configuration for this histogram would have required {required_bucket_count} buckets"
            ),
        }
    }
}

impl Error for InvalidHistogramConfiguration {}

/// A layout (module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HistogramType {
    Linear { width: u64, num_buckets: usize },
    LogLegacy { first: u64, num_buckets: usize },
    H2(LogHistogram),
}

impl HistogramType {
    fn num_buckets(&self) -> usize {
        match *self {
            HistogramType::Linear { num_buckets, .. } => num_buckets,
            HistogramType::LogLegacy { num_buckets, .. } => num_buckets,
            HistogramType::H2(h2) => h2.num_buckets,
        }
    }

    fn value_to_bucket(&self, value: u64) -> usize {
        match *self {
            HistogramType::Linear { width, num_buckets } => {
                cmp::min(value / width, num_buckets as u64 - 1) as usize
            }
            HistogramType::LogLegacy { first, num_buckets } => {
                if value < first {
                    0
                } else {
                    // `first` is a power of two: bucket `i` starts at
                    // `first << (i - 1)`.
                    let bucket = value.ilog2() - first.ilog2() + 1;
                    cmp::min(bucket as usize, num_buckets - 1)
                }
            }
            HistogramType::H2(h2) => h2.value_to_bucket(value),
        }
    }

    fn bucket_range(&self, bucket: usize) -> Range<u64> {
        match *self {
            HistogramType::Linear { width, num_buckets } => {
                let start = width * bucket as u64;
                let end = if bucket == num_buckets - 1 {
                    u64::MAX
                } else {
                    start + width
                };
                start..end
            }
            HistogramType::LogLegacy { first, num_buckets } => {
                let start = if bucket == 0 {
                    0
                } else {
                    first << (bucket - 1)
                };
                let end = if bucket == num_buckets - 1 {
                    u64::MAX
                } else {
                    first << bucket
                };
                start..end
            }
            HistogramType::H2(h2) => h2.bucket_range(bucket),
        }
    }
}

/// What the runtime builder holds: the layout, or the deprecated
/// builder methods' settings, which win when any was called (as in tokio).
#[derive(Debug, Clone)]
pub(crate) struct HistogramBuilder {
    pub(crate) histogram_type: HistogramType,
    pub(crate) legacy: Option<LegacyBuilder>,
}

/// The deprecated `metrics_poll_count_histogram_*` settings.
#[derive(Debug, Clone)]
pub(crate) struct LegacyBuilder {
    pub(crate) resolution: u64,
    pub(crate) scale: HistogramScale,
    pub(crate) num_buckets: usize,
}

impl Default for HistogramBuilder {
    fn default() -> Self {
        HistogramBuilder {
            histogram_type: HistogramType::Linear {
                width: 100_000,
                num_buckets: 10,
            },
            legacy: None,
        }
    }
}

impl HistogramBuilder {
    pub(crate) fn legacy_mut(&mut self) -> &mut LegacyBuilder {
        self.legacy.get_or_insert(LegacyBuilder {
            resolution: 100_000,
            scale: HistogramScale::Linear,
            num_buckets: 10,
        })
    }

    /// A histogram for one worker.
    #[track_caller]
    pub(crate) fn build(&self) -> Histogram {
        let histogram_type = match &self.legacy {
            None => self.histogram_type,
            Some(legacy) => {
                assert!(
                    legacy.num_buckets > 0,
                    "the histogram needs at least one bucket"
                );
                match legacy.scale {
                    HistogramScale::Linear => HistogramType::Linear {
                        width: legacy.resolution,
                        num_buckets: legacy.num_buckets,
                    },
                    HistogramScale::Log => HistogramType::LogLegacy {
                        first: legacy.resolution.next_power_of_two(),
                        num_buckets: legacy.num_buckets,
                    },
                }
            }
        };
        Histogram {
            buckets: (0..histogram_type.num_buckets())
                .map(|_| AtomicU64::new(0))
                .collect(),
            histogram_type,
        }
    }
}

/// A worker's published histogram.
#[derive(Debug)]
pub(crate) struct Histogram {
    buckets: Box<[AtomicU64]>,
    histogram_type: HistogramType,
}

impl Histogram {
    pub(crate) fn num_buckets(&self) -> usize {
        self.buckets.len()
    }

    #[track_caller]
    pub(crate) fn get(&self, bucket: usize) -> u64 {
        self.buckets[bucket].load(Relaxed)
    }

    #[track_caller]
    pub(crate) fn bucket_range(&self, bucket: usize) -> Range<u64> {
        assert!(
            bucket < self.buckets.len(),
            "bucket {bucket} out of range: the histogram has {} buckets",
            self.buckets.len()
        );
        self.histogram_type.bucket_range(bucket)
    }
}

/// A worker's own counts, published with [`submit`](Self::submit).
#[derive(Debug)]
pub(crate) struct HistogramBatch {
    buckets: Box<[u64]>,
    histogram_type: HistogramType,
}

impl HistogramBatch {
    /// Starts from what `histogram` holds (a worker handed to a new thread
    /// keeps counting where it was).
    pub(crate) fn from_histogram(histogram: &Histogram) -> HistogramBatch {
        HistogramBatch {
            buckets: histogram.buckets.iter().map(|b| b.load(Relaxed)).collect(),
            histogram_type: histogram.histogram_type,
        }
    }

    pub(crate) fn measure(&mut self, nanos: u64) {
        self.buckets[self.histogram_type.value_to_bucket(nanos)] += 1;
    }

    pub(crate) fn submit(&self, histogram: &Histogram) {
        for (shared, &count) in histogram.buckets.iter().zip(self.buckets.iter()) {
            shared.store(count, Relaxed);
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests;
