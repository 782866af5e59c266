//! The shell commands a `check` target runs around its cases: `--setup CMD`
//! before each case (reset a fixture) and `--acted-cmd CMD` after each case
//! (exit status 0: the tool acted, e.g. `test ! -e victim.txt`).
//!
//! Each runs as `sh -c CMD` with the target's `--env` and `--cwd`, in a process
//! group of its own, with stdin closed, bounded by the call timeout; nothing it
//! starts outlives it.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::harness::child::{self, Environment};

/// Nanoseconds spent in hook commands by this process so far.
static SPENT: AtomicU64 = AtomicU64::new(0);

/// The time this process has spent running hook commands so far: `check`
/// says how much of its time went to `--setup` and `--acted-cmd`.
pub fn time_spent() -> Duration {
    Duration::from_nanos(SPENT.load(Ordering::Relaxed))
}

/// How a hook command ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookRun {
    /// Its exit code (`None`: killed by a signal or at the time bound).
    pub code: Option<i32>,
    /// Whether it was killed at the time bound.
    pub timed_out: bool,
    /// The last lines of its stderr.
    pub stderr: String,
}

impl HookRun {
    /// Whether it exited with status 0.
    pub fn succeeded(&self) -> bool {
        self.code == Some(0)
    }

    /// How it ended, in words: `exit status 1`, `killed after 10 s`.
    pub fn ending(&self, bound: Duration) -> String {
        match (self.code, self.timed_out) {
            (_, true) => format!("killed after {}", crate::format::seconds(bound)),
            (Some(code), false) => format!("exit status {code}"),
            (None, false) => "killed by a signal".to_owned(),
        }
    }
}

/// Runs `sh -c command` in `environment`, waiting at most `bound`.
///
/// # Errors
/// The operating system's message when `sh` cannot start (or the working
/// directory does not exist).
pub async fn run(
    command: &str,
    environment: &Environment,
    bound: Duration,
) -> Result<HookRun, String> {
    let started = Instant::now();
    let words = ["sh".to_owned(), "-c".to_owned(), command.to_owned()];
    let (process, stdin, stdout) =
        child::spawn_in(&words, environment).map_err(|error| error.to_string())?;
    drop(stdin);
    // Read and drop its stdout, so a chatty command never blocks on a full pipe.
    let drain = tokio::spawn(async move {
        let mut stdout = stdout;
        let _ = tokio::io::copy(&mut stdout, &mut tokio::io::sink()).await;
    });
    let exit = process.shutdown(bound).await;
    drain.abort();
    let spent = u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX);
    SPENT.fetch_add(spent, Ordering::Relaxed);
    let lines: Vec<&str> = exit.stderr.lines().collect();
    Ok(HookRun {
        code: exit.code,
        timed_out: exit.forced_kill,
        stderr: lines[lines.len().saturating_sub(10)..].join("\n"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_hook_sees_the_environment_and_the_working_directory() {
        let dir = std::env::temp_dir();
        let environment = Environment {
            vars: vec![("ELICIT_CHECK_HOOK_TEST".into(), "seven".into())],
            cwd: Some(dir.clone()),
        };
        let bound = Duration::from_secs(10);
        let run = run(
            &format!(
                "test \"$ELICIT_CHECK_HOOK_TEST\" = seven && test \"$(pwd -P)\" = \"{}\"",
                dir.canonicalize().expect("temp dir").display()
            ),
            &environment,
            bound,
        )
        .await
        .expect("sh starts");
        assert!(run.succeeded(), "{run:?}");
        let failed = super::run("echo oops >&2; exit 3", &environment, bound)
            .await
            .expect("sh starts");
        assert!(!failed.succeeded());
        assert_eq!(failed.code, Some(3));
        assert_eq!(failed.stderr, "oops");
        assert_eq!(failed.ending(bound), "exit status 3");
    }

    #[tokio::test]
    async fn a_hook_that_hangs_is_killed_at_its_bound() {
        let bound = Duration::from_millis(200);
        let run = run("sleep 30", &Environment::default(), bound)
            .await
            .expect("sh starts");
        assert!(run.timed_out);
        assert!(!run.succeeded());
        assert_eq!(run.ending(bound), "killed after 0.2 s");
    }

    #[tokio::test]
    async fn a_missing_working_directory_is_an_error() {
        let environment = Environment {
            vars: Vec::new(),
            cwd: Some("/nonexistent/elicit-check".into()),
        };
        assert!(
            run("true", &environment, Duration::from_secs(5))
                .await
                .is_err()
        );
    }
}
