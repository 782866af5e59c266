//! `check` from a server's own test suite: the examples a server author copies
//! (`examples/pytest/test_elicitation.py`, `examples/node-test/
//! elicitation.test.mjs`; docs/src/from-tests.md), run as their authors would
//! run them (`pytest`, `node --test`) on `fixtures/servers/confirm.py`: they
//! pass on the correct server and fail on the one that acts on `confirm:
//! false`, with property 7's reason in the assertion message.

use std::path::Path;
use std::process::{Command, Output};

use crate::peers::environments;
use crate::support::printed;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// `command` (an example's runner) in the example's environment: the built
/// binary, `confirm.py` (with `--bug` when given) on the Python SDK 1.x peer,
/// its tool and options.
fn example(mut command: Command, bug: Option<&str>) -> Command {
    let python = environments().join("python-sdk1/bin/python");
    let mut server = vec![
        python.display().to_string(),
        Path::new(ROOT)
            .join("fixtures/servers/confirm.py")
            .display()
            .to_string(),
    ];
    server.extend(
        bug.map(|bug| ["--bug".to_owned(), bug.to_owned()])
            .into_iter()
            .flatten(),
    );
    command
        .env("ELICIT_CHECK", env!("CARGO_BIN_EXE_elicit-check"))
        .env("ELICIT_CHECK_SERVER", serde_json::to_string(&server).expect("JSON"))
        .env("ELICIT_CHECK_TOOL", "delete_records")
        .env(
            "ELICIT_CHECK_OPTIONS",
            r#"["--acted", "/deleted", "--consent", "/confirm=true", "--seed", "1", "--cases", "20"]"#,
        )
        .env_remove("RUST_LOG");
    command
}

/// `pytest` of the pytest example.
fn pytest(bug: Option<&str>) -> Command {
    let mut command = Command::new(environments().join("pytest/bin/python"));
    command
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .arg(Path::new(ROOT).join("examples/pytest/test_elicitation.py"));
    example(command, bug)
}

/// `node --test` of the node:test example.
fn node_test(bug: Option<&str>) -> Command {
    let mut command = Command::new("node");
    command
        .arg("--test")
        .arg(Path::new(ROOT).join("examples/node-test/elicitation.test.mjs"));
    example(command, bug)
}

fn output(mut command: Command) -> Output {
    command.output().expect("the example's runner starts")
}

/// Property 7's reason for the server that acts on `confirm: false`.
const NOT_CONSENTED: &str = "P7 (never acts without a valid consenting answer): fails: acted on a valid accept that did not consent: `confirm` is false, not true (--consent /confirm=true)";

/// `runner` passes on the correct server and fails on the one acting on
/// `confirm: false`, naming property 7 and no finding of 2026-07-28 (which
/// confirm.py does not speak).
fn passes_the_correct_server_and_fails_naming_p7(runner: fn(Option<&str>) -> Command) {
    let correct = output(runner(None));
    assert!(correct.status.success(), "{}", printed(&correct));
    let buggy = output(runner(Some("acts-on-false")));
    let text = printed(&buggy);
    assert_eq!(buggy.status.code(), Some(1), "{text}");
    assert!(
        text.contains("elicit-check exit 1, outcome failed:"),
        "{text}"
    );
    assert!(
        text.contains(&format!("2025-11-25 {NOT_CONSENTED}")),
        "{text}"
    );
    assert!(!text.contains("2026-07-28"), "{text}");
}

#[test]
fn the_pytest_example_passes_the_correct_server_and_fails_the_one_acting_on_false_naming_p7() {
    passes_the_correct_server_and_fails_naming_p7(pytest);
}

#[test]
fn the_node_test_example_passes_the_correct_server_and_fails_the_one_acting_on_false_naming_p7() {
    passes_the_correct_server_and_fails_naming_p7(node_test);
}

/// Without `--consent`, acting on `confirm: false` is property 7's warning:
/// the test passes and the runner shows the warning (pytest's warnings
/// summary, node's diagnostics), naming the option that makes it a failure.
#[test]
fn without_consent_the_examples_pass_and_show_the_consent_warning() {
    for runner in [pytest, node_test] {
        let mut command = runner(Some("acts-on-false"));
        command.env(
            "ELICIT_CHECK_OPTIONS",
            r#"["--acted", "/deleted", "--seed", "1", "--cases", "20"]"#,
        );
        let done = output(command);
        let text = printed(&done);
        assert!(done.status.success(), "{text}");
        assert!(
            text.contains("2025-11-25 P7 warning: `confirm` reads as a consent field and the tool acted on valid accepts with it true and false: if it is one, --consent '/confirm=true' makes acting on any other value a failure"),
            "{text}"
        );
    }
}

/// A variable that is not a JSON array of words is named.
#[test]
fn a_malformed_variable_is_named() {
    for runner in [pytest, node_test] {
        let mut command = runner(None);
        command.env("ELICIT_CHECK_OPTIONS", r#"["--acted""#);
        let done = output(command);
        let text = printed(&done);
        assert_ne!(done.status.code(), Some(0), "{text}");
        assert!(
            text.contains("ELICIT_CHECK_OPTIONS is not a JSON array of words"),
            "{text}"
        );
    }
}

#[test]
fn an_example_with_no_binary_says_how_to_install_it() {
    for runner in [pytest(None), node_test(None)] {
        let mut runner = runner;
        // Neither $ELICIT_CHECK nor an `elicit-check` on PATH (node itself is
        // started by its absolute path).
        runner
            .env_remove("ELICIT_CHECK")
            .env("PATH", "/nonexistent");
        if runner.get_program() == "node" {
            let node = which::which("node").expect("node on PATH");
            let mut absolute = Command::new(node);
            absolute.args(runner.get_args());
            for (key, value) in runner.get_envs() {
                match value {
                    Some(value) => absolute.env(key, value),
                    None => absolute.env_remove(key),
                };
            }
            runner = absolute;
        }
        let done = output(runner);
        let text = printed(&done);
        assert_eq!(done.status.code(), Some(1), "{text}");
        assert!(text.contains("install it (README, Install)"), "{text}");
    }
}
