//! `join_set::Builder`: `task::Builder` for the tasks of a `JoinSet`.
//!
//! tokio has it under `tokio_unstable` (with its `tracing` feature), as it
//! has `task::Builder`; volt has both always. Each method spawns through
//! `task::Builder` and puts the `JoinHandle` in the set, as the set's own
//! `spawn*` methods do.

use crate::runtime::Handle;
use crate::task::{AbortHandle, JoinSet, LocalSet};

use std::fmt;
use std::future::Future;
use std::io;

/// A variant of [`task::Builder`] that spawns tasks on a [`JoinSet`] rather
/// than on the current default runtime.
///
/// Made by [`JoinSet::build_task`].
///
/// # Examples
///
/// ```
/// use volt_runtime::task::JoinSet;
///
/// #[volt_runtime::main(crate = "volt_runtime")]
/// async fn main() -> std::io::Result<()> {
///     let mut set = JoinSet::new();
///
///     // Use the builder to configure a task's name before spawning it.
///     set.build_task()
///         .name("my_task")
///         .spawn(async { 7 })?;
///
///     assert_eq!(set.join_next().await.unwrap().unwrap(), 7);
///     Ok(())
/// }
/// ```
///
/// [`task::Builder`]: crate::task::Builder
#[must_use = "builders do nothing unless used to spawn a task"]
pub struct Builder<'a, T> {
    joinset: &'a mut JoinSet<T>,
    builder: crate::task::Builder<'a>,
}

impl<T> JoinSet<T> {
    /// Returns a [`Builder`] that can be used to configure a task prior to
    /// spawning it on this `JoinSet`.
    ///
    /// (tokio has this behind `tokio_unstable`; volt offers it stable.)
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_runtime::task::JoinSet;
    ///
    /// #[volt_runtime::main(crate = "volt_runtime")]
    /// async fn main() -> std::io::Result<()> {
    ///     let mut set = JoinSet::new();
    ///
    ///     // Use the builder to configure a task's name before spawning it.
    ///     set.build_task()
    ///         .name("my_task")
    ///         .spawn(async { /* ... */ })?;
    ///
    ///     Ok(())
    /// }
    /// ```
    pub fn build_task(&mut self) -> Builder<'_, T> {
        Builder {
            builder: crate::task::Builder::new(),
            joinset: self,
        }
    }
}

impl<'a, T: 'static> Builder<'a, T> {
    /// Assigns a name to the task which will be spawned.
    pub fn name(self, name: &'a str) -> Self {
        let builder = self.builder.name(name);
        Self { builder, ..self }
    }

    /// Spawn the provided task with this builder's settings and store it in
    /// the [`JoinSet`], returning an [`AbortHandle`] that can be used to
    /// remotely cancel the task.
    ///
    /// # Returns
    ///
    /// An [`AbortHandle`] that can be used to remotely cancel the task.
    ///
    /// # Panics
    ///
    /// This method panics if called outside of a runtime, with tokio's
    /// message.
    #[track_caller]
    pub fn spawn<F>(self, future: F) -> io::Result<AbortHandle>
    where
        F: Future<Output = T>,
        F: Send + 'static,
        T: Send,
    {
        Ok(self.joinset.insert(self.builder.spawn(future)?))
    }

    /// Spawn the provided task on the provided [runtime handle] with this
    /// builder's settings, and store it in the [`JoinSet`].
    ///
    /// # Returns
    ///
    /// An [`AbortHandle`] that can be used to remotely cancel the task.
    ///
    /// [runtime handle]: crate::runtime::Handle
    #[track_caller]
    pub fn spawn_on<F>(self, future: F, handle: &Handle) -> io::Result<AbortHandle>
    where
        F: Future<Output = T>,
        F: Send + 'static,
        T: Send,
    {
        Ok(self.joinset.insert(self.builder.spawn_on(future, handle)?))
    }

    /// Spawn the blocking code on the blocking threadpool with this
    /// builder's settings, and store it in the [`JoinSet`].
    ///
    /// # Returns
    ///
    /// An [`AbortHandle`] that can be used to remotely cancel the task.
    ///
    /// # Panics
    ///
    /// This method panics if called outside of a runtime.
    #[track_caller]
    pub fn spawn_blocking<F>(self, f: F) -> io::Result<AbortHandle>
    where
        F: FnOnce() -> T,
        F: Send + 'static,
        T: Send,
    {
        Ok(self.joinset.insert(self.builder.spawn_blocking(f)?))
    }

    /// Spawn the blocking code on the blocking threadpool of the provided
    /// runtime handle with this builder's settings, and store it in the
    /// [`JoinSet`].
    ///
    /// # Returns
    ///
    /// An [`AbortHandle`] that can be used to remotely cancel the task.
    #[track_caller]
    pub fn spawn_blocking_on<F>(self, f: F, handle: &Handle) -> io::Result<AbortHandle>
    where
        F: FnOnce() -> T,
        F: Send + 'static,
        T: Send,
    {
        Ok(self
            .joinset
            .insert(self.builder.spawn_blocking_on(f, handle)?))
    }

    /// Spawn the provided task on the current [`LocalSet`] or
    /// [`LocalRuntime`] with this builder's settings, and store it in the
    /// [`JoinSet`].
    ///
    /// # Returns
    ///
    /// An [`AbortHandle`] that can be used to remotely cancel the task.
    ///
    /// # Panics
    ///
    /// This method panics if it is called outside of a `LocalSet` or
    /// `LocalRuntime`.
    ///
    /// [`LocalRuntime`]: crate::runtime::LocalRuntime
    #[track_caller]
    pub fn spawn_local<F>(self, future: F) -> io::Result<AbortHandle>
    where
        F: Future<Output = T>,
        F: 'static,
    {
        Ok(self.joinset.insert(self.builder.spawn_local(future)?))
    }

    /// Spawn the provided task on the provided [`LocalSet`] with this
    /// builder's settings, and store it in the [`JoinSet`].
    ///
    /// # Returns
    ///
    /// An [`AbortHandle`] that can be used to remotely cancel the task.
    #[track_caller]
    pub fn spawn_local_on<F>(self, future: F, local_set: &LocalSet) -> io::Result<AbortHandle>
    where
        F: Future<Output = T>,
        F: 'static,
    {
        Ok(self
            .joinset
            .insert(self.builder.spawn_local_on(future, local_set)?))
    }
}

// `Debug` whether or not `T` is.
impl<T> fmt::Debug for Builder<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("join_set::Builder")
            .field("joinset", &self.joinset)
            .field("builder", &self.builder)
            .finish()
    }
}
