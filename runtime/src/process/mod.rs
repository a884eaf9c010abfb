//! An implementation of asynchronous process management.
//!
//! [`Command`] mirrors `std::process::Command` (it wraps one); `spawn`
//! gives a [`Child`] whose `wait` is a future and whose piped stdio are
//! [`AsyncWrite`](crate::io::AsyncWrite) / [`AsyncRead`](crate::io::AsyncRead)
//! streams registered with the I/O driver. `wait` is woken through a
//! pidfd where the kernel has one, else through `SIGCHLD` (see `wait.rs`).
//!
//! As in tokio, dropping a `Child` does not kill the process unless
//! [`Command::kill_on_drop`] was set; an unwaited child is reaped in the
//! background so it does not stay a zombie.
//!
//! ```
//! use volt_runtime::process::Command;
//!
//! # #[volt_runtime::main(crate = "volt_runtime")]
//! # async fn main() -> std::io::Result<()> {
//! let output = Command::new("echo").arg("hello").arg("world").output().await?;
//! assert!(output.status.success());
//! assert_eq!(output.stdout, b"hello world\n");
//! # Ok(())
//! # }
//! ```

mod stdio;
mod wait;

pub use stdio::{ChildStderr, ChildStdin, ChildStdout};

use crate::io::AsyncReadExt;
use wait::ExitWatch;

use std::ffi::OsStr;
use std::future::{Future, poll_fn};
use std::io;
use std::path::Path;
use std::process::{Child as StdChild, Command as StdCommand, ExitStatus, Output, Stdio};

/// This structure mimics the API of [`std::process::Command`] found in the
/// standard library, but replaces functions that create a process with an
/// asynchronous variant.
pub struct Command {
    std: std::process::Command,
    kill_on_drop: bool,
    /// Which stdio the caller set (`output` picks defaults for the rest).
    set_stdin: bool,
    set_stdout: bool,
    set_stderr: bool,
}

impl Command {
    /// Constructs a new `Command` for launching the program at path
    /// `program`, with no arguments, the parent's environment and working
    /// directory, and inherited stdio (for `spawn` and `status`).
    pub fn new<S: AsRef<OsStr>>(program: S) -> Command {
        Self::from(std::process::Command::new(program))
    }

    /// Cheaply convert to a `&std::process::Command` for places where the
    /// type from the standard library is expected.
    pub fn as_std(&self) -> &std::process::Command {
        &self.std
    }

    /// Cheaply convert to a `&mut std::process::Command` for places where
    /// the type from the standard library is expected.
    pub fn as_std_mut(&mut self) -> &mut std::process::Command {
        &mut self.std
    }

    /// Cheaply convert into a `std::process::Command` (the
    /// `kill_on_drop` setting is lost).
    pub fn into_std(self) -> std::process::Command {
        self.std
    }

    /// Adds an argument to pass to the program.
    pub fn arg<S: AsRef<OsStr>>(&mut self, arg: S) -> &mut Command {
        self.std.arg(arg);
        self
    }

    /// Adds multiple arguments to pass to the program.
    pub fn args<I, S>(&mut self, args: I) -> &mut Command
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.std.args(args);
        self
    }

    /// Inserts or updates an environment variable mapping.
    pub fn env<K, V>(&mut self, key: K, val: V) -> &mut Command
    where
        K: AsRef<OsStr>,
        V: AsRef<OsStr>,
    {
        self.std.env(key, val);
        self
    }

    /// Adds or updates multiple environment variable mappings.
    pub fn envs<I, K, V>(&mut self, vars: I) -> &mut Command
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<OsStr>,
        V: AsRef<OsStr>,
    {
        self.std.envs(vars);
        self
    }

    /// Removes an environment variable mapping.
    pub fn env_remove<K: AsRef<OsStr>>(&mut self, key: K) -> &mut Command {
        self.std.env_remove(key);
        self
    }

    /// Clears the entire environment map for the child process.
    pub fn env_clear(&mut self) -> &mut Command {
        self.std.env_clear();
        self
    }

    /// Sets the working directory for the child process.
    pub fn current_dir<P: AsRef<Path>>(&mut self, dir: P) -> &mut Command {
        self.std.current_dir(dir);
        self
    }

    /// Sets configuration for the child process's standard input (stdin)
    /// handle. Defaults to inherit for `spawn`/`status`, null for
    /// `output`.
    pub fn stdin<T: Into<Stdio>>(&mut self, cfg: T) -> &mut Command {
        self.std.stdin(cfg);
        self.set_stdin = true;
        self
    }

    /// Sets configuration for the child process's standard output
    /// (stdout) handle. Defaults to inherit for `spawn`/`status`, piped
    /// for `output`.
    pub fn stdout<T: Into<Stdio>>(&mut self, cfg: T) -> &mut Command {
        self.std.stdout(cfg);
        self.set_stdout = true;
        self
    }

    /// Sets configuration for the child process's standard error (stderr)
    /// handle. Defaults to inherit for `spawn`/`status`, piped for
    /// `output`.
    pub fn stderr<T: Into<Stdio>>(&mut self, cfg: T) -> &mut Command {
        self.std.stderr(cfg);
        self.set_stderr = true;
        self
    }

    /// Controls whether a `kill` operation should be invoked on a spawned
    /// child process when its corresponding `Child` handle is dropped.
    ///
    /// By default, this value is assumed to be `false`, meaning the next
    /// spawned process will not be killed on drop, similar to the behavior
    /// of the standard library.
    pub fn kill_on_drop(&mut self, kill_on_drop: bool) -> &mut Command {
        self.kill_on_drop = kill_on_drop;
        self
    }

    /// Returns the `kill_on_drop` setting.
    pub fn get_kill_on_drop(&self) -> bool {
        self.kill_on_drop
    }

    /// Sets the child process's user ID.
    #[cfg(unix)]
    pub fn uid(&mut self, id: u32) -> &mut Command {
        std::os::unix::process::CommandExt::uid(&mut self.std, id);
        self
    }

    /// Sets the child process's group ID.
    #[cfg(unix)]
    pub fn gid(&mut self, id: u32) -> &mut Command {
        std::os::unix::process::CommandExt::gid(&mut self.std, id);
        self
    }

    /// Sets executable argument (`argv[0]`).
    #[cfg(unix)]
    pub fn arg0<S: AsRef<OsStr>>(&mut self, arg: S) -> &mut Command {
        std::os::unix::process::CommandExt::arg0(&mut self.std, arg);
        self
    }

    /// Sets the process group ID (PGID) of the child process (0: a new
    /// group with the child's pid).
    #[cfg(unix)]
    pub fn process_group(&mut self, pgroup: i32) -> &mut Command {
        std::os::unix::process::CommandExt::process_group(&mut self.std, pgroup);
        self
    }

    /// Schedules a closure to be run just before the `exec` function is
    /// invoked.
    ///
    /// # Safety
    ///
    /// As for [`std::os::unix::process::CommandExt::pre_exec`]: the
    /// closure runs in the forked child, where only async-signal-safe
    /// operations are allowed.
    #[cfg(unix)]
    pub unsafe fn pre_exec<F>(&mut self, f: F) -> &mut Command
    where
        F: FnMut() -> io::Result<()> + Send + Sync + 'static,
    {
        // SAFETY: forwarded; the caller upholds `pre_exec`'s contract.
        unsafe { std::os::unix::process::CommandExt::pre_exec(&mut self.std, f) };
        self
    }

    /// Returns the path to the program.
    pub fn get_program(&self) -> &OsStr {
        self.std.get_program()
    }

    /// Returns an iterator of the arguments that will be passed to the
    /// program.
    pub fn get_args(&self) -> std::process::CommandArgs<'_> {
        self.std.get_args()
    }

    /// Returns the working directory for the child process, if set.
    pub fn get_current_dir(&self) -> Option<&Path> {
        self.std.get_current_dir()
    }

    /// Executes the command as a child process, returning a handle to it.
    ///
    /// By default, stdin, stdout and stderr are inherited from the parent.
    ///
    /// # Errors
    ///
    /// The OS's error if the program cannot be started (`NotFound` for a
    /// missing program, `PermissionDenied`, ...).
    ///
    /// # Panics
    ///
    /// Outside a runtime with I/O enabled (the pipes and the exit watch
    /// register with its driver).
    pub fn spawn(&mut self) -> io::Result<Child> {
        wait::reap_orphans();
        let std = self.std.spawn()?;
        self.build_child(std)
    }

    /// Executes the command as a child process with a custom spawning
    /// function, returning a handle to it.
    ///
    /// This is useful when the standard library's spawn is not enough:
    /// `with` gets this command's `std::process::Command` (program,
    /// arguments, environment, standard streams as configured) and returns
    /// the started child, which is then watched as [`spawn`] watches its
    /// own. By default, stdin, stdout and stderr are inherited from the
    /// parent.
    ///
    /// (tokio has this behind `tokio_unstable`; volt offers it stable.)
    ///
    /// # Errors
    ///
    /// Whatever `with` returns, or the error of setting up the child's
    /// pipes and exit watch (then the child is killed and reaped).
    ///
    /// # Panics
    ///
    /// Outside a runtime with I/O enabled, as [`spawn`].
    ///
    /// # Examples
    ///
    /// ```
    /// use std::process::Stdio;
    ///
    /// # #[volt_runtime::main(crate = "volt_runtime")]
    /// # async fn main() {
    /// let output = volt_runtime::process::Command::new("echo")
    ///     .arg("hi")
    ///     .stdin(Stdio::null())
    ///     .stdout(Stdio::piped())
    ///     .spawn_with(std::process::Command::spawn)
    ///     .unwrap()
    ///     .wait_with_output()
    ///     .await
    ///     .unwrap();
    /// assert_eq!(output.stdout, b"hi\n");
    /// # }
    /// ```
    ///
    /// [`spawn`]: Command::spawn
    pub fn spawn_with(
        &mut self,
        with: impl FnOnce(&mut StdCommand) -> io::Result<StdChild>,
    ) -> io::Result<Child> {
        wait::reap_orphans();
        let std = with(&mut self.std)?;
        self.build_child(std)
    }

    /// Watches a started child: its exit, its pipes.
    fn build_child(&self, mut std: StdChild) -> io::Result<Child> {
        let pid = std.id();
        // Watch for the exit before anyone can wait for it.
        let setup = (|| {
            let watch = ExitWatch::new(pid)?;
            let stdin = std.stdin.take().map(ChildStdin::new).transpose()?;
            let stdout = std.stdout.take().map(ChildStdout::new).transpose()?;
            let stderr = std.stderr.take().map(ChildStderr::new).transpose()?;
            Ok::<_, io::Error>((watch, stdin, stdout, stderr))
        })();
        let (watch, stdin, stdout, stderr) = match setup {
            Ok(parts) => parts,
            Err(e) => {
                // Do not leave a process nobody can reach.
                let _ = std.kill();
                wait::push_orphan(std);
                return Err(e);
            }
        };
        Ok(Child {
            child: ChildState::Running(Box::new(Running {
                std,
                watch,
                kill_on_drop: self.kill_on_drop,
            })),
            stdin,
            stdout,
            stderr,
        })
    }

    /// Executes the command as a child process, waiting for it to finish
    /// and collecting its status. Stdio is inherited unless configured;
    /// the child's stdin is closed if it was piped.
    ///
    /// As in tokio, the child is spawned when this method is called (not
    /// when the future is first polled), and the future does not borrow
    /// the `Command`: it can be spawned as a task, and the `Command`
    /// changed or reused while it runs.
    ///
    /// ```
    /// use volt_runtime::process::Command;
    ///
    /// # #[volt_runtime::main(crate = "volt_runtime")]
    /// # async fn main() -> std::io::Result<()> {
    /// let status = volt_runtime::spawn(Command::new("true").status()).await.unwrap()?;
    /// assert!(status.success());
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Cancel safety
    ///
    /// Dropping the future drops the `Child` (killing the process only if
    /// `kill_on_drop` was set).
    pub fn status(&mut self) -> impl Future<Output = io::Result<ExitStatus>> + use<> {
        let child = self.spawn();
        async move {
            let mut child = child?;
            // Nobody would read or write these pipes.
            child.stdin.take();
            child.stdout.take();
            child.stderr.take();
            child.wait().await
        }
    }

    /// Executes the command as a child process, waiting for it to finish
    /// and collecting all of its output.
    ///
    /// Unless configured, stdout and stderr are piped and captured, and
    /// stdin is null.
    ///
    /// The child is spawned when this method is called, and the future
    /// does not borrow the `Command` (see [`status`](Self::status)).
    ///
    /// # Cancel safety
    ///
    /// Dropping the future drops the `Child` (killing the process only if
    /// `kill_on_drop` was set); output read so far is lost.
    pub fn output(&mut self) -> impl Future<Output = io::Result<Output>> + use<> {
        if !self.set_stdin {
            self.std.stdin(Stdio::null());
        }
        if !self.set_stdout {
            self.std.stdout(Stdio::piped());
        }
        if !self.set_stderr {
            self.std.stderr(Stdio::piped());
        }
        let child = self.spawn();
        // Restore the caller's defaults for later `spawn`s.
        if !self.set_stdin {
            self.std.stdin(Stdio::inherit());
        }
        if !self.set_stdout {
            self.std.stdout(Stdio::inherit());
        }
        if !self.set_stderr {
            self.std.stderr(Stdio::inherit());
        }
        async move { child?.wait_with_output().await }
    }
}

impl std::fmt::Debug for Command {
    /// tokio's format: the std command and `kill_on_drop`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Command")
            .field("std", &self.std)
            .field("kill_on_drop", &self.kill_on_drop)
            .finish()
    }
}

impl From<std::process::Command> for Command {
    fn from(std: std::process::Command) -> Command {
        Command {
            std,
            kill_on_drop: false,
            set_stdin: false,
            set_stdout: false,
            set_stderr: false,
        }
    }
}

#[derive(Debug)]
struct Running {
    std: std::process::Child,
    watch: ExitWatch,
    kill_on_drop: bool,
}

#[derive(Debug)]
enum ChildState {
    Running(Box<Running>),
    Done(ExitStatus),
}

/// Representation of a child process spawned onto an event loop.
///
/// # Caveats
///
/// Similar to the behavior of the standard library, and unlike the
/// futures paradigm of dropping-implies-cancellation, a spawned process
/// will, by default, continue to execute even after the `Child` handle
/// has been dropped. [`Command::kill_on_drop`] changes that.
#[derive(Debug)]
pub struct Child {
    child: ChildState,
    /// The handle for writing to the child's standard input (stdin), if it
    /// has been captured.
    pub stdin: Option<ChildStdin>,
    /// The handle for reading from the child's standard output (stdout),
    /// if it has been captured.
    pub stdout: Option<ChildStdout>,
    /// The handle for reading from the child's standard error (stderr), if
    /// it has been captured.
    pub stderr: Option<ChildStderr>,
}

impl Child {
    /// Returns the OS-assigned process identifier associated with this
    /// child while it is still running; `None` once it has been polled to
    /// completion.
    pub fn id(&self) -> Option<u32> {
        match &self.child {
            ChildState::Running(r) => Some(r.std.id()),
            ChildState::Done(_) => None,
        }
    }

    /// Attempts to force the child to exit, but does not wait for the
    /// request to take effect (sends `SIGKILL` on Unix). A child already
    /// waited for to completion is left alone: `Ok(())`, as in tokio.
    ///
    /// # Errors
    ///
    /// The OS's error.
    pub fn start_kill(&mut self) -> io::Result<()> {
        match &mut self.child {
            ChildState::Running(r) => r.std.kill(),
            ChildState::Done(_) => Ok(()),
        }
    }

    /// Forces the child to exit (`start_kill`), then waits for it.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe: the kill was sent; a later `wait` collects the exit.
    pub async fn kill(&mut self) -> io::Result<()> {
        self.start_kill()?;
        self.wait().await?;
        Ok(())
    }

    /// Waits for the child to exit completely, returning the status that
    /// it exited with. Closes the child's stdin first (if piped), so a
    /// child waiting for input sees end of file.
    ///
    /// # Cancel safety
    ///
    /// This function is cancel safe.
    pub async fn wait(&mut self) -> io::Result<ExitStatus> {
        drop(self.stdin.take());
        poll_fn(|cx| {
            loop {
                let r = match &mut self.child {
                    ChildState::Done(status) => return std::task::Poll::Ready(Ok(*status)),
                    ChildState::Running(r) => r,
                };
                if let Some(status) = r.std.try_wait()? {
                    self.child = ChildState::Done(status);
                    wait::reap_orphans();
                    continue;
                }
                std::task::ready!(r.watch.poll(r.std.id(), cx))?;
            }
        })
        .await
    }

    /// Attempts to collect the exit status of the child if it has already
    /// exited (never blocks).
    ///
    /// # Errors
    ///
    /// The OS's `waitpid` error.
    pub fn try_wait(&mut self) -> io::Result<Option<ExitStatus>> {
        match &mut self.child {
            ChildState::Done(status) => Ok(Some(*status)),
            ChildState::Running(r) => {
                let status = r.std.try_wait()?;
                if let Some(status) = status {
                    self.child = ChildState::Done(status);
                }
                Ok(status)
            }
        }
    }

    /// Returns a future that will resolve to an `Output`, containing the
    /// exit status, stdout, and stderr of the child process (the piped
    /// streams are read concurrently while waiting).
    ///
    /// # Cancel safety
    ///
    /// Not cancel safe: output read so far is lost.
    pub async fn wait_with_output(mut self) -> io::Result<Output> {
        // Close our end of the child's stdin first, as `wait` does (tokio
        // waits while it reads, and its `wait` closes stdin at once): a
        // child that reads stdin to the end would otherwise never exit,
        // and its stdout never reach end-of-file.
        drop(self.stdin.take());
        async fn read_all<R: crate::io::AsyncRead + Unpin>(io: Option<R>) -> io::Result<Vec<u8>> {
            let mut buf = Vec::new();
            if let Some(mut io) = io {
                io.read_to_end(&mut buf).await?;
            }
            Ok(buf)
        }
        let stdout = read_all(self.stdout.take());
        let stderr = read_all(self.stderr.take());
        let (mut stdout, mut stderr) = (std::pin::pin!(stdout), std::pin::pin!(stderr));
        let (mut out, mut err) = (None, None);
        // Drain both pipes while they are open (a child blocked on a full
        // pipe would never exit), then wait.
        poll_fn(|cx| {
            if out.is_none() {
                if let std::task::Poll::Ready(r) = stdout.as_mut().poll(cx) {
                    out = Some(r?);
                }
            }
            if err.is_none() {
                if let std::task::Poll::Ready(r) = stderr.as_mut().poll(cx) {
                    err = Some(r?);
                }
            }
            if out.is_some() && err.is_some() {
                std::task::Poll::Ready(Ok::<(), io::Error>(()))
            } else {
                std::task::Poll::Pending
            }
        })
        .await?;
        let status = self.wait().await?;
        Ok(Output {
            status,
            stdout: out.unwrap_or_default(),
            stderr: err.unwrap_or_default(),
        })
    }
}

impl Drop for Child {
    fn drop(&mut self) {
        if let ChildState::Running(r) =
            std::mem::replace(&mut self.child, ChildState::Done(exit_placeholder()))
        {
            let mut r = *r;
            if r.kill_on_drop {
                let _ = r.std.kill();
            }
            if !matches!(r.std.try_wait(), Ok(Some(_))) {
                wait::push_orphan(r.std);
            }
        }
    }
}

/// A status to leave behind in a dropped `Child` (never observed).
fn exit_placeholder() -> ExitStatus {
    std::os::unix::process::ExitStatusExt::from_raw(0)
}
