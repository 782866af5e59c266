//! The unit tests of reading a `server.json`: the start command of each
//! registry type and runtime hint, and what is refused with its reason.

use super::{ServerJson, ServerJsonError, StartCommand, parse};

fn one(text: &str) -> ServerJson {
    let mut servers = parse(text, "server.json").expect("a server.json");
    assert_eq!(servers.len(), 1);
    servers.remove(0)
}

fn command(text: &str) -> StartCommand {
    one(text).start_command(&[]).expect("a command")
}

fn refusal(text: &str, given: &[String]) -> String {
    match one(text).start_command(given) {
        Err(error @ ServerJsonError::Refused { .. }) => error.to_string(),
        other => panic!("expected a refusal, got {other:?}"),
    }
}

fn words(words: &[&str]) -> Vec<String> {
    words.iter().map(|word| (*word).to_owned()).collect()
}

#[test]
fn an_npm_package_runs_with_npx_at_its_version() {
    let start = command(
        r#"{"name": "io.github.user/weather", "description": "Weather", "version": "1.0.2",
                "packages": [{"registryType": "npm", "identifier": "@user/weather-mcp",
                              "version": "1.0.2", "transport": {"type": "stdio"}}]}"#,
    );
    assert_eq!(start.server, "io.github.user/weather");
    assert_eq!(
        start.command,
        words(&["npx", "-y", "@user/weather-mcp@1.0.2"])
    );
    assert!(start.env.is_empty());
}

#[test]
fn a_pypi_package_runs_with_uvx_pipx_or_python_as_hinted() {
    let package = |hint: &str| {
        format!(
            r#"{{"name": "io.github.user/time", "description": "Time", "version": "0.5.0",
                    "packages": [{{"registryType": "pypi", "identifier": "time-mcp",
                                  "version": "0.5.0", {hint} "transport": {{"type": "stdio"}}}}]}}"#
        )
    };
    assert_eq!(
        command(&package("")).command,
        words(&["uvx", "time-mcp==0.5.0"])
    );
    assert_eq!(
        command(&package(r#""runtimeHint": "uvx","#)).command,
        words(&["uvx", "time-mcp==0.5.0"])
    );
    assert_eq!(
        command(&package(r#""runtimeHint": "pipx","#)).command,
        words(&["pipx", "run", "time-mcp==0.5.0"])
    );
    assert_eq!(
        command(&package(r#""runtimeHint": "python3","#)).command,
        words(&["python3", "time-mcp"])
    );
}

#[test]
fn arguments_take_their_value_or_default_and_named_ones_their_flag() {
    let start = command(
        r#"{"name": "io.github.user/db", "description": "DB", "version": "3.1.0",
                "packages": [{"registryType": "npm", "identifier": "db-mcp", "version": "3.1.0",
                  "runtimeHint": "npx",
                  "runtimeArguments": [{"type": "positional", "value": "--quiet"}],
                  "packageArguments": [
                    {"type": "positional", "value": "mcp"},
                    {"type": "positional", "valueHint": "target_dir", "default": "/tmp"},
                    {"type": "positional", "valueHint": "extra"},
                    {"type": "named", "name": "--host", "default": "localhost", "isRequired": true},
                    {"type": "named", "name": "--port", "format": "number"},
                    {"type": "named", "name": "--mount", "value": "src={source},dst={target}",
                     "variables": {"source": {"default": "/data"}, "target": {"value": "/project"}}},
                    {"type": "named", "name": "--region", "value": "{region}"}
                  ],
                  "environmentVariables": [
                    {"name": "LOG_LEVEL", "default": "info"},
                    {"name": "MODE", "value": "local"},
                    {"name": "API_KEY", "isSecret": true}
                  ],
                  "transport": {"type": "stdio"}}]}"#,
    );
    assert_eq!(
        start.command,
        words(&[
            "npx",
            "-y",
            "--quiet",
            "db-mcp@3.1.0",
            "mcp",
            "/tmp",
            "--host",
            "localhost",
            "--mount",
            "src=/data,dst=/project",
            "--region",
            "{region}",
        ])
    );
    assert_eq!(
        start.env,
        vec![
            ("LOG_LEVEL".to_owned(), "info".to_owned()),
            ("MODE".to_owned(), "local".to_owned()),
        ]
    );
}

#[test]
fn a_yes_among_the_runtime_arguments_is_not_repeated() {
    let start = command(
        r#"{"name": "io.github.user/x", "description": "X", "version": "1.0.0",
                "packages": [{"registryType": "npm", "identifier": "x", "version": "1.0.0",
                  "runtimeHint": "npx", "runtimeArguments": [{"type": "positional", "value": "--yes"}],
                  "transport": {"type": "stdio"}}]}"#,
    );
    assert_eq!(start.command, words(&["npx", "--yes", "x@1.0.0"]));
}

#[test]
fn a_required_environment_variable_without_value_is_refused_unless_given() {
    let text = r#"{"name": "io.github.user/weather", "description": "Weather", "version": "1.0.0",
            "packages": [{"registryType": "npm", "identifier": "weather", "version": "1.0.0",
              "environmentVariables": [{"name": "WEATHER_API_KEY", "description": "API key",
                                        "isRequired": true, "isSecret": true}],
              "transport": {"type": "stdio"}}]}"#;
    assert_eq!(
        refusal(text, &[]),
        "server io.github.user/weather cannot be started: environment variable \
             WEATHER_API_KEY is required and has no value or default (API key): give it \
             with --env WEATHER_API_KEY=VALUE"
    );
    let start = one(text)
        .start_command(&["WEATHER_API_KEY".to_owned()])
        .expect("given with --env");
    assert_eq!(start.command, words(&["npx", "-y", "weather@1.0.0"]));
    assert!(start.env.is_empty());
}

#[test]
fn what_cannot_start_over_stdio_is_refused_with_the_reason() {
    assert_eq!(
        refusal(
            r#"{"name": "io.example/remote", "description": "R", "version": "2.0.0",
                    "remotes": [{"type": "streamable-http", "url": "https://mcp.example.com/mcp"}]}"#,
            &[]
        ),
        "server io.example/remote cannot be started: it has no packages to start over \
             stdio, only remotes (https://mcp.example.com/mcp): check a running Streamable \
             HTTP server with --url URL"
    );
    assert_eq!(
        refusal(
            r#"{"name": "io.example/http", "description": "H", "version": "1.0.0",
                    "packages": [{"registryType": "npm", "identifier": "h", "version": "1.0.0",
                      "transport": {"type": "streamable-http", "url": "http://localhost:{port}/mcp"}}]}"#,
            &[]
        ),
        "server io.example/http cannot be started: its transport is streamable-http, not \
             stdio: start it yourself and check it with --url URL"
    );
    assert_eq!(
        refusal(
            r#"{"name": "io.example/sse", "description": "S", "version": "1.0.0",
                    "packages": [{"registryType": "pypi", "identifier": "s", "version": "1.0.0",
                      "transport": {"type": "sse", "url": "http://localhost:8000/sse"}}]}"#,
            &[]
        ),
        "server io.example/sse cannot be started: its transport is sse (HTTP+SSE, MCP \
             2024-11-05), which elicit-check does not speak: it checks stdio and Streamable \
             HTTP servers"
    );
    assert_eq!(
        refusal(
            r#"{"name": "io.example/docker", "description": "D", "version": "1.0.0",
                    "packages": [{"registryType": "oci", "identifier": "docker.io/example/db:1.0.0",
                      "transport": {"type": "stdio"}}]}"#,
            &[]
        ),
        "server io.example/docker cannot be started: registryType oci is not one \
             elicit-check starts (npm and pypi are)"
    );
    assert_eq!(
        refusal(
            r#"{"name": "io.example/old", "description": "O", "version": "1.0.0",
                    "packages": [{"registryType": "npm", "identifier": "old",
                      "transport": {"type": "stdio"}}]}"#,
            &[]
        ),
        "server io.example/old cannot be started: it has no version (the format requires \
             a specific one)"
    );
    assert_eq!(
        refusal(
            r#"{"name": "io.example/bun", "description": "B", "version": "1.0.0",
                    "packages": [{"registryType": "npm", "identifier": "b", "version": "1.0.0",
                      "runtimeHint": "bunx", "transport": {"type": "stdio"}}]}"#,
            &[]
        ),
        "server io.example/bun cannot be started: runtimeHint bunx is not one \
             elicit-check starts for registryType npm (it starts npx, node)"
    );
    assert_eq!(
        refusal(
            r#"{"name": "io.example/args", "description": "A", "version": "1.0.0",
                    "packages": [{"registryType": "pypi", "identifier": "a", "version": "1.0.0",
                      "packageArguments": [{"type": "positional", "valueHint": "database_name",
                                            "isRequired": true}],
                      "transport": {"type": "stdio"}}]}"#,
            &[]
        ),
        "server io.example/args cannot be started: packageArguments entry database_name \
             is required and has no value or default"
    );
}

#[test]
fn the_first_package_that_starts_is_taken_and_each_refusal_is_named() {
    let both = r#"{"name": "io.example/both", "description": "B", "version": "1.0.0",
            "packages": [
              {"registryType": "oci", "identifier": "example/both", "version": "1.0.0",
               "transport": {"type": "stdio"}},
              {"registryType": "pypi", "identifier": "both-mcp", "version": "1.0.0",
               "transport": {"type": "stdio"}}]}"#;
    assert_eq!(command(both).command, words(&["uvx", "both-mcp==1.0.0"]));
    let neither = r#"{"name": "io.example/neither", "description": "N", "version": "1.0.0",
            "packages": [
              {"registryType": "nuget", "identifier": "Example.Server", "version": "0.4.0",
               "transport": {"type": "stdio"}},
              {"registryType": "mcpb", "identifier": "https://example.com/s.mcpb",
               "version": "latest", "transport": {"type": "stdio"}}]}"#;
    assert_eq!(
        refusal(neither, &[]),
        "server io.example/neither cannot be started: package nuget Example.Server: \
             registryType nuget is not one elicit-check starts (npm and pypi are); package \
             mcpb https://example.com/s.mcpb: registryType mcpb is not one elicit-check \
             starts (npm and pypi are)"
    );
}

#[test]
fn a_file_holds_one_server_a_list_or_the_registrys_list() {
    let server = r#"{"name": "io.example/a", "description": "A", "version": "1.0.0"}"#;
    let names = |text: &str| -> Vec<String> {
        parse(text, "f.json")
            .expect("servers")
            .into_iter()
            .map(|server| server.name)
            .collect()
    };
    assert_eq!(names(server), ["io.example/a"]);
    assert_eq!(
        names(&format!(
            r#"[{server}, {{"name": "io.example/b", "description": "B", "version": "2.0.0"}}]"#
        )),
        ["io.example/a", "io.example/b"]
    );
    assert_eq!(
        names(&format!(
            r#"{{"servers": [{{"server": {server}, "_meta": {{}}}}], "metadata": {{"count": 1}}}}"#
        )),
        ["io.example/a"]
    );
    let error = parse(r#"{"servers": 3}"#, "f.json").expect_err("not a list");
    assert_eq!(
        error.to_string(),
        "f.json is not a server.json: expected a server object (with a name), a list of \
             them, or {\"servers\": [..]}"
    );
    let error = parse(r#"[{"description": "no name"}]"#, "f.json").expect_err("no name");
    assert_eq!(
        error.to_string(),
        "f.json is not a server.json: server 1: missing field `name`"
    );
}
