//! `Sleep`, `sleep` and `sleep_until`.
//!
//! A `Sleep` embeds its timer entry ([`TimerShared`]): nothing is allocated
//! beyond the future itself. The entry is filed lazily, on the first poll,
//! in the timer shard of the worker polling it (creating and dropping an
//! unpolled `Sleep` never touches a lock). See `time::driver` for the
//! entry's state machine and who may touch what.

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
        // Keeps the driver (and its shards) alive while the entry may be
        // filed.
        handle: scheduler::Handle,
        deadline: Instant,
        // The shard the entry is registered with (valid while
        // `registered`).
        shard: u32,
        // Whether the entry's state describes `deadline` (filed or fired);
        // if so, dropping must go through the shard's lock.
        registered: bool,
        #[pin]
        entry: TimerShared,
    }

    impl PinnedDrop for Sleep {
        fn drop(this: Pin<&mut Self>) {
            let me = this.project();
            if *me.registered {
                let time = time_handle(me.handle);
                // SAFETY: the entry is registered with this shard and is
                // still live (we are dropping it after this call).
                unsafe { time.cancel(*me.shard as usize, NonNull::from(&*me.entry)) };
            }
        }
    }
}

fn time_handle(handle: &scheduler::Handle) -> &driver::Handle {
    handle.driver().time().expect(TIMERS_DISABLED)
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
        let handle = match context::with_current(Clone::clone) {
            Ok(handle) => handle,
            Err(e) => panic!("{}", e),
        };
        if handle.driver().time().is_none() {
            panic!("{}", TIMERS_DISABLED);
        }
        Sleep {
            handle,
            deadline,
            shard: 0,
            registered: false,
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
        self.registered && self.entry.state() == STATE_FIRED
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
        let mut this = self;
        *this.as_mut().project().deadline = deadline;
        let me = this.as_mut().project();
        if *me.registered && !reregister {
            let time = time_handle(me.handle);
            // SAFETY: registered with this shard, live.
            unsafe { time.cancel(*me.shard as usize, NonNull::from(&*me.entry)) };
            *me.registered = false;
        } else if reregister {
            this.file();
        }
    }

    /// Files the entry for the current deadline (or fires it at once if
    /// the deadline passed).
    fn file(self: Pin<&mut Self>) {
        let me = self.project();
        let time = time_handle(me.handle);
        if !*me.registered {
            *me.shard = current_shard(time.num_shards()) as u32;
        }
        let tick = time.source().deadline_to_tick(*me.deadline);
        // The shard only changes while unregistered, so the entry is
        // registered with no other shard.
        // SAFETY: the entry is pinned inside `self`; the drop glue cancels
        // it under this shard's lock before it is freed.
        let filed = unsafe { time.file(*me.shard as usize, NonNull::from(&*me.entry), tick) };
        *me.registered = true;
        if filed == Filed::QueuedUnpark {
            me.handle.driver().unpark();
        }
    }

    fn poll_elapsed(mut self: Pin<&mut Self>, cx: &mut task::Context<'_>) -> Poll<()> {
        let time = time_handle(&self.handle);
        assert!(
            !time.is_shutdown(),
            "{}",
            crate::context::RUNTIME_SHUTTING_DOWN_ERROR
        );
        if !self.registered {
            self.as_mut().file();
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
        let ret = self.poll_elapsed(cx);
        if ret.is_ready() {
            coop.made_progress();
        }
        ret
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
