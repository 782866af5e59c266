//! A registry's servers as a config's targets (`check --server-json FILE`,
//! docs/src/registry.md): each server of the file started from its
//! `server.json` ([`super::server_json`]), its tools called once
//! ([`crate::targets::eliciting_tools`]), and one target per tool that elicits. The
//! registry gives no acted rule: a target reads acting as a reply that is not
//! an error (`--acted-not-error`) unless the caller gives one.

use std::path::Path;

use serde_json::json;

use super::config::{ConfigFile, TargetConfig};
use super::server_json::{self, ServerJsonError};
use crate::check::Target;
use crate::harness::Limits;
use crate::harness::child::Environment;
use crate::targets::eliciting_tools::{Found, eliciting_tools};

/// Why a `server.json` gave no target.
#[derive(Debug, thiserror::Error)]
pub enum RegistryError {
    /// The file cannot be read or is not a `server.json`.
    #[error(transparent)]
    ServerJson(#[from] ServerJsonError),
    /// No server of the file has a tool that elicits; what each showed.
    #[error("no tool of the servers in {file} sends a form elicitation/create:\n  {}", notes.join("\n  "))]
    NothingToCheck {
        /// The file as given.
        file: String,
        /// Why each server or tool gave none (as [`registry_targets`] notes them).
        notes: Vec<String>,
    },
}

/// The targets of the servers in `path`: one per tool that sends a form
/// request, named `SERVER.TOOL` (the server's `name` with `/` as `.`; a
/// name taken already, as by the same server at another version, gets `-2`,
/// `-3`, ..), its
/// command, environment and arguments as found, acting read as not an error.
/// Each server that cannot be started, and each tool left out, is handed to
/// `note` as a line, e.g. ``server io.example/db cannot be started: ..`` or
/// ``io.example/notes: tool list_notes sent no form elicitation/create``.
/// `environment` is the user's (`--env`, `--cwd`): its variables satisfy
/// required ones the file gives no value, and override the file's.
///
/// # Errors
/// The file cannot be read or parsed; no tool of any server elicits.
pub async fn registry_targets(
    path: &Path,
    environment: &Environment,
    limits: Limits,
    note: &mut dyn FnMut(String),
) -> Result<ConfigFile, RegistryError> {
    let servers = server_json::read(path)?;
    let given: Vec<String> = environment
        .vars
        .iter()
        .map(|(name, _)| name.clone())
        .collect();
    let mut notes = Vec::new();
    let mut note_both = |line: String| {
        notes.push(line.clone());
        note(line);
    };
    let mut targets = Vec::new();
    for server in &servers {
        let start = match server.start_command(&given) {
            Ok(start) => start,
            Err(error) => {
                note_both(error.to_string());
                continue;
            }
        };
        let mut vars = start.env.clone();
        vars.extend(environment.vars.iter().cloned());
        let mut target = Target::stdio(start.command.clone()).limits(limits);
        target.environment = Environment {
            vars,
            cwd: environment.cwd.clone(),
        };
        let surveys = match eliciting_tools(&target).await {
            Ok(surveys) => surveys,
            Err(error) => {
                note_both(format!("{}: {error}", start.server));
                continue;
            }
        };
        for survey in surveys {
            match &survey.found {
                Found::Elicits(_) => {}
                Found::AskedNothing(_) => {
                    note_both(format!(
                        "{}: tool {} sent no form elicitation/create",
                        start.server, survey.tool
                    ));
                    continue;
                }
                Found::Skipped(reason) => {
                    note_both(format!(
                        "{}: tool {} not called: {reason}",
                        start.server, survey.tool
                    ));
                    continue;
                }
            }
            let name = unique_name(
                &format!("{}.{}", start.server.replace('/', "."), survey.tool),
                &targets,
            );
            let config = json!({
                "name": name,
                "command": start.command,
                "tool": survey.tool,
                "arguments": survey.arguments,
                "acted_not_error": true,
                "env": start.env.iter().cloned().collect::<std::collections::BTreeMap<_, _>>(),
            });
            let config: TargetConfig = serde_json::from_value(config)
                .expect("the fields written above are TargetConfig's");
            targets.push(config);
        }
    }
    if targets.is_empty() {
        return Err(RegistryError::NothingToCheck {
            file: path.display().to_string(),
            notes,
        });
    }
    Ok(ConfigFile { target: targets })
}

/// `name`, or `name-2`, `name-3`, .. when a target of `targets` has it
/// already (a config's target names are unique: they name evidence folders).
fn unique_name(name: &str, targets: &[TargetConfig]) -> String {
    let taken = |candidate: &str| targets.iter().any(|target| target.name() == candidate);
    if !taken(name) {
        return name.to_owned();
    }
    (2..)
        .map(|number| format!("{name}-{number}"))
        .find(|candidate| !taken(candidate))
        .expect("some number is free")
}

#[cfg(test)]
mod tests {
    use super::unique_name;
    use crate::targets::config::ConfigFile;

    #[test]
    fn a_taken_name_gets_the_next_free_number() {
        let config = ConfigFile::parse(
            r#"
            [[target]]
            name = "io.example.notes.add_note"
            command = ["server"]
            tool = "add_note"
            acted_not_error = true
            [[target]]
            name = "io.example.notes.add_note-2"
            command = ["server"]
            tool = "add_note"
            acted_not_error = true
            "#,
        )
        .expect("a config");
        assert_eq!(
            unique_name("io.example.notes.list", &config.target),
            "io.example.notes.list"
        );
        assert_eq!(
            unique_name("io.example.notes.add_note", &config.target),
            "io.example.notes.add_note-3"
        );
        assert_eq!(
            unique_name("io.example.notes.add_note", &config.target[..1]),
            "io.example.notes.add_note-2"
        );
    }
}
