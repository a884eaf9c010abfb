//! Assembling a runtime: from a `Builder`'s configuration to a running
//! `Runtime` (the driver for I/O and time, the blocking pool, the scheduler
//! on top of them, and the default worker count). `builder.rs` holds the
//! configuration API.

use crate::runtime::{Builder, Runtime};

use std::io;

impl Builder {
    fn driver_config(&self, enable_pausing: bool, timer_shards: usize) -> crate::driver::Cfg {
        crate::driver::Cfg {
            enable_io: self.enable_io,
            enable_time: self.enable_time,
            start_paused: self.start_paused,
            enable_pausing,
            timer_shards,
            alt_timer: self.alt_timer,
            nevents: self.nevents,
            nevents_busy: self.nevents_busy,
        }
    }

    fn scheduler_config(&self) -> crate::scheduler::Config {
        crate::scheduler::Config {
            global_queue_interval: self.global_queue_interval,
            event_interval: self.event_interval,
            before_park: self.before_park.clone(),
            after_unpark: self.after_unpark.clone(),
            disable_lifo_slot: self.disable_lifo_slot,
            unhandled_panic: self.unhandled_panic.clone(),
            seed_generator: self.seed_generator.next_generator(),
            task_hooks: self.task_hooks.clone(),
            poll_time_histogram: self.poll_time_histogram.builder(),
            eager_driver_handoff: self.eager_driver_handoff,
        }
    }

    pub(super) fn build_current_thread_runtime(&mut self) -> io::Result<Runtime> {
        use crate::runtime::scheduler::Scheduler;
        use crate::scheduler::current_thread::CurrentThread;

        let (driver, driver_handle) = crate::driver::Driver::new(self.driver_config(true, 1))?;

        // Blocking pool.
        let blocking_pool = crate::blocking::BlockingPool::new(self, self.max_blocking_threads);
        let blocking_spawner = blocking_pool.spawner().clone();

        // And now put a single-threaded scheduler on top of the timer. When
        // there are no futures ready to do something, it'll let the timer or
        // the reactor to generate some new stimuli for the futures to
        // continue in their life.
        let (scheduler, handle) = CurrentThread::new(
            driver,
            driver_handle,
            blocking_spawner,
            self.scheduler_config(),
            self.name.clone(),
        );

        let handle = registered_handle(crate::scheduler::Handle::CurrentThread(handle));

        Ok(Runtime::from_parts(
            Scheduler::CurrentThread(scheduler),
            handle,
            blocking_pool,
        ))
    }

    #[cfg(feature = "rt-multi-thread")]
    pub(super) fn build_threaded_runtime(&mut self) -> io::Result<Runtime> {
        use crate::runtime::scheduler::Scheduler;
        use crate::scheduler::multi_thread::MultiThread;

        let core_threads = self.worker_threads.unwrap_or_else(num_cpus);

        let (driver, driver_handle) =
            crate::driver::Driver::new(self.driver_config(false, core_threads))?;

        // Create the blocking pool; the workers are its (mandatory) threads.
        let blocking_pool =
            crate::blocking::BlockingPool::new(self, core_threads + self.max_blocking_threads);
        let blocking_spawner = blocking_pool.spawner().clone();

        let (scheduler, handle, launch) = MultiThread::new(
            core_threads,
            driver,
            driver_handle,
            blocking_spawner,
            self.scheduler_config(),
            self.name.clone(),
        );

        let handle = registered_handle(crate::scheduler::Handle::MultiThread(handle));

        // Spawn the thread pool workers.
        let _enter = handle.enter();
        launch.launch();

        Ok(Runtime::from_parts(
            Scheduler::MultiThread(scheduler),
            handle.clone(),
            blocking_pool,
        ))
    }
}

/// The public handle of a new scheduler, registered (with `time`) in the
/// registry of live runtimes (where a `Sleep` finds its runtime).
fn registered_handle(inner: crate::scheduler::Handle) -> crate::runtime::Handle {
    let handle = crate::runtime::Handle { inner };
    #[cfg(feature = "time")]
    crate::scheduler::registry::register(&handle.inner);
    handle
}

/// Number of worker threads: `VOLT_WORKER_THREADS`, then
/// `TOKIO_WORKER_THREADS` (so a tokio deployment's setting carries over),
/// then the number of cores.
#[cfg(feature = "rt-multi-thread")]
#[track_caller]
fn num_cpus() -> usize {
    for var in ["VOLT_WORKER_THREADS", "TOKIO_WORKER_THREADS"] {
        match std::env::var(var) {
            Ok(s) => {
                let n: usize = s
                    .parse()
                    .unwrap_or_else(|e| panic!("\"{var}\" must be usize, error: {e}, value: {s}"));
                assert!(n > 0, "\"{var}\" cannot be set to 0");
                return n;
            }
            Err(std::env::VarError::NotPresent) => {}
            Err(std::env::VarError::NotUnicode(e)) => {
                panic!("\"{var}\" must be valid unicode, error: {e:?}")
            }
        }
    }
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}
