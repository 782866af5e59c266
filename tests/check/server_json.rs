//! Registry input (docs/src/registry.md): the MCP registry's `server.json`
//! read as the stdio command that starts the server, the tools that send a
//! form `elicitation/create` found by calling each once, and one target per
//! such tool; what cannot be started is refused with its reason.
//!
//! The fixtures are fixtures/registry/server.json, whose package starts
//! fixtures/servers/notes.py (standard-library Python: `add_note` elicits,
//! `list_notes` does not, `import_notes` takes arguments elicit-check cannot
//! build), and fixtures/registry/servers.json, that server beside three that
//! cannot be started: remotes only, an OCI image, a required API key.

use std::path::PathBuf;

use elicit_check::check::Target;
use elicit_check::harness::Limits;
use elicit_check::harness::child::Environment;
use elicit_check::targets::eliciting_tools::{Found, eliciting_tools};
use elicit_check::targets::registry::registry_targets;
use elicit_check::targets::server_json::{self, StartCommand};
use serde_json::json;

use super::cli::cli;
use crate::support;

fn fixture(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(path)
}

fn words(words: &[&str]) -> Vec<String> {
    words.iter().map(|word| (*word).to_owned()).collect()
}

/// The server.json's identifier is a path relative to the repository root.
fn in_repository() -> Environment {
    Environment {
        vars: Vec::new(),
        cwd: Some(PathBuf::from(env!("CARGO_MANIFEST_DIR"))),
    }
}

#[test]
fn the_fixtures_server_json_starts_notes_py_with_its_argument_and_environment() {
    let servers = server_json::read(&fixture("fixtures/registry/server.json")).expect("read");
    assert_eq!(servers.len(), 1);
    assert_eq!(
        servers[0].start_command(&[]).expect("a command"),
        StartCommand {
            server: "io.github.elicit-check/notes".to_owned(),
            command: words(&["python3", "fixtures/servers/notes.py", "--max-length", "40"]),
            env: vec![("NOTES_OWNER".to_owned(), "registry".to_owned())],
        }
    );
}

#[test]
fn servers_that_cannot_start_over_stdio_are_refused_with_their_reason() {
    let servers = server_json::read(&fixture("fixtures/registry/servers.json")).expect("read");
    let started: Vec<Result<Vec<String>, String>> = servers
        .iter()
        .map(|server| {
            server
                .start_command(&[])
                .map(|start| start.command)
                .map_err(|error| error.to_string())
        })
        .collect();
    assert_eq!(
        started,
        vec![
            Ok(words(&["python3", "fixtures/servers/notes.py"])),
            Err(
                "server io.example/hosted cannot be started: it has no packages to start \
                 over stdio, only remotes (https://mcp.example.com/mcp): check a running \
                 Streamable HTTP server with --url URL"
                    .to_owned()
            ),
            Err(
                "server io.example/container cannot be started: registryType oci is not one \
                 elicit-check starts (npm and pypi are)"
                    .to_owned()
            ),
            Err(
                "server io.example/keyed cannot be started: environment variable \
                 KEYED_API_KEY is required and has no value or default (The service's API \
                 key): give it with --env KEYED_API_KEY=VALUE"
                    .to_owned()
            ),
        ]
    );
}

#[test]
fn the_tool_that_elicits_is_found_and_the_others_are_not() {
    let servers = server_json::read(&fixture("fixtures/registry/server.json")).expect("read");
    let start = servers[0].start_command(&[]).expect("a command");
    let mut target = Target::stdio(start.command);
    target.environment = Environment {
        vars: start.env,
        ..in_repository()
    };
    let surveys = support::runtime()
        .block_on(eliciting_tools(&target))
        .expect("the server starts");
    let tools: Vec<&str> = surveys.iter().map(|survey| survey.tool.as_str()).collect();
    assert_eq!(tools, ["add_note", "list_notes", "import_notes"]);

    assert_eq!(
        surveys[0].arguments,
        json!({"text": "a"}).as_object().cloned().unwrap()
    );
    assert_eq!(
        surveys[0].found,
        Found::Elicits(vec![json!({
            "type": "object",
            "properties": {"confirm": {"type": "boolean", "title": "Add this note?"}},
            "required": ["confirm"]
        })])
    );
    assert!(surveys[0].elicits());

    // A fresh process: the note the cancelled add_note did not add is not
    // there, and NOTES_OWNER came from the server.json.
    let Found::AskedNothing(reply) = &surveys[1].found else {
        panic!("list_notes asked: {:?}", surveys[1].found);
    };
    assert_eq!(
        reply.pointer("/result/structuredContent"),
        Some(&json!({"notes": [], "owner": "registry"}))
    );
    assert!(!surveys[1].elicits());

    assert_eq!(
        surveys[2].found,
        Found::Skipped(
            "required argument notes is not a string, number, boolean or enum".to_owned()
        )
    );
}

#[test]
fn a_list_of_servers_gives_one_target_per_eliciting_tool_and_notes_the_rest() {
    let mut notes = Vec::new();
    let config = support::runtime()
        .block_on(registry_targets(
            &fixture("fixtures/registry/servers.json"),
            &in_repository(),
            Limits::default(),
            &mut |line| notes.push(line),
        ))
        .expect("one server has a tool that elicits");
    assert_eq!(config.target.len(), 1);
    let target = &config.target[0];
    assert_eq!(target.name(), "io.github.elicit-check.notes.add_note");
    assert_eq!(target.tool, "add_note");
    assert_eq!(
        target.command,
        words(&["python3", "fixtures/servers/notes.py"])
    );
    assert_eq!(target.arguments, json!({"text": "a"}).as_object().cloned());
    assert!(target.acted_not_error);
    assert_eq!(target.acted, None);
    assert_eq!(
        notes,
        [
            "io.github.elicit-check/notes: tool list_notes sent no form elicitation/create",
            "io.github.elicit-check/notes: tool import_notes not called: required argument \
             notes is not a string, number, boolean or enum",
            "server io.example/hosted cannot be started: it has no packages to start over \
             stdio, only remotes (https://mcp.example.com/mcp): check a running Streamable \
             HTTP server with --url URL",
            "server io.example/container cannot be started: registryType oci is not one \
             elicit-check starts (npm and pypi are)",
            "server io.example/keyed cannot be started: environment variable KEYED_API_KEY \
             is required and has no value or default (The service's API key): give it with \
             --env KEYED_API_KEY=VALUE",
        ]
    );
}

#[test]
fn a_file_with_no_eliciting_tool_is_refused_with_what_each_server_showed() {
    let scratch = support::Scratch::new("registry-nothing-to-check");
    let file = scratch.join("server.json");
    std::fs::write(
        &file,
        r#"{"name": "io.example/hosted", "description": "Hosted", "version": "1.0.0",
            "remotes": [{"type": "streamable-http", "url": "https://mcp.example.com/mcp"}]}"#,
    )
    .expect("write");
    let error = support::runtime()
        .block_on(registry_targets(
            &file,
            &in_repository(),
            Limits::default(),
            &mut |_| {},
        ))
        .expect_err("nothing to check");
    assert_eq!(
        error.to_string(),
        format!(
            "no tool of the servers in {} sends a form elicitation/create:\n  server \
             io.example/hosted cannot be started: it has no packages to start over stdio, \
             only remotes (https://mcp.example.com/mcp): check a running Streamable HTTP \
             server with --url URL",
            file.display()
        )
    );
}

/// The lines `check --server-json fixtures/registry/server.json` writes to
/// stderr before the check starts.
const NOTES: &str = "\
elicit-check: io.github.elicit-check/notes: tool list_notes sent no form elicitation/create
elicit-check: io.github.elicit-check/notes: tool import_notes not called: required argument notes is not a string, number, boolean or enum
";

#[test]
fn check_server_json_checks_the_eliciting_tool_with_the_acted_rule_given() {
    let output = cli(&[
        "--server-json",
        "fixtures/registry/server.json",
        "--acted",
        "/added",
        "--cases",
        "3",
        "--protocol",
        "2025-11-25",
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(stderr.starts_with(NOTES), "{stderr}");
    assert!(!stderr.contains("warning"), "{stderr}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains(
            "elicit-check check: tool \"add_note\" (--acted /added), protocol 2025-11-25"
        ),
        "{stdout}"
    );
    assert!(stdout.contains("every property holds"), "{stdout}");
}

#[test]
fn check_server_json_without_an_acted_rule_warns_that_not_an_error_counts_as_acting() {
    // notes.py answers a refusal as an ordinary result: read as not an error,
    // refusing a cancel counts as acting and property 1 fails.
    let output = cli(&[
        "--server-json",
        "fixtures/registry/server.json",
        "--cases",
        "0",
        "--protocol",
        "2025-11-25",
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    let warning = "elicit-check: warning: server.json gives no acted rule: a reply that is not \
                   an error counts as acting (--acted-not-error); give --acted, --acted-text \
                   or --acted-cmd to read it from the result\n";
    assert!(stderr.starts_with(&format!("{NOTES}{warning}")), "{stderr}");
}

#[test]
fn check_server_json_of_two_servers_checks_both_with_the_one_acted_rule() {
    // The same server at two versions: the second target's name gets `-2`.
    let scratch = support::Scratch::new("registry-two-servers");
    let file = scratch.join("servers.json");
    let server = |version: &str| {
        format!(
            r#"{{"name": "io.github.elicit-check/notes", "description": "Notes",
                "version": "{version}",
                "packages": [{{"registryType": "pypi", "identifier": "fixtures/servers/notes.py",
                  "version": "{version}", "runtimeHint": "python3",
                  "transport": {{"type": "stdio"}}}}]}}"#
        )
    };
    std::fs::write(&file, format!("[{}, {}]", server("1.0.0"), server("1.0.1"))).expect("write");
    let output = cli(&[
        "--server-json",
        &file.display().to_string(),
        "--acted",
        "/added",
        "--cases",
        "1",
        "--protocol",
        "2025-11-25",
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let table = format!(
        "== the 2 targets of {}\n\
         target                                   tool      verdict\n\
         io.github.elicit-check.notes.add_note    add_note  every property holds in protocol 2025-11-25\n\
         io.github.elicit-check.notes.add_note-2  add_note  every property holds in protocol 2025-11-25\n",
        file.display()
    );
    assert!(stdout.contains(&table), "{stdout}");
}
