//! `task::Builder`: spawn a task with a name.
//!
//! tokio has this API under `--cfg tokio_unstable`; volt has it always (an
//! extra API breaks no code written for tokio, and the compat crate then
//! serves crates that only use it with `tokio_unstable`, such as
//! console-subscriber). The name shows in the task's `tracing` span
//! (`task.name`, feature `tracing`), which is where tokio-console reads it;
//! without the feature it is not kept.

use crate::runtime::Handle;
use crate::task::{JoinHandle, LocalSet};
use crate::util::trace::TaskName;

use std::future::Future;
use std::io;

/// Factory which is used to configure the properties of a new task.
///
/// Methods can be chained in order to configure it.
///
/// Currently, there is only one configuration option:
///
/// - [`name`], which specifies an associated name for the task
///
/// There are three types of task that can be spawned from a Builder:
/// - [`spawn_local`] for executing futures on the current thread
/// - [`spawn`] for executing [`Send`] futures on the runtime
/// - [`spawn_blocking`] for executing blocking code in the blocking thread
///   pool.
///
/// ## Example
///
/// ```
/// use volt_runtime::net::{TcpListener, TcpStream};
///
/// use std::io;
///
/// async fn process(socket: TcpStream) {
///     // ...
/// # drop(socket);
/// }
///
/// #[volt_runtime::main(crate = "volt_runtime")]
/// async fn main() -> io::Result<()> {
///     let listener = TcpListener::bind("127.0.0.1:0").await?;
/// #   let addr = listener.local_addr()?;
/// #   let _client = volt_runtime::spawn(async move { TcpStream::connect(addr).await });
///
/// #   for _ in 0..1 {
///         let (socket, _) = listener.accept().await?;
///
///         volt_runtime::task::Builder::new()
///             .name("tcp connection handler")
///             .spawn(async move {
///                 // Process each socket concurrently.
///                 process(socket).await
///             })?;
/// #   }
/// #   Ok(())
/// }
/// ```
/// [`name`]: Builder::name
/// [`spawn_local`]: Builder::spawn_local
/// [`spawn`]: Builder::spawn
/// [`spawn_blocking`]: Builder::spawn_blocking
#[derive(Default, Debug)]
pub struct Builder<'a> {
    name: Option<&'a str>,
}

impl<'a> Builder<'a> {
    /// Creates a new task builder.
    pub fn new() -> Self {
        Self::default()
    }

    /// Assigns a name to the task which will be spawned.
    pub fn name(&self, name: &'a str) -> Self {
        Self { name: Some(name) }
    }

    /// Spawns a task with this builder's settings on the current runtime.
    ///
    /// # Panics
    ///
    /// This method panics if called outside of a runtime, with tokio's
    /// message.
    ///
    /// See [`task::spawn`](crate::task::spawn()) for more details.
    #[track_caller]
    pub fn spawn<Fut>(self, future: Fut) -> io::Result<JoinHandle<Fut::Output>>
    where
        Fut: Future + Send + 'static,
        Fut::Output: Send + 'static,
    {
        let _name = TaskName::set(self.name);
        Ok(crate::task::spawn(future))
    }

    /// Spawn a task with this builder's settings on the provided [runtime
    /// handle].
    ///
    /// See [`Handle::spawn`] for more details.
    ///
    /// [runtime handle]: crate::runtime::Handle
    /// [`Handle::spawn`]: crate::runtime::Handle::spawn
    #[track_caller]
    pub fn spawn_on<Fut>(self, future: Fut, handle: &Handle) -> io::Result<JoinHandle<Fut::Output>>
    where
        Fut: Future + Send + 'static,
        Fut::Output: Send + 'static,
    {
        let _name = TaskName::set(self.name);
        Ok(handle.spawn(future))
    }

    /// Spawns `!Send` a task on the current [`LocalSet`] or
    /// [`LocalRuntime`](crate::runtime::LocalRuntime) with this builder's
    /// settings.
    ///
    /// # Panics
    ///
    /// This function panics if called outside of a [`LocalSet`] or a
    /// local runtime.
    ///
    /// See [`task::spawn_local`](crate::task::spawn_local()) for more
    /// details.
    #[track_caller]
    pub fn spawn_local<Fut>(self, future: Fut) -> io::Result<JoinHandle<Fut::Output>>
    where
        Fut: Future + 'static,
        Fut::Output: 'static,
    {
        let _name = TaskName::set(self.name);
        Ok(crate::task::spawn_local(future))
    }

    /// Spawns `!Send` a task on the provided [`LocalSet`] with this
    /// builder's settings.
    ///
    /// See [`LocalSet::spawn_local`] for more details.
    #[track_caller]
    pub fn spawn_local_on<Fut>(
        self,
        future: Fut,
        local_set: &LocalSet,
    ) -> io::Result<JoinHandle<Fut::Output>>
    where
        Fut: Future + 'static,
        Fut::Output: 'static,
    {
        let _name = TaskName::set(self.name);
        Ok(local_set.spawn_local(future))
    }

    /// Spawns blocking code on the blocking threadpool.
    ///
    /// # Panics
    ///
    /// This method panics if called outside of a runtime.
    ///
    /// See [`task::spawn_blocking`](crate::task::spawn_blocking) for more
    /// details.
    #[track_caller]
    pub fn spawn_blocking<Function, Output>(
        self,
        function: Function,
    ) -> io::Result<JoinHandle<Output>>
    where
        Function: FnOnce() -> Output + Send + 'static,
        Output: Send + 'static,
    {
        let handle = Handle::current();
        self.spawn_blocking_on(function, &handle)
    }

    /// Spawns blocking code on the provided [runtime handle]'s blocking
    /// threadpool. Fails if no pool thread exists and the OS refuses to
    /// start one.
    ///
    /// See [`Handle::spawn_blocking`] for more details.
    ///
    /// [runtime handle]: crate::runtime::Handle
    /// [`Handle::spawn_blocking`]: crate::runtime::Handle::spawn_blocking
    #[track_caller]
    pub fn spawn_blocking_on<Function, Output>(
        self,
        function: Function,
        handle: &Handle,
    ) -> io::Result<JoinHandle<Output>>
    where
        Function: FnOnce() -> Output + Send + 'static,
        Output: Send + 'static,
    {
        let _name = TaskName::set(self.name);
        handle
            .inner
            .blocking_spawner()
            .try_spawn_blocking(handle, function)
    }
}
