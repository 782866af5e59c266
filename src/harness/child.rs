//! The server under test as a real child process: spawn, stderr capture, shutdown.
//!
//! The server runs in its own process group (docs/src/verdicts.md): servers are very
//! often started through a wrapper (`sh -c`, `npx`, `uvx`, `uv run`) that starts the
//! real server as a grandchild, and killing only the direct child would leave that
//! grandchild running. Every kill here is sent to the whole group, and the group is
//! ended when the session ends however it ends (normal exit, timeout, a dropped
//! session on Ctrl-C or SIGTERM, a panic). Only the group the harness created is ever
//! signalled; a process that leaves it on purpose (`setsid`) is out of reach.

use std::process::Stdio;
use std::time::Duration;

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use tokio::io::AsyncReadExt;
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::task::JoinHandle;

use crate::error::Error;

/// Most bytes of stderr kept per session (the rest is counted, not kept).
pub const MAX_STDERR_BYTES: usize = 1024 * 1024;

pub use crate::evidence::exit::Exit;

/// How the server ended, with the signal that ended it ([`ServerProcess::end`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ended {
    /// Exit code, forced kill, stderr, the group (as [`ServerProcess::shutdown`]).
    pub exit: Exit,
    /// The signal that ended the server when one did and the harness did not
    /// kill it after the grace (`9` for SIGKILL); `None` after an exit code.
    pub signal: Option<i32>,
}

/// A signal in the protocol's words: `signal 9 (SIGKILL)`, `signal 11
/// (SIGSEGV)`; a number without a common name is `signal 42` (the
/// `crashed` verdict names the exit code or the signal).
pub fn describe_signal(signal: i32) -> String {
    match Signal::try_from(signal) {
        Ok(named) => format!("signal {signal} ({})", named.as_str()),
        Err(_) => format!("signal {signal}"),
    }
}

/// A running server process with its stdio taken apart.
#[derive(Debug)]
pub struct ServerProcess {
    child: Child,
    stderr: JoinHandle<String>,
    /// The process id; also the id of the server's process group.
    pub pid: Option<u32>,
}

/// Where a server (or a `check` hook command) starts and what it has in its
/// environment beyond elicit-check's own: `check --env KEY=VALUE` and `--cwd DIR`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Environment {
    /// Variables set (or replaced) in the child's environment, in order.
    pub vars: Vec<(String, String)>,
    /// Its working directory (none: elicit-check's own).
    pub cwd: Option<std::path::PathBuf>,
}

/// Spawns `command` (program, then arguments) with piped stdin, stdout and stderr,
/// as the leader of a new process group. The whole group is killed when the handle
/// is dropped, so nothing outlives a run or a test.
///
/// # Errors
/// [`Error::Spawn`] when the command is empty or cannot start.
pub fn spawn(command: &[String]) -> Result<(ServerProcess, ChildStdin, ChildStdout), Error> {
    spawn_in(command, &Environment::default())
}

/// [`spawn`] with `environment`'s variables and working directory.
///
/// # Errors
/// [`Error::Spawn`] when the command is empty or cannot start (a missing
/// working directory included).
pub fn spawn_in(
    command: &[String],
    environment: &Environment,
) -> Result<(ServerProcess, ChildStdin, ChildStdout), Error> {
    let spawn_error = |source| Error::Spawn {
        command: command.to_vec(),
        source,
    };
    let (program, args) = command.split_first().ok_or_else(|| {
        spawn_error(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "empty server command",
        ))
    })?;
    let mut child = Command::new(program);
    child.envs(environment.vars.iter().map(|(key, value)| (key, value)));
    if let Some(cwd) = &environment.cwd {
        child.current_dir(cwd);
    }
    let mut child = child
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true)
        .spawn()
        .map_err(spawn_error)?;
    let missing = |what: &str| spawn_error(std::io::Error::other(format!("no {what} pipe")));
    let stdin = child.stdin.take().ok_or_else(|| missing("stdin"))?;
    let stdout = child.stdout.take().ok_or_else(|| missing("stdout"))?;
    let mut stderr_pipe = child.stderr.take().ok_or_else(|| missing("stderr"))?;
    let stderr = tokio::spawn(async move {
        let mut kept = Vec::new();
        let mut chunk = [0u8; 8192];
        let mut dropped = 0usize;
        while let Ok(read) = stderr_pipe.read(&mut chunk).await {
            if read == 0 {
                break;
            }
            let room = MAX_STDERR_BYTES.saturating_sub(kept.len());
            kept.extend_from_slice(&chunk[..read.min(room)]);
            dropped += read.saturating_sub(room);
        }
        let mut text = String::from_utf8_lossy(&kept).into_owned();
        if dropped > 0 {
            text.push_str(&format!(
                "\n[elicit-check: {} of stderr not kept]",
                crate::format::counted(dropped, "more byte")
            ));
        }
        text
    });
    let pid = child.id();
    Ok((ServerProcess { child, stderr, pid }, stdin, stdout))
}

impl ServerProcess {
    /// Waits up to `grace` for the child to exit (its stdin must already be
    /// closed), then kills its process group. Processes of the group still running
    /// after the child exited are killed too (see [`Exit::group_left_running`]).
    /// Collects stderr within `grace` too.
    pub async fn shutdown(self, grace: Duration) -> Exit {
        self.end(grace).await.exit
    }

    /// Stops a server that does not end on its own (one serving HTTP): SIGTERM
    /// to its process group, then as [`ServerProcess::end`] (SIGKILL after
    /// `grace`). A server that obeys SIGTERM ends with `signal: Some(15)`
    /// (or the exit code its handler chose) and no forced kill.
    pub async fn terminate(self, grace: Duration) -> Ended {
        if let Some(group) = self.group() {
            // "No such process" is the group already gone.
            let _ = killpg(group, Signal::SIGTERM);
        }
        self.end(grace).await
    }

    /// [`ServerProcess::shutdown`], also giving the signal that ended the
    /// server ([`Ended::signal`]; `std::os::unix::process::ExitStatusExt`).
    pub async fn end(mut self, grace: Duration) -> Ended {
        use std::os::unix::process::ExitStatusExt;
        let (status, forced_kill) = match tokio::time::timeout(grace, self.child.wait()).await {
            Ok(status) => (status.ok(), false),
            Err(_) => {
                self.kill_group();
                let _ = self.child.start_kill();
                (self.child.wait().await.ok(), true)
            }
        };
        let group_left_running = !forced_kill && self.group_alive();
        self.kill_group();
        let stderr = match tokio::time::timeout(grace, &mut self.stderr).await {
            Ok(Ok(text)) => text,
            // A grandchild may hold stderr open; what was read so far is lost only then.
            _ => {
                self.stderr.abort();
                "[elicit-check: stderr still open after the server exited]".to_owned()
            }
        };
        Ended {
            exit: Exit {
                code: status.and_then(|status| status.code()),
                forced_kill,
                stderr,
                group_left_running,
            },
            signal: status
                .filter(|_| !forced_kill)
                .and_then(|status| status.signal()),
        }
    }

    /// Whether any process of the server's group still exists.
    fn group_alive(&self) -> bool {
        // No signal (`None`) only checks that the group exists.
        self.group()
            .is_some_and(|group| killpg(group, None).is_ok())
    }

    /// Sends SIGKILL to every process of the server's group.
    ///
    /// The group id is the child's pid. After the child has been reaped that number
    /// stays reserved while any process of the group lives; once none does, the
    /// kernel reports "no such process" (or, after a pid wrap-around, could reach a
    /// new group leader that got the same number, which this runs too soon after
    /// the exit to meet in practice).
    fn kill_group(&self) {
        if let Some(group) = self.group() {
            // "No such process" is the group already gone: nothing to end.
            let _ = killpg(group, Signal::SIGKILL);
        }
    }

    /// The process group id (the child's pid), when it fits a `pid_t` above 1.
    fn group(&self) -> Option<Pid> {
        self.pid
            .and_then(|pid| i32::try_from(pid).ok())
            .filter(|group| *group > 1)
            .map(Pid::from_raw)
    }
}

impl Drop for ServerProcess {
    /// A session dropped before [`ServerProcess::shutdown`] (Ctrl-C, SIGTERM, a
    /// panic, a cancelled future) still ends the whole group.
    fn drop(&mut self) {
        self.kill_group();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signals_are_named_by_number_and_name() {
        assert_eq!(describe_signal(9), "signal 9 (SIGKILL)");
        assert_eq!(describe_signal(11), "signal 11 (SIGSEGV)");
        assert_eq!(describe_signal(15), "signal 15 (SIGTERM)");
        assert_eq!(describe_signal(6), "signal 6 (SIGABRT)");
        assert_eq!(describe_signal(42), "signal 42");
    }

    /// `Ended::signal` is the signal that ended the process, read from its
    /// exit status (a shell that kills itself), and none after an exit code.
    #[test]
    fn the_signal_that_ended_a_process_is_kept_and_an_exit_code_has_none() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        let end = |script: &str| {
            let command = ["sh".to_owned(), "-c".to_owned(), script.to_owned()];
            runtime.block_on(async {
                let (process, stdin, _stdout) = spawn(&command).expect("sh starts");
                drop(stdin);
                process.end(Duration::from_secs(30)).await
            })
        };
        let killed = end("kill -TERM $$");
        assert_eq!((killed.exit.code, killed.signal), (None, Some(15)));
        assert!(!killed.exit.forced_kill);
        let exited = end("exit 3");
        assert_eq!((exited.exit.code, exited.signal), (Some(3), None));
    }
}
