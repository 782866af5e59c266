//! The `--help` of every subcommand, snapshotted: the option reference has
//! one source (the doc comments of `src/cli/args.rs`), and a change to it is
//! read in review. A test also checks the binary prints the same text.

use std::process::Command;

#[test]
fn every_subcommand_has_its_help_snapshotted() {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots/help"));
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| {
        insta::assert_snapshot!("elicit-check", elicit_check::cli::args::help(None));
        for subcommand in ["serve", "run", "check", "merge"] {
            insta::assert_snapshot!(
                format!("elicit-check-{subcommand}"),
                elicit_check::cli::args::help(Some(subcommand))
            );
        }
    });
}

/// The binary's `--help` is the library's text (what the snapshots hold).
#[test]
fn the_binary_prints_the_snapshotted_help() {
    for subcommand in [None, Some("run"), Some("check")] {
        let mut command = Command::new(env!("CARGO_BIN_EXE_elicit-check"));
        command.args(subcommand).arg("--help");
        let output = command.output().expect("elicit-check runs");
        assert!(output.status.success(), "{subcommand:?}: {output:?}");
        assert_eq!(
            String::from_utf8_lossy(&output.stdout),
            elicit_check::cli::args::help(subcommand),
            "{subcommand:?}"
        );
    }
}

/// No `--help` sends its reader to a ticket: options name the rule or the
/// guide's section they come from.
#[test]
fn no_help_names_an_issue() {
    let ticket = regex::Regex::new(r"(?i)\bissue\s*#?\d").expect("a regex");
    for subcommand in [
        None,
        Some("serve"),
        Some("run"),
        Some("check"),
        Some("merge"),
    ] {
        let help = elicit_check::cli::args::help(subcommand);
        assert!(!ticket.is_match(&help), "{subcommand:?}: {help}");
    }
}
