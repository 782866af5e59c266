//! The helpers the integration tests share: the servers under test (the
//! reference server, `calculator.py`, `misbehaving.py`), `elicit-check` run as
//! a program, a runtime, the reference core without a process, the contract
//! cases, and the folders a test writes in, removed when the test ends.

use std::path::{Path, PathBuf};

use elicit_check::case::Case;
use elicit_check::harness::client::reply_for;
use elicit_check::server::decision::{self, Policy};
use elicit_check::server::outcome::Outcome;
use elicit_check::server::reply::Reply;
use rmcp::model::ClientCapabilities;
use serde_json::Value;
use tempfile::TempDir;

/// A fresh empty folder for one test's files (`elicit-check-TEST-XXXXXX` in the
/// system's temporary folder), removed with everything in it when dropped,
/// whether the test passed or failed.
pub struct Scratch(TempDir);

impl Scratch {
    /// Creates the folder; `test` names it, for whoever finds one left behind.
    pub fn new(test: &str) -> Scratch {
        tempfile::Builder::new()
            .prefix(&format!("elicit-check-{test}-"))
            .tempdir()
            .map(Scratch)
            .unwrap_or_else(|error| panic!("a scratch folder for {test}: {error}"))
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        self.0.path()
    }

    /// The path of `name` in the folder.
    pub fn join(&self, name: &str) -> PathBuf {
        self.path().join(name)
    }

    /// The path of `name` in the folder, as text for a command line.
    pub fn arg(&self, name: &str) -> String {
        self.join(name).to_string_lossy().into_owned()
    }
}

/// The `--output` folder of an `elicit-check` run: a path in a fresh
/// [`Scratch`] that does not exist until the run creates it (a run refused on
/// its arguments must leave it absent). Removed with the scratch folder when
/// dropped, pass or fail: keep it alive while the test reads the evidence.
pub struct OutputDir {
    scratch: Scratch,
    path: PathBuf,
}

impl OutputDir {
    pub fn new(test: &str) -> OutputDir {
        let scratch = Scratch::new(test);
        let path = scratch.join("output");
        OutputDir { scratch, path }
    }

    /// The output folder (absent until a run writes it).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The output folder as text, for `--output`.
    pub fn text(&self) -> String {
        self.path.to_string_lossy().into_owned()
    }

    /// The path of `name` in the output folder.
    pub fn join(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }

    /// A path beside the output folder (in the same scratch folder), for the
    /// test's own files: a marker, a script, a program.
    pub fn beside(&self, name: &str) -> PathBuf {
        self.scratch.join(name)
    }

    /// The text of evidence file `name`; panics naming the file when it is missing.
    pub fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.join(name))
            .unwrap_or_else(|error| panic!("no {name} in {}: {error}", self.path.display()))
    }

    /// Evidence file `name` read as JSON.
    pub fn json(&self, name: &str) -> Value {
        serde_json::from_str(&self.read(name)).unwrap_or_else(|error| panic!("{name}: {error}"))
    }
}

/// `elicit-check serve`, the built-in reference server, as a child command.
pub fn reference_server() -> Vec<String> {
    vec![
        env!("CARGO_BIN_EXE_elicit-check").to_owned(),
        "serve".to_owned(),
    ]
}

/// The Python peer server (`fixtures/servers/calculator.py`), with one planted
/// `--bug` when given.
pub fn calculator(bug: Option<&str>) -> Vec<String> {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/servers/calculator.py"
    );
    let mut command = vec![python3().to_owned(), script.to_owned()];
    if let Some(bug) = bug {
        command.extend(["--bug".to_owned(), bug.to_owned()]);
    }
    command
}

/// Contract case `name` from `fixtures/cases.json` with its hand-written expected
/// outcome from `expected/results.json`.
pub fn contract_case(name: &str) -> (Case, serde_json::Value) {
    let case = elicit_check::case::contract_cases()
        .into_iter()
        .find(|case| case.name == name)
        .unwrap_or_else(|| panic!("no case {name} in fixtures/cases.json"));
    let expected = elicit_check::case::contract_expected()
        .get(name)
        .cloned()
        .unwrap_or_else(|| panic!("no expected outcome for {name}"));
    (case, expected)
}

/// Runs `case` once over stdio against the reference server (default limits, no tap).
pub fn run_on_reference(case: &Case) -> elicit_check::harness::Evidence {
    runtime()
        .block_on(elicit_check::harness::run_case(
            &reference_server(),
            case,
            elicit_check::harness::Limits::default(),
            None,
        ))
        .expect("the reference server starts")
}

/// A current-thread runtime for one test (proptest bodies cannot be async).
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime")
}

/// The reference core's outcome for `case` without a process: the harness
/// client's reply (`reply_for`) parsed as rmcp would, through the decision.
pub fn core_outcome(case: &Case) -> Outcome {
    let capabilities: ClientCapabilities =
        serde_json::from_value(case.capabilities.clone()).expect("valid capabilities");
    let policy: Policy = case.policy.parse().expect("known policy");
    decision::decide(capabilities.elicitation.as_ref(), policy, || {
        Reply::from_answer(&reply_for(case))
    })
}

/// The persistence file for one property group in the top-level
/// `proptest-regressions/` folder (the default would put it beside the test file).
#[macro_export]
macro_rules! regressions {
    ($file:literal) => {
        Some(Box::new(
            proptest::test_runner::FileFailurePersistence::Direct(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/proptest-regressions/",
                $file
            )),
        ))
    };
}

pub use elicit_check::report::explain;

/// Calls `$callback!` with the 19 contract case names of the contract table (C1 to C19), in
/// order: the one list that per-case tests (stdio, snapshots) are generated from.
#[macro_export]
macro_rules! with_contract_cases {
    ($callback:ident) => {
        $callback!(
            accept_valid,
            accept_missing_field,
            accept_no_content,
            accept_wrong_type,
            accept_out_of_range,
            decline,
            cancel,
            decline_with_spurious_data,
            cancel_with_spurious_data,
            raw_accept_missing_field,
            unsupported_guarded,
            unsupported_unchecked_diagnostic,
            legacy_empty_capability_accept,
            url_only_guarded,
            accept_extra_field,
            accept_float_integer,
            accept_boolean_as_integer,
            accept_two_invalid_fields,
            accept_non_object_content,
        );
    };
}

/// Panics, saying exactly what is missing, when `program` cannot be run
/// (`program --version` fails to start): e.g. `python3 not found on PATH: the
/// Python peer servers need python3 >= 3.10` (docs/src/getting-started.md, "Requirements").
pub fn require_program(program: &str, need: &str) {
    if let Err(error) = std::process::Command::new(program)
        .arg("--version")
        .output()
    {
        panic!("{program} not found on PATH ({error}): {need}");
    }
}

/// The interpreter `python3` on PATH runs, resolved once per test binary
/// (`sys.executable`), for the plain Python servers the tests start (about
/// 1,700 starts in a `cargo test`): where `python3` is a version manager's shim
/// (pyenv's is a bash script that runs several more), a start through it costs
/// about 70 ms more CPU and 110 ms more wall time than the interpreter itself.
/// Panics as [`require_program`] does when there is no `python3`.
pub fn python3() -> &'static str {
    static PYTHON3: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    PYTHON3.get_or_init(|| {
        require_program("python3", "the plain Python peer servers need python3");
        let output = std::process::Command::new("python3")
            .args(["-c", "import sys; print(sys.executable)"])
            .output()
            .expect("python3 runs");
        let executable = String::from_utf8_lossy(&output.stdout).trim().to_owned();
        assert!(
            output.status.success() && !executable.is_empty(),
            "python3 does not say where its interpreter is: {}",
            printed(&output)
        );
        executable
    })
}

/// [`python3`] as a reproduction line writes it (shell-quoted when it must be).
pub fn python3_quoted() -> String {
    shlex::try_quote(python3())
        .expect("a path without NUL")
        .into_owned()
}

/// Runs `elicit-check run` with `args` (the built binary), scrubbing the
/// variables that could change it (`RUST_LOG`, `PROPTEST_CASES`).
pub fn run_elicit_check<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> std::process::Output {
    elicit_check("run", args)
}

/// Runs `elicit-check SUBCOMMAND` with `args`, as [`run_elicit_check`] does.
pub fn elicit_check<S: AsRef<std::ffi::OsStr>>(
    subcommand: &str,
    args: &[S],
) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_elicit-check"))
        .arg(subcommand)
        .args(args)
        .env_remove("RUST_LOG")
        .env_remove("PROPTEST_CASES")
        .output()
        .expect("elicit-check runs")
}

/// `fixtures/servers/misbehaving.py`: a test-only server with one fault per verdict.
pub const MISBEHAVING: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/fixtures/servers/misbehaving.py"
);

/// `python3 fixtures/servers/misbehaving.py --fault FAULT`.
pub fn misbehaving(fault: &str) -> Vec<String> {
    [python3(), MISBEHAVING, "--fault", fault]
        .map(str::to_owned)
        .to_vec()
}

/// `python3 fixtures/servers/misbehaving_http.py --port {port} --fault FAULT`:
/// the Streamable HTTP one, for `run --url` (elicit-check writes the port).
pub fn misbehaving_http(fault: &str) -> Vec<String> {
    let script = format!(
        "{}/fixtures/servers/misbehaving_http.py",
        env!("CARGO_MANIFEST_DIR")
    );
    [python3(), &script, "--port", "{port}", "--fault", fault]
        .map(str::to_owned)
        .to_vec()
}

/// The names of the contract cases, in `fixtures/cases.json` order.
pub fn contract_names() -> Vec<String> {
    elicit_check::case::contract_cases()
        .into_iter()
        .map(|case| case.name)
        .collect()
}

/// The numbers of the properties a `check` report says fail, in order.
pub fn failing(report: &elicit_check::check::CheckReport) -> Vec<u8> {
    report
        .properties
        .iter()
        .filter(|property| property.verdict == elicit_check::check::PropertyVerdict::Fails)
        .map(|property| property.property)
        .collect()
}

/// A free local port: bound, read, released (the server the test starts on it
/// binds it a moment later).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind(("127.0.0.1", 0))
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port()
}

/// A server the test started itself (for `--url` without a command), in a
/// process group of its own (`process_group(0)`), its whole group killed when
/// dropped.
pub struct Running(pub std::process::Child);

impl Running {
    /// Starts `command` with stdout and stderr discarded, in its own process group.
    pub fn start(command: &mut std::process::Command) -> Running {
        use std::os::unix::process::CommandExt;
        Running(
            command
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .process_group(0)
                .spawn()
                .expect("the server starts"),
        )
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        use nix::sys::signal::{Signal, killpg};
        // The group the test made (process_group(0)): its id is the child's pid.
        if let Ok(group) = i32::try_from(self.0.id())
            && group > 1
        {
            let _ = killpg(nix::unistd::Pid::from_raw(group), Signal::SIGKILL);
        }
        let _ = self.0.wait();
    }
}

/// What a command printed, for a failed assertion: `exit CODE`, then its
/// stdout and stderr.
pub fn printed(output: &std::process::Output) -> String {
    format!(
        "exit {:?}\n{}{}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// `command`'s output, without `RUST_LOG` from the test's environment.
pub fn run(command: &mut std::process::Command) -> std::process::Output {
    command
        .env_remove("RUST_LOG")
        .output()
        .expect("the command starts")
}
