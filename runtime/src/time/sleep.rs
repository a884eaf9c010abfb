//! `Sleep`, `sleep` and `sleep_until`.
//!
//! A `Sleep` embeds its timer entry ([`TimerShared`]): nothing is allocated
//! beyond the future itself. The entry is filed lazily, on the first poll,
//! in the timer shard of the worker polling it (creating and dropping an
//! unpolled `Sleep` never touches a lock). See `time::driver` for the
//! entry's state machine and who may touch what.
//!
//! The runtime is resolved lazily too. Creating a `Sleep` checks that the
//! current runtime has timers (tokio's panics otherwise) and records only
//! its id; the runtime's handle is cloned when the entry is first filed,
//! from the thread's current runtime when that is the same one (the usual
//! case), else from `scheduler::registry`. So a `Sleep` that is never
//! polled, such as the timer of a `timeout` whose future is ready at once,
//! costs one clock read and no reference count. A filed entry always holds
//! the handle, which keeps the driver alive until the entry is cancelled.

use crate::context;
use crate::coop;
use crate::scheduler;
use crate::time::driver::{self, Filed, STATE_FIRED, TimerShared};
use crate::time::{Duration, Instant};

use pin_project_lite::pin_project;
use std::future::Future;
use std::pin::Pin;
use std::ptr::NonNull;
use std::task::{self, Poll, ready};

/// `Sleep::shard` of an entry that is in no shard.
const NOT_FILED: usize = usize::MAX;

const TIMERS_DISABLED: &str = "A Tokio 1.x context was found, but timers are disabled. \
     Call `enable_time` on the runtime builder to enable timers.";

/// Waits until `deadline` is reached.
///
/// No work is performed while awaiting on the sleep future to complete.
/// `Sleep` operates at millisecond granularity and should not be used for
/// tasks that require high-resolution timers.
///
/// To run something regularly on a schedule, see [`interval`].
///
/// # Cancellation
///
/// Canceling a sleep instance is done by dropping the returned future. No
/// additional cleanup work is required.
///
/// # Examples
///
/// ```
/// use volt_runtime::time::{sleep_until, Duration, Instant};
///
/// # #[volt_runtime::main(crate = "volt_runtime")]
/// # async fn main() {
/// sleep_until(Instant::now() + Duration::from_millis(10)).await;
/// println!("10ms have elapsed");
/// # }
/// ```
///
/// # Panics
///
/// This function panics if there is no current timer set: outside of a
/// runtime, or in a runtime built without [`enable_time`] (or
/// [`enable_all`]).
///
/// [`interval`]: crate::time::interval()
/// [`enable_time`]: crate::runtime::Builder::enable_time
/// [`enable_all`]: crate::runtime::Builder::enable_all
#[track_caller]
#[inline]
pub fn sleep_until(deadline: Instant) -> Sleep {
    Sleep::new_timeout(deadline)
}

/// Waits until `duration` has elapsed.
///
/// Equivalent to `sleep_until(Instant::now() + duration)`. An asynchronous
/// analog to `std::thread::sleep`.
///
/// No work is performed while awaiting on the sleep future to complete.
/// `Sleep` operates at millisecond granularity and should not be used for
/// tasks that require high-resolution timers. The implementation is
/// platform specific, and some platforms (specifically Windows) will
/// provide timers with a larger resolution than 1 ms.
///
/// A duration too large to represent (such as `Duration::MAX`) sleeps for
/// about 30 years instead of overflowing.
///
/// # Cancellation
///
/// Canceling a sleep instance is done by dropping the returned future. No
/// additional cleanup work is required.
///
/// # Examples
///
/// ```
/// use volt_runtime::time::{sleep, Duration};
///
/// # #[volt_runtime::main(crate = "volt_runtime")]
/// # async fn main() {
/// sleep(Duration::from_millis(10)).await;
/// println!("10 ms have elapsed");
/// # }
/// ```
///
/// # Panics
///
/// As [`sleep_until`]: outside of a runtime, or in a runtime without time
/// enabled.
#[track_caller]
#[inline]
pub fn sleep(duration: Duration) -> Sleep {
    match Instant::now().checked_add(duration) {
        Some(deadline) => Sleep::new_timeout(deadline),
        None => Sleep::new_timeout(Instant::far_future()),
    }
}

pin_project! {
    /// Future returned by [`sleep`](sleep) and [`sleep_until`](sleep_until).
    ///
    /// This type does not implement the `Unpin` trait, which means that if
    /// you use it with [`select!`] or by calling `poll`, you have to pin it
    /// first. If you use it with `.await`, this does not matter.
    ///
    /// # Examples
    ///
    /// Wait 100 ms and print "100 ms have elapsed".
    ///
    /// ```
    /// use volt_runtime::time::{sleep, Duration};
    ///
    /// # #[volt_runtime::main(crate = "volt_runtime")]
    /// # async fn main() {
    /// sleep(Duration::from_millis(100)).await;
    /// println!("100 ms have elapsed");
    /// # }
    /// ```
    ///
    /// Use with [`select!`]. Pinning the `Sleep` with [`volt_runtime::pin!`] is
    /// necessary when the same `Sleep` is selected on multiple times.
    ///
    /// ```no_run
    /// use volt_runtime::time::{self, Duration, Instant};
    ///
    /// # #[volt_runtime::main(crate = "volt_runtime")]
    /// # async fn main() {
    /// let sleep = time::sleep(Duration::from_millis(10));
    /// volt_runtime::pin!(sleep);
    ///
    /// loop {
    ///     volt_runtime::select! {
    ///         () = &mut sleep => {
    ///             println!("timer elapsed");
    ///             sleep.as_mut().reset(Instant::now() + Duration::from_millis(50));
    ///         },
    ///     }
    /// }
    /// # }
    /// ```
    ///
    /// [`select!`]: crate::select
    /// [`volt_runtime::pin!`]: ../macro.pin.html
    #[must_use = "futures do nothing unless you `.await` or poll them"]
    pub struct Sleep {
        // The runtime whose driver files the entry (module docs).
        runtime: RuntimeRef,
        deadline: Instant,
        // The shard the entry is registered with, or `NOT_FILED`. While
        // it is a shard, the entry's state describes `deadline` (filed or
        // fired) and dropping must go through that shard's lock. One word
        // rather than a `u32` and a `bool`: see `Position::encode`.
        shard: usize,
        // The resource and async-op spans tokio-console reads (feature
        // `tracing`; nothing otherwise).
        trace: SleepTrace,
        #[pin]
        entry: TimerShared,
    }

    impl PinnedDrop for Sleep {
        fn drop(this: Pin<&mut Self>) {
            let me = this.project();
            if *me.shard != NOT_FILED {
                let time = time_handle(me.runtime.filed());
                // SAFETY: the entry is registered with this shard and is
                // still live (we are dropping it after this call).
                unsafe { time.cancel(*me.shard, NonNull::from(&*me.entry)) };
            }
        }
    }
}

fn time_handle(handle: &scheduler::Handle) -> &driver::Handle {
    handle.driver().time().expect(TIMERS_DISABLED)
}

/// The id of the current runtime, checking that it has timers (tokio's
/// panics otherwise).
#[track_caller]
#[inline(never)]
fn current_timer_runtime() -> u64 {
    match context::with_current(|h| (h.owned_id(), h.driver().time().is_some())) {
        Ok((id, true)) => id,
        Ok((_, false)) => panic!("{}", TIMERS_DISABLED),
        Err(e) => panic!("{}", e),
    }
}

/// The runtime a `Sleep` belongs to: its id from creation, and its handle
/// once the entry has been filed (module docs).
struct RuntimeRef {
    /// `owned_id` of the runtime current when the `Sleep` was created.
    id: u64,
    handle: Option<scheduler::Handle>,
}

impl RuntimeRef {
    /// The handle, cloned from the thread's context or found in the
    /// registry on first use; `None` if every handle of the runtime is gone
    /// (it was dropped, so its driver is shut down).
    fn try_resolve(&mut self) -> Option<&scheduler::Handle> {
        if self.handle.is_none() {
            let id = self.id;
            self.handle = match context::with_current(|h| (h.owned_id() == id).then(|| h.clone())) {
                Ok(Some(handle)) => Some(handle),
                // Off its own runtime (another runtime, or a plain thread).
                _ => scheduler::registry::find(id),
            };
        }
        self.handle.as_ref()
    }

    /// As `try_resolve`, with tokio's panic for polling a sleep whose
    /// runtime has shut down.
    #[track_caller]
    fn resolve(&mut self) -> &scheduler::Handle {
        self.try_resolve()
            .unwrap_or_else(|| panic!("{}", context::RUNTIME_SHUTTING_DOWN_ERROR))
    }

    /// The handle of an entry that has been filed (so it was resolved).
    fn filed(&self) -> &scheduler::Handle {
        self.handle
            .as_ref()
            .expect("a filed timer entry holds its runtime's handle")
    }
}

/// The shard for an entry filed on this thread: the worker's own, or a
/// random one off the workers.
fn current_shard(shards: usize) -> usize {
    context::with_scheduler(|cx| match cx {
        Some(cx) => cx.worker_index() % shards,
        None => context::thread_rng_n(shards as u32) as usize,
    })
}

impl Sleep {
    #[track_caller]
    #[inline]
    pub(crate) fn new_timeout(deadline: Instant) -> Sleep {
        // The checks are out of line and only the id comes back, in a
        // register: built here, the `Sleep` can be written straight into
        // the caller's future instead of being returned through memory and
        // copied (a copy of a value written moments before by narrower
        // stores stalls on store forwarding; see `util::waker_slot`).
        let id = current_timer_runtime();
        Sleep {
            runtime: RuntimeRef { id, handle: None },
            deadline,
            shard: NOT_FILED,
            trace: SleepTrace::new(deadline),
            entry: TimerShared::new(),
        }
    }

    /// Returns the instant at which the future will complete.
    pub fn deadline(&self) -> Instant {
        self.deadline
    }

    /// Returns `true` if `Sleep` has elapsed.
    ///
    /// A `Sleep` instance is elapsed when the requested duration has
    /// elapsed and the timer has fired (it has been polled since the
    /// deadline passed, or the driver fired it).
    pub fn is_elapsed(&self) -> bool {
        self.shard != NOT_FILED && self.entry.state() == STATE_FIRED
    }

    /// Resets the `Sleep` instance to a new deadline.
    ///
    /// Calling this function allows changing the instant at which the
    /// `Sleep` future completes without having to create new associated
    /// state.
    ///
    /// This function can be called both before and after the future has
    /// completed.
    ///
    /// To call this method, you will usually combine the call with
    /// [`Pin::as_mut`], which lets you call the method without consuming
    /// the `Sleep` itself.
    ///
    /// # Example
    ///
    /// ```
    /// use volt_runtime::time::{Duration, Instant};
    ///
    /// # #[volt_runtime::main(crate = "volt_runtime", flavor = "current_thread")]
    /// # async fn main() {
    /// let sleep = volt_runtime::time::sleep(Duration::from_millis(10));
    /// volt_runtime::pin!(sleep);
    ///
    /// sleep.as_mut().reset(Instant::now() + Duration::from_millis(20));
    /// sleep.await;
    /// # }
    /// ```
    ///
    /// See also the top-level examples.
    pub fn reset(self: Pin<&mut Self>, deadline: Instant) {
        self.reset_inner(deadline, true);
    }

    /// Resets the deadline without filing the entry; the next poll files
    /// it (what `Interval` does after each tick).
    pub(crate) fn reset_without_reregister(self: Pin<&mut Self>, deadline: Instant) {
        self.reset_inner(deadline, false);
    }

    fn reset_inner(self: Pin<&mut Self>, deadline: Instant, reregister: bool) {
        self.trace.duration(deadline);
        let mut this = self;
        *this.as_mut().project().deadline = deadline;
        let me = this.as_mut().project();
        if *me.shard != NOT_FILED && !reregister {
            let time = time_handle(me.runtime.filed());
            // SAFETY: registered with this shard, live.
            unsafe { time.cancel(*me.shard, NonNull::from(&*me.entry)) };
            *me.shard = NOT_FILED;
        } else if reregister {
            // A deadline that has already passed fires at once: wake the
            // task that polled before, or it would never poll again
            // (tokio wakes here too; `DelayQueue::reset_at` relies on it).
            if this.as_mut().file() == Some(Filed::Fired) {
                if let Some(waker) = this.entry.take_waker() {
                    waker.wake();
                }
            }
        }
    }

    /// Files the entry for the current deadline (or fires it at once if
    /// the deadline passed); `None` if the runtime is gone.
    fn file(self: Pin<&mut Self>) -> Option<Filed> {
        let me = self.project();
        let Some(handle) = me.runtime.try_resolve() else {
            // The runtime is gone: nothing to file, as tokio's reset on a
            // shut-down driver files nothing; a poll reports the shutdown.
            return None;
        };
        let time = time_handle(handle);
        if *me.shard == NOT_FILED {
            *me.shard = current_shard(time.num_shards());
        }
        let tick = time.source().deadline_to_tick(*me.deadline);
        // SAFETY: the entry is pinned inside `self`; the drop glue cancels
        // it under this shard's lock before it is freed. The shard only
        // changes while unregistered, so the entry is registered with no
        // other shard.
        let filed = unsafe { time.file(*me.shard, NonNull::from(&*me.entry), tick) };
        if filed == Filed::QueuedUnpark {
            handle.driver().unpark();
        }
        Some(filed)
    }

    fn poll_elapsed(mut self: Pin<&mut Self>, cx: &mut task::Context<'_>) -> Poll<()> {
        let time = time_handle(self.as_mut().project().runtime.resolve());
        if time.is_shutdown() {
            // The alternative timer's behavior (`runtime/switches.rs`).
            if time.fired_by_shutdown_elapses && self.entry.state() == STATE_FIRED {
                return Poll::Ready(());
            }
            panic!("{}", crate::context::RUNTIME_SHUTTING_DOWN_ERROR);
        }
        if self.shard == NOT_FILED {
            let _ = self.as_mut().file();
        }
        let me = self.project();
        if me.entry.state() == STATE_FIRED {
            return Poll::Ready(());
        }
        me.entry.register_waker(cx.waker());
        // Acquire (in `state`): pairs with the driver's store of `FIRED`
        // before it took the waker (driver module docs).
        if me.entry.state() == STATE_FIRED {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }
}

impl Future for Sleep {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut task::Context<'_>) -> Poll<()> {
        let coop = ready!(coop::poll_proceed(cx));
        let scope = self.trace.enter_poll();
        let ret = scope.done(self.poll_elapsed(cx));
        if ret.is_ready() {
            coop.made_progress();
        }
        ret
    }
}

/// A `Sleep`'s spans: the timer resource, and its one async op.
#[cfg(feature = "tracing")]
struct SleepTrace {
    resource: crate::util::trace::Resource,
    op: crate::util::trace::AsyncOp,
}

/// Without `tracing`, nothing (zero-sized).
#[cfg(not(feature = "tracing"))]
struct SleepTrace;

#[cfg(not(feature = "tracing"))]
impl SleepTrace {
    #[inline(always)]
    fn new(_deadline: Instant) -> SleepTrace {
        SleepTrace
    }

    #[inline(always)]
    fn duration(&self, _deadline: Instant) {}

    #[inline(always)]
    fn enter_poll(&self) -> NoScope {
        NoScope
    }
}

/// Without `tracing`, a poll enters no span.
#[cfg(not(feature = "tracing"))]
struct NoScope;

#[cfg(not(feature = "tracing"))]
impl NoScope {
    #[inline(always)]
    fn done<R>(self, res: Poll<R>) -> Poll<R> {
        res
    }
}

#[cfg(feature = "tracing")]
impl SleepTrace {
    /// The spans of one poll (owned: the poll borrows the `Sleep`).
    fn enter_poll(&self) -> crate::util::trace::PollScope {
        self.op.enter_poll("poll_elapsed")
    }

    #[track_caller]
    fn new(deadline: Instant) -> SleepTrace {
        let resource = crate::util::trace::Resource::new("Sleep", "timer");
        let trace = SleepTrace {
            op: resource.async_op("Sleep::new_timeout"),
            resource,
        };
        trace.duration(deadline);
        trace
    }

    /// The time left, as tokio reports it (ms).
    fn duration(&self, deadline: Instant) {
        let ms = deadline
            .checked_duration_since(Instant::now())
            .map_or(0, |d| d.as_millis() as u64);
        crate::__trace_state!(
            self.resource,
            duration = ms,
            duration.unit = "ms",
            duration.op = "override"
        );
    }
}

impl std::fmt::Debug for Sleep {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sleep")
            .field("deadline", &self.deadline)
            .field("is_elapsed", &self.is_elapsed())
            .finish()
    }
}
