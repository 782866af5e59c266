//! The GitHub Action (`action.yml`, docs/src/ci.md, "The GitHub Action"): its
//! shell part, `scripts/action-check.sh`, run as the action's steps run it, in
//! a fake GitHub environment (a `GITHUB_OUTPUT`, `GITHUB_STEP_SUMMARY` and
//! `GITHUB_PATH` file of the test's, the inputs as `INPUT_*` variables, this
//! build's elicit-check first on `PATH`), and `action.yml` read to hold every
//! input out of the steps' script text.
//!
//! The server is `fixtures/servers/calculator.py` (standard-library Python)
//! through the configs `fixtures/configs/action-correct.toml` (every property
//! holds) and `fixtures/configs/action-on-decline.toml` (`--bug
//! computes-on-decline`: property 1 fails, and only it).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::support::{Scratch, require_program};

/// The repository root: the action's own checkout (`GITHUB_ACTION_PATH`) and
/// the working directory the fixture configs' commands are relative to.
const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The reason `fixtures/configs/action-baseline.toml` gives for P1.
const BASELINE_REASON: &str =
    "acts on a decline: calculator.py plants the bug with --bug computes-on-decline";

/// How one command of the script ended, and what it left for later steps.
struct Step {
    /// The script's own exit code.
    status: i32,
    /// Its stdout and stderr, for the messages it prints and for failures.
    log: String,
    /// The `name=value` lines it appended to `GITHUB_OUTPUT`.
    outputs: Vec<(String, String)>,
    /// The Markdown appended to `GITHUB_STEP_SUMMARY`.
    summary: String,
}

impl Step {
    /// The value of output `name`; panics when the step did not write it once.
    fn output(&self, name: &str) -> &str {
        let values: Vec<&str> = self
            .outputs
            .iter()
            .filter(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
            .collect();
        match values.as_slice() {
            [value] => value,
            _ => panic!(
                "output {name} written {} times, not once:\n{}",
                values.len(),
                self.log
            ),
        }
    }
}

/// The folder holding this build's `elicit-check`, first on the steps' `PATH`.
fn binary_folder() -> PathBuf {
    Path::new(env!("CARGO_BIN_EXE_elicit-check"))
        .parent()
        .expect("the binary is in a folder")
        .to_path_buf()
}

/// `bash scripts/action-check.sh COMMAND` as the action runs it: in `scratch`,
/// with `GITHUB_ACTION_PATH` the repository, `GITHUB_OUTPUT`,
/// `GITHUB_STEP_SUMMARY` and `GITHUB_PATH` files in `scratch`, `PATH` as
/// given (else this build's folder first), and `env`; any `GITHUB_*`,
/// `INPUT_*` or `EXIT_CODE` of the test's own environment is left out.
fn step(scratch: &Scratch, command: &str, path: Option<&str>, env: &[(&str, &str)]) -> Step {
    require_program("bash", "the action's steps run in bash");
    let output_file = scratch.join("github-output");
    let summary_file = scratch.join("step-summary.md");
    let path = path.map_or_else(
        || {
            let mut folders = vec![binary_folder()];
            folders.extend(std::env::split_paths(
                &std::env::var_os("PATH").unwrap_or_default(),
            ));
            std::env::join_paths(folders).expect("PATH joins")
        },
        std::ffi::OsString::from,
    );
    let mut process = Command::new("bash");
    process
        .arg(Path::new(ROOT).join("scripts/action-check.sh"))
        .arg(command)
        .current_dir(scratch.path());
    for (key, _) in std::env::vars_os() {
        let key = key.to_string_lossy();
        if key.starts_with("GITHUB_") || key.starts_with("INPUT_") || key == "EXIT_CODE" {
            process.env_remove(&*key);
        }
    }
    let finished = process
        .env_remove("CI")
        .env_remove("RUST_LOG")
        .env("PATH", path)
        .env("GITHUB_ACTION_PATH", ROOT)
        .env("GITHUB_OUTPUT", &output_file)
        .env("GITHUB_STEP_SUMMARY", &summary_file)
        .env("GITHUB_PATH", scratch.join("github-path"))
        .envs(env.iter().copied())
        .output()
        .expect("bash runs the script");
    let read = |file: &Path| std::fs::read_to_string(file).unwrap_or_default();
    let outputs = read(&output_file)
        .lines()
        .map(|line| {
            let (key, value) = line
                .split_once('=')
                .unwrap_or_else(|| panic!("an output line without '=': {line}"));
            (key.to_owned(), value.to_owned())
        })
        .collect();
    Step {
        status: finished.status.code().expect("the script exited"),
        log: format!(
            "{}{}",
            String::from_utf8_lossy(&finished.stdout),
            String::from_utf8_lossy(&finished.stderr)
        ),
        outputs,
        summary: read(&summary_file),
    }
}

/// The check step on a fixture config, run in the repository root, its SARIF
/// written to `scratch`; `more` adds inputs.
fn check(scratch: &Scratch, config: &str, more: &[(&str, &str)]) -> Step {
    require_program("python3", "the fixture server is Python");
    let sarif = scratch.arg("check.sarif");
    let mut env = vec![
        ("INPUT_CONFIG", config),
        ("INPUT_SARIF", sarif.as_str()),
        ("INPUT_WORKING_DIRECTORY", ROOT),
    ];
    env.extend(more);
    let check = step(scratch, "check", None, &env);
    assert_eq!(
        check.status, 0,
        "the check step itself succeeds whatever the check says:\n{}",
        check.log
    );
    check
}

/// The verdict step on the check step's `exit-code`.
fn verdict(scratch: &Scratch, check: &Step) -> Step {
    step(
        scratch,
        "verdict",
        None,
        &[("EXIT_CODE", check.output("exit-code"))],
    )
}

/// `(ruleId, level)` of every result of every run of the SARIF at `path`.
fn sarif_results(path: &str) -> Vec<(String, String)> {
    let document: Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("the SARIF is written"))
            .expect("the SARIF is JSON");
    document["runs"]
        .as_array()
        .expect("runs")
        .iter()
        .flat_map(|run| run["results"].as_array().expect("results").iter())
        .map(|result| {
            (
                result["ruleId"].as_str().expect("ruleId").to_owned(),
                result["level"].as_str().expect("level").to_owned(),
            )
        })
        .collect()
}

#[test]
fn a_failing_property_gives_exit_code_1_its_sarif_result_and_a_failed_summary() {
    let scratch = Scratch::new("action-fails");
    let check = check(&scratch, "fixtures/configs/action-on-decline.toml", &[]);
    assert_eq!(check.output("exit-code"), "1", "{}", check.log);
    assert_eq!(check.output("sarif"), scratch.arg("check.sarif"));
    assert_eq!(
        sarif_results(&scratch.arg("check.sarif")),
        [("P1".to_owned(), "error".to_owned())],
        "one error, for property 1"
    );
    assert!(
        check.summary.contains("FAILED"),
        "the job summary says FAILED:\n{}",
        check.summary
    );
    let verdict = verdict(&scratch, &check);
    assert_eq!(verdict.status, 1, "{}", verdict.log);
    assert!(
        verdict.log.contains("a property fails (exit code 1)"),
        "{}",
        verdict.log
    );
}

#[test]
fn a_correct_server_gives_exit_code_0_and_a_passing_verdict() {
    let scratch = Scratch::new("action-passes");
    let check = check(&scratch, "fixtures/configs/action-correct.toml", &[]);
    assert_eq!(check.output("exit-code"), "0", "{}", check.log);
    assert_eq!(sarif_results(check.output("sarif")), []);
    assert!(
        check.summary.contains("PASSED"),
        "the job summary says PASSED:\n{}",
        check.summary
    );
    let verdict = verdict(&scratch, &check);
    assert_eq!(verdict.status, 0, "{}", verdict.log);
}

#[test]
fn a_missing_config_gives_exit_code_2_no_sarif_and_a_failing_verdict() {
    let scratch = Scratch::new("action-no-config");
    let check = check(&scratch, "fixtures/configs/no-such-config.toml", &[]);
    assert_eq!(check.output("exit-code"), "2", "{}", check.log);
    assert_eq!(check.output("sarif"), "", "no SARIF to upload");
    assert!(!scratch.join("check.sarif").exists());
    let verdict = verdict(&scratch, &check);
    assert_eq!(verdict.status, 2, "{}", verdict.log);
    assert!(
        verdict
            .log
            .contains("the check could not be done (exit code 2)"),
        "{}",
        verdict.log
    );
}

#[test]
fn a_baseline_listing_the_failure_makes_the_check_pass() {
    let scratch = Scratch::new("action-baseline");
    let check = check(
        &scratch,
        "fixtures/configs/action-on-decline.toml",
        &[("INPUT_BASELINE", "fixtures/configs/action-baseline.toml")],
    );
    assert_eq!(check.output("exit-code"), "0", "{}", check.log);
    let document: Value = serde_json::from_str(
        &std::fs::read_to_string(check.output("sarif")).expect("the SARIF is written"),
    )
    .expect("JSON");
    let result = &document["runs"][0]["results"][0];
    assert_eq!(result["ruleId"], "P1");
    assert_eq!(result["suppressions"][0]["kind"], "external");
    assert_eq!(result["suppressions"][0]["justification"], BASELINE_REASON);
    assert_eq!(verdict(&scratch, &check).status, 0);
}

#[test]
fn an_earlier_runs_sarif_is_never_handed_on() {
    let scratch = Scratch::new("action-stale-sarif");
    std::fs::write(scratch.join("check.sarif"), "an earlier run's report").expect("written");
    let check = check(&scratch, "fixtures/configs/no-such-config.toml", &[]);
    assert_eq!(check.output("exit-code"), "2", "{}", check.log);
    assert_eq!(check.output("sarif"), "");
    assert!(!scratch.join("check.sarif").exists());
}

/// The working directory holds a copy of the fixture server and of
/// `action-correct.toml` under a name full of shell syntax; the options in
/// `args` name files the same way. Everything is a file name, nothing runs.
#[test]
fn inputs_are_data_never_shell_code() {
    require_program("python3", "the fixture server is Python");
    let scratch = Scratch::new("action-data");
    let work = scratch.join("work dir");
    std::fs::create_dir_all(work.join("fixtures/servers")).expect("folders");
    std::fs::copy(
        Path::new(ROOT).join("fixtures/servers/calculator.py"),
        work.join("fixtures/servers/calculator.py"),
    )
    .expect("the server copies");
    let config = "$(touch ran-config) `touch ran-backticks`; touch ran-semicolon.toml";
    std::fs::copy(
        Path::new(ROOT).join("fixtures/configs/action-correct.toml"),
        work.join(config),
    )
    .expect("the config copies");
    let work_text = work.to_string_lossy().into_owned();
    let check = step(
        &scratch,
        "check",
        None,
        &[
            ("INPUT_CONFIG", config),
            ("INPUT_SARIF", "$(touch ran-sarif).sarif"),
            ("INPUT_WORKING_DIRECTORY", &work_text),
            (
                "INPUT_ARGS",
                "--junit '$(touch ran-junit) report.xml'  --output \"evidence $HOME\"\n",
            ),
        ],
    );
    assert_eq!(check.status, 0, "{}", check.log);
    assert_eq!(check.output("exit-code"), "0", "{}", check.log);
    assert_eq!(
        check.output("sarif"),
        format!("{work_text}/$(touch ran-sarif).sarif"),
        "a relative sarif path is handed on absolute"
    );
    assert!(work.join("$(touch ran-junit) report.xml").is_file());
    assert!(work.join("evidence $HOME/check.json").is_file());
    let ran: Vec<String> = [scratch.path(), work.as_path()]
        .iter()
        .flat_map(|folder| std::fs::read_dir(folder).expect("readable"))
        .map(|entry| {
            entry
                .expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|name| name.starts_with("ran-"))
        .collect();
    assert_eq!(ran, Vec::<String>::new(), "no input ran as a command");
}

#[test]
fn args_that_cannot_be_split_give_exit_code_2() {
    let scratch = Scratch::new("action-bad-args");
    let check = check(
        &scratch,
        "fixtures/configs/action-correct.toml",
        &[("INPUT_ARGS", "--seed 'unclosed")],
    );
    assert_eq!(check.output("exit-code"), "2", "{}", check.log);
    assert_eq!(check.output("sarif"), "");
    assert!(
        check.log.contains("args cannot be split into words"),
        "{}",
        check.log
    );
}

#[test]
fn no_elicit_check_on_path_gives_exit_code_2() {
    let scratch = Scratch::new("action-not-installed");
    let check = step(
        &scratch,
        "check",
        Some("/usr/bin:/bin"),
        &[("INPUT_CONFIG", "fixtures/configs/action-correct.toml")],
    );
    assert_eq!(check.status, 0, "{}", check.log);
    assert_eq!(check.output("exit-code"), "2");
    assert_eq!(check.output("sarif"), "");
    assert!(
        check.log.contains("elicit-check is not on PATH"),
        "{}",
        check.log
    );
}

#[test]
fn the_verdict_fails_on_every_code_but_0() {
    let scratch = Scratch::new("action-verdict");
    for (code, status) in [
        ("0", 0),
        ("1", 1),
        ("2", 2),
        ("", 2),
        ("x", 2),
        ("137", 137),
        ("256", 2),
    ] {
        let verdict = step(&scratch, "verdict", None, &[("EXIT_CODE", code)]);
        assert_eq!(
            verdict.status, status,
            "EXIT_CODE='{code}': {}",
            verdict.log
        );
    }
}

/// A `cargo` that only writes its arguments, one a line, to `cargo-args` in
/// `folder`.
fn fake_cargo(folder: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let log = folder.join("cargo-args");
    let script = format!(
        "#!/bin/sh\nprintf '%s\\n' \"$@\" > '{}'\n",
        log.to_string_lossy()
    );
    let cargo = folder.join("cargo");
    std::fs::write(&cargo, script).expect("the fake cargo is written");
    std::fs::set_permissions(&cargo, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

/// A `file:` release URL with no release under it.
fn no_release(scratch: &Scratch) -> String {
    let empty = scratch.join("no-release");
    std::fs::create_dir_all(&empty).expect("a folder");
    format!("file://{}", empty.display())
}

/// A `file:` release URL holding release `v<this version>`: the archives
/// `scripts/release-archive.sh` makes, this platform's with this build's
/// binary, each with its `.sha256`.
fn fake_release(scratch: &Scratch) -> (String, PathBuf) {
    let archives = crate::npm_package::archives(scratch);
    let release = scratch.join("release");
    let tagged = release.join(concat!("v", env!("CARGO_PKG_VERSION")));
    std::fs::create_dir_all(&tagged).expect("the release folder");
    for entry in std::fs::read_dir(&archives).expect("the archives") {
        let entry = entry.expect("an entry");
        std::fs::copy(entry.path(), tagged.join(entry.file_name())).expect("copied");
    }
    (format!("file://{}", release.display()), tagged)
}

#[test]
fn install_downloads_the_release_checks_its_sum_and_builds_only_when_there_is_none() {
    let scratch = Scratch::new("action-download");
    let fakes = scratch.join("fakes");
    std::fs::create_dir_all(&fakes).expect("a folder");
    fake_cargo(&fakes);
    let cargo_args = fakes.join("cargo-args");
    let path = format!("{}:/usr/bin:/bin", fakes.to_string_lossy());
    let (url, tagged) = fake_release(&scratch);
    let temp = scratch.arg("runner temp");
    std::fs::create_dir_all(&temp).expect("RUNNER_TEMP");
    let env = |url: &str| -> Vec<(&'static str, String)> {
        vec![
            ("INPUT_RELEASE_URL", url.to_owned()),
            ("RUNNER_TEMP", temp.clone()),
            ("CARGO_HOME", scratch.arg("cargo home")),
        ]
    };
    let run_install = |url: &str| {
        let env = env(url);
        let pairs: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
        step(&scratch, "install", Some(&path), &pairs)
    };

    let installed = run_install(&url);
    assert_eq!(installed.status, 0, "{}", installed.log);
    assert!(!cargo_args.exists(), "no source build: {}", installed.log);
    let name = format!(
        "elicit-check-v{}-{}",
        env!("CARGO_PKG_VERSION"),
        crate::npm_package::TARGETS
            .iter()
            .find(|(platform, _)| *platform == crate::npm_package::this_platform())
            .expect("this platform's target")
            .1
    );
    assert!(
        installed.log.contains(&format!("downloaded {url}/v")),
        "{}",
        installed.log
    );
    let on_path =
        std::fs::read_to_string(scratch.join("github-path")).expect("GITHUB_PATH written");
    let folder = on_path.trim();
    assert!(
        folder.starts_with(&temp) && folder.ends_with(&name),
        "{folder}"
    );
    let version = Command::new(Path::new(folder).join("elicit-check"))
        .arg("--version")
        .output()
        .expect("the downloaded binary runs");
    assert_eq!(
        String::from_utf8_lossy(&version.stdout).trim(),
        concat!("elicit-check ", env!("CARGO_PKG_VERSION"))
    );

    // A sum that does not match: the step fails, nothing is built or put on PATH.
    std::fs::remove_file(scratch.join("github-path")).expect("reset GITHUB_PATH");
    let sum = tagged.join(format!("{name}.tar.gz.sha256"));
    std::fs::write(&sum, format!("{}  {name}.tar.gz\n", "0".repeat(64))).expect("a wrong sum");
    let refused = run_install(&url);
    assert_eq!(refused.status, 2, "{}", refused.log);
    assert!(
        refused.log.contains(&format!(
            "::error title=elicit-check::{name}.tar.gz does not match its SHA-256 sum (the .sha256 says {}",
            "0".repeat(64)
        )),
        "{}",
        refused.log
    );
    assert!(!cargo_args.exists(), "no source build after a wrong sum");
    assert!(!scratch.join("github-path").exists());

    // No release of this version: built from the action's checkout.
    let built = run_install(&no_release(&scratch));
    assert_eq!(built.status, 0, "{}", built.log);
    assert_eq!(
        std::fs::read_to_string(&cargo_args).expect("cargo ran"),
        format!("install\n--locked\n--path\n{ROOT}\n")
    );
}

#[test]
fn install_runs_cargo_unless_this_version_is_on_path() {
    let scratch = Scratch::new("action-install");
    let fakes = scratch.join("fakes");
    std::fs::create_dir_all(&fakes).expect("a folder");
    fake_cargo(&fakes);
    let cargo_args = fakes.join("cargo-args");
    let system = "/usr/bin:/bin";
    let with_binary = format!(
        "{}:{}:{system}",
        binary_folder().to_string_lossy(),
        fakes.to_string_lossy()
    );
    let without_binary = format!("{}:{system}", fakes.to_string_lossy());

    let installed = step(&scratch, "install", Some(&with_binary), &[]);
    assert_eq!(installed.status, 0, "{}", installed.log);
    assert!(!cargo_args.exists(), "no cargo install: {}", installed.log);
    assert!(installed.log.contains(&format!(
        "elicit-check {} is already on PATH",
        env!("CARGO_PKG_VERSION")
    )));

    let skipped = step(
        &scratch,
        "install",
        Some(&without_binary),
        &[("INPUT_INSTALL", "false")],
    );
    assert_eq!(skipped.status, 0, "{}", skipped.log);
    assert!(!cargo_args.exists(), "install false: {}", skipped.log);

    let refused = step(
        &scratch,
        "install",
        Some(&without_binary),
        &[("INPUT_INSTALL", "yes")],
    );
    assert_eq!(refused.status, 2, "{}", refused.log);
    assert!(!cargo_args.exists());

    let cargo_home = scratch.arg("cargo home");
    let no_release = no_release(&scratch);
    let fresh = step(
        &scratch,
        "install",
        Some(&without_binary),
        &[
            ("CARGO_HOME", &cargo_home),
            ("CARGO_INSTALL_ROOT", ""),
            ("INPUT_RELEASE_URL", &no_release),
        ],
    );
    assert_eq!(fresh.status, 0, "{}", fresh.log);
    assert!(
        fresh.log.contains(&format!(
            "no release v{} of elicit-check for ",
            env!("CARGO_PKG_VERSION")
        )),
        "{}",
        fresh.log
    );
    assert_eq!(
        std::fs::read_to_string(&cargo_args).expect("cargo ran"),
        format!("install\n--locked\n--path\n{ROOT}\n")
    );
    assert_eq!(
        std::fs::read_to_string(scratch.join("github-path")).expect("GITHUB_PATH written"),
        format!("{cargo_home}/bin\n"),
        "cargo's bin folder goes on PATH for the later steps"
    );

    let root = scratch.arg("install root");
    let rooted = step(
        &scratch,
        "install",
        Some(&without_binary),
        &[
            ("CARGO_HOME", &cargo_home),
            ("CARGO_INSTALL_ROOT", &root),
            ("INPUT_RELEASE_URL", &no_release),
        ],
    );
    assert_eq!(rooted.status, 0, "{}", rooted.log);
    assert_eq!(
        std::fs::read_to_string(scratch.join("github-path")).expect("GITHUB_PATH written"),
        format!("{cargo_home}/bin\n{root}/bin\n"),
        "CARGO_INSTALL_ROOT, where cargo installs when it is set, goes on PATH"
    );
}

#[test]
fn install_replaces_another_version_on_path() {
    use std::os::unix::fs::PermissionsExt;
    let scratch = Scratch::new("action-install-other");
    let fakes = scratch.join("fakes");
    std::fs::create_dir_all(&fakes).expect("a folder");
    fake_cargo(&fakes);
    let cargo_home = scratch.arg("cargo home");
    let other = fakes.join("elicit-check");
    std::fs::write(&other, "#!/bin/sh\necho 'elicit-check 0.0.1'\n").expect("written");
    std::fs::set_permissions(&other, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let path = format!("{}:/usr/bin:/bin", fakes.to_string_lossy());
    let install = step(
        &scratch,
        "install",
        Some(&path),
        &[
            ("CARGO_HOME", &cargo_home),
            ("CARGO_INSTALL_ROOT", ""),
            ("INPUT_RELEASE_URL", &no_release(&scratch)),
        ],
    );
    assert_eq!(install.status, 0, "{}", install.log);
    assert_eq!(
        std::fs::read_to_string(fakes.join("cargo-args")).expect("cargo ran"),
        format!("install\n--locked\n--path\n{ROOT}\n")
    );
    assert_eq!(
        std::fs::read_to_string(scratch.join("github-path")).expect("GITHUB_PATH written"),
        format!("{cargo_home}/bin\n"),
        "the new elicit-check comes before the other version on the later steps' PATH"
    );
}

/// One step of `action.yml`'s `runs.steps`: its keys with their values, and
/// the entries of its `env:` and `with:` mappings.
#[derive(Default)]
struct ActionStep {
    keys: Vec<(String, String)>,
    env: Vec<(String, String)>,
    with: Vec<(String, String)>,
}

impl ActionStep {
    fn key(&self, name: &str) -> Option<&str> {
        self.keys
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }
}

/// `key: value` of a YAML line (`value` empty for a mapping that follows).
fn key_value(line: &str) -> (String, String) {
    let (key, value) = line
        .split_once(':')
        .unwrap_or_else(|| panic!("action.yml: not a `key: value` line: {line}"));
    (key.trim().to_owned(), value.trim().to_owned())
}

/// The steps of `action.yml`, read line by line: no YAML parser is among the
/// dependencies (Cargo.toml), so this reads the subset the file is written in
/// (block mappings indented by two, each step a `- ` item at four, its keys at
/// six, its `env:` and `with:` entries at eight, one-line values) and fails on
/// anything else (a block scalar `|` or `>`, a flow collection, another
/// indent) rather than read it wrongly.
fn action_steps(text: &str) -> Vec<ActionStep> {
    let mut lines = text.lines().skip_while(|line| *line != "  steps:").skip(1);
    let mut steps: Vec<ActionStep> = Vec::new();
    let mut mapping = String::new();
    for line in lines.by_ref() {
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        let (line, indent) = match line.trim_start().strip_prefix("- ") {
            Some(rest) if indent == 4 => {
                steps.push(ActionStep::default());
                (rest, 6)
            }
            _ => (line.trim_start(), indent),
        };
        let step = steps
            .last_mut()
            .unwrap_or_else(|| panic!("action.yml: a line before the first step: {line}"));
        let (key, value) = key_value(line);
        assert!(
            !(value.starts_with('|')
                || value.starts_with('>')
                || value.starts_with('{')
                || value.starts_with('[')),
            "action.yml: write {key} as a one-line plain value: {line}"
        );
        match indent {
            6 => {
                mapping.clone_from(&key);
                step.keys.push((key, value));
            }
            8 if mapping == "env" => step.env.push((key, value)),
            8 if mapping == "with" => step.with.push((key, value)),
            _ => panic!("action.yml: a line this test cannot read: {line}"),
        }
    }
    steps
}

/// The names of the `inputs:` of `action.yml` (the keys indented by two).
fn action_inputs(text: &str) -> Vec<String> {
    text.lines()
        .skip_while(|line| *line != "inputs:")
        .skip(1)
        .take_while(|line| line.is_empty() || line.starts_with(' '))
        .filter(|line| line.starts_with("  ") && !line.starts_with("   "))
        .map(|line| key_value(line).0)
        .collect()
}

/// GitHub's security hardening guide for Actions: an input written into a
/// step's script text (`run: … ${{ inputs.x }} …`) is pasted in before the
/// shell reads it, so a value can run as shell code; handed over through
/// `env:` it stays data. Every shell step of action.yml runs
/// scripts/action-check.sh with nothing else in its text, and each value the
/// script reads comes from the step's `env:`.
#[test]
fn action_yml_hands_every_input_to_the_script_through_env() {
    let text = std::fs::read_to_string(Path::new(ROOT).join("action.yml")).expect("action.yml");
    let script = std::fs::read_to_string(Path::new(ROOT).join("scripts/action-check.sh"))
        .expect("the script");
    let steps = action_steps(&text);
    let runs: Vec<&str> = steps.iter().filter_map(|step| step.key("run")).collect();
    assert_eq!(
        runs,
        [
            "bash \"$GITHUB_ACTION_PATH/scripts/action-check.sh\" install",
            "bash \"$GITHUB_ACTION_PATH/scripts/action-check.sh\" check",
            "bash \"$GITHUB_ACTION_PATH/scripts/action-check.sh\" verdict",
        ]
    );
    let mut handed = BTreeSet::new();
    for step in &steps {
        if step.key("run").is_some() {
            assert_eq!(
                step.key("shell"),
                Some("bash"),
                "the step that runs {}",
                step.key("run").unwrap_or_default()
            );
        }
        for (name, value) in &step.env {
            let input = value
                .strip_prefix("${{ inputs.")
                .and_then(|rest| rest.strip_suffix(" }}"));
            match input {
                Some(input) => {
                    assert_eq!(
                        *name,
                        format!("INPUT_{}", input.to_uppercase().replace('-', "_")),
                        "an input's variable is named after it"
                    );
                    handed.insert(input.to_owned());
                }
                None => assert_eq!(
                    (name.as_str(), value.as_str()),
                    ("EXIT_CODE", "${{ steps.check.outputs.exit-code }}")
                ),
            }
        }
    }
    let upload = steps
        .iter()
        .find(|step| step.key("uses").is_some())
        .expect("an upload step");
    assert_eq!(
        upload.key("uses"),
        Some("github/codeql-action/upload-sarif@v4")
    );
    assert!(
        upload
            .key("if")
            .is_some_and(|condition| condition.contains("inputs.upload-sarif == 'true'"))
    );
    handed.insert("upload-sarif".to_owned());
    let declared: BTreeSet<String> = action_inputs(&text).into_iter().collect();
    assert_eq!(
        declared,
        [
            "args",
            "baseline",
            "config",
            "install",
            "release-url",
            "sarif",
            "upload-sarif",
            "working-directory",
        ]
        .map(str::to_owned)
        .into(),
    );
    assert_eq!(handed, declared, "every input reaches a step");
    let read: BTreeSet<String> = regex::Regex::new(r"\bINPUT_[A-Z_]+")
        .expect("a regex")
        .find_iter(&script)
        .map(|found| found.as_str().to_owned())
        .collect();
    let set: BTreeSet<String> = steps
        .iter()
        .flat_map(|step| step.env.iter().map(|(name, _)| name.clone()))
        .filter(|name| name.starts_with("INPUT_"))
        .collect();
    assert_eq!(read, set, "the script reads the variables the steps set");
    for line in text.lines().filter(|line| line.contains("${{")) {
        let line = line.trim();
        let allowed = line.starts_with('#')
            || line.starts_with("if: ${{")
            || line.starts_with("value: ${{ steps.check.outputs.")
            || line.starts_with("sarif_file: ${{ steps.check.outputs.")
            || (line.starts_with("INPUT_") && line.contains(": ${{ inputs."))
            || line.starts_with("EXIT_CODE: ${{");
        assert!(
            allowed,
            "action.yml: an expression outside env, if, with or outputs: {line}"
        );
    }
}
