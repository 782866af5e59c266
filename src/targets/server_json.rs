//! The MCP registry's `server.json` (schema
//! `https://static.modelcontextprotocol.io/schemas/2025-09-29/server.schema.json`,
//! modelcontextprotocol/registry, docs/reference/server-json/) read as the
//! stdio command that starts the server.
//!
//! A file holds one `server.json` object, a JSON list of them, or the
//! registry API's list (`{"servers": [{"server": {..}, "_meta": ..}]}`; each
//! entry's `server` is taken). Each server's `packages` are tried in order;
//! the first one elicit-check can start gives the command:
//!
//! | `registryType` | `runtimeHint`          | command                                           |
//! |----------------|------------------------|---------------------------------------------------|
//! | `npm`          | none or `npx`          | `npx -y RUNTIME_ARGS IDENTIFIER@VERSION PACKAGE_ARGS` |
//! | `npm`          | `node`                 | `node RUNTIME_ARGS IDENTIFIER PACKAGE_ARGS`       |
//! | `pypi`         | none or `uvx`          | `uvx RUNTIME_ARGS IDENTIFIER==VERSION PACKAGE_ARGS` |
//! | `pypi`         | `pipx`                 | `pipx run RUNTIME_ARGS IDENTIFIER==VERSION PACKAGE_ARGS` |
//! | `pypi`         | `python3` or `python`  | `python3 RUNTIME_ARGS IDENTIFIER PACKAGE_ARGS`    |
//!
//! With `node`, `python3` and `python` the identifier is run as written (a
//! script path, relative to the server's working directory), the way a client
//! that was told so by `runtimeHint` would; the version is still required, as
//! the format requires it of every package, but is not part of the command.
//!
//! What cannot be started is refused with the reason ([`Refusal`]): only
//! `remotes` or a package whose `transport` is `streamable-http` or `sse`
//! (check it with `--url`), a `registryType` other than npm and pypi (`oci`,
//! `nuget`, `mcpb`: their runtimes, docker, dnx and a bundle host, are not
//! elicit-check's to drive), a `runtimeHint` it does not know, a missing
//! version, and a required argument or environment variable with no value
//! or default.

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

use serde::Deserialize;
use serde_json::Value;

/// One server as its `server.json` describes it (the fields elicit-check
/// reads; the others, `description`, `repository`, `_meta`, are ignored).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerJson {
    /// `name`: reverse-DNS, one slash, e.g. `io.github.user/weather`.
    pub name: String,
    /// `version`: the server's version.
    #[serde(default)]
    pub version: Option<String>,
    /// `packages`: ways to run the server locally.
    #[serde(default)]
    pub packages: Vec<Package>,
    /// `remotes`: where a hosted server is reached (`streamable-http` or `sse`).
    #[serde(default)]
    pub remotes: Vec<Transport>,
}

/// One entry of `packages` (schema `Package`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Package {
    /// `registryType`: `npm`, `pypi`, `oci`, `nuget`, `mcpb`.
    pub registry_type: String,
    /// `identifier`: the package's name in its registry (or a URL for `mcpb`).
    pub identifier: String,
    /// `version`: a specific version (the format rejects `latest` and ranges).
    #[serde(default)]
    pub version: Option<String>,
    /// `runtimeHint`: the runtime to start it with, e.g. `npx`, `uvx`, `docker`.
    #[serde(default)]
    pub runtime_hint: Option<String>,
    /// `transport`: `stdio`, `streamable-http` or `sse` (absent: stdio, as
    /// packages were in the formats before the field was added).
    #[serde(default)]
    pub transport: Option<Transport>,
    /// `runtimeArguments`: arguments to the runtime (before the package).
    #[serde(default)]
    pub runtime_arguments: Vec<Argument>,
    /// `packageArguments`: arguments to the package's binary (after it).
    #[serde(default)]
    pub package_arguments: Vec<Argument>,
    /// `environmentVariables`: the server's environment.
    #[serde(default)]
    pub environment_variables: Vec<KeyValueInput>,
}

/// A `transport` of a package or an entry of `remotes` (schema
/// `StdioTransport`, `StreamableHttpTransport`, `SseTransport`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Transport {
    /// `type`: `stdio`, `streamable-http` or `sse`.
    #[serde(rename = "type")]
    pub kind: String,
    /// `url`: the endpoint (a URL template) of `streamable-http` and `sse`.
    #[serde(default)]
    pub url: Option<String>,
}

/// Whether an [`Argument`] is `positional` (a value on the command line) or
/// `named` (`--flag VALUE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ArgumentKind {
    /// `"positional"`: the value inserted verbatim.
    Positional,
    /// `"named"`: the flag `name`, then the value.
    Named,
}

/// A `runtimeArguments` or `packageArguments` entry (schema
/// `PositionalArgument`, `NamedArgument`, both an `InputWithVariables`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Argument {
    /// `type`.
    #[serde(rename = "type")]
    pub kind: ArgumentKind,
    /// `name`: the flag, leading dashes included (named arguments).
    #[serde(default)]
    pub name: Option<String>,
    /// `valueHint`: a label for a positional argument, not part of the command.
    #[serde(default)]
    pub value_hint: Option<String>,
    /// `value`, `default`, `isRequired` and `variables`.
    #[serde(flatten)]
    pub input: InputWithVariables,
}

/// An `environmentVariables` entry (schema `KeyValueInput`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct KeyValueInput {
    /// `name`: the variable.
    pub name: String,
    /// `description`, quoted when a required variable has no value.
    #[serde(default)]
    pub description: Option<String>,
    /// `value`, `default`, `isRequired` and `variables`.
    #[serde(flatten)]
    pub input: InputWithVariables,
}

/// What an argument and an environment variable share (schema
/// `InputWithVariables`, which `PositionalArgument`, `NamedArgument` and
/// `KeyValueInput` extend).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InputWithVariables {
    /// `value`: fixed, `{variables}` replaced.
    #[serde(default)]
    pub value: Option<String>,
    /// `default`: the value when `value` is not set.
    #[serde(default)]
    pub default: Option<String>,
    /// `isRequired`.
    #[serde(default)]
    pub is_required: bool,
    /// `variables`: what `{name}` in `value` stands for.
    #[serde(default)]
    pub variables: BTreeMap<String, Input>,
}

impl InputWithVariables {
    /// The value: `value` with its `{variables}` replaced ([`substitute`]),
    /// else `default`; `None` when neither is set. `of` names the input in a
    /// refusal.
    ///
    /// # Errors
    /// A required variable of `value` has no value.
    fn resolve(&self, of: &str) -> Result<Option<String>, Refusal> {
        Ok(
            substitute(self.value.as_deref(), &self.variables, of)?
                .or_else(|| self.default.clone()),
        )
    }
}

/// A variable of an input's `value` (schema `Input`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Input {
    /// `value`.
    #[serde(default)]
    pub value: Option<String>,
    /// `default`.
    #[serde(default)]
    pub default: Option<String>,
    /// `isRequired`.
    #[serde(default)]
    pub is_required: bool,
}

/// The command starting one server over stdio.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StartCommand {
    /// The server's `name`.
    pub server: String,
    /// Program, then arguments, e.g. `["npx", "-y", "@scope/server@1.2.0"]`.
    pub command: Vec<String>,
    /// The server's environment from `environmentVariables`, in order.
    pub env: Vec<(String, String)>,
}

/// Environment variables, `(name, value)`, in order.
type Environment = Vec<(String, String)>;

/// Why a package (or a server with no package) cannot be started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// No `packages`: only `remotes` (their URLs), or nothing at all.
    NoPackages {
        /// The `remotes`' URLs.
        remotes: Vec<String>,
    },
    /// The package's `transport` is not stdio (`streamable-http`, `sse`).
    NotStdio {
        /// `transport.type`.
        transport: String,
    },
    /// A `registryType` elicit-check does not start.
    RegistryType {
        /// `registryType`.
        registry_type: String,
    },
    /// A `runtimeHint` elicit-check does not start for this registry type.
    RuntimeHint {
        /// `runtimeHint`.
        hint: String,
        /// `registryType`.
        registry_type: String,
    },
    /// No `version`, an empty one, or `latest` (the format requires a
    /// specific version).
    Version {
        /// The version as written (none: absent).
        version: Option<String>,
    },
    /// A required environment variable with no `value` or `default`, not
    /// given by the user either.
    EnvironmentVariable {
        /// `name`.
        name: String,
        /// `description`.
        description: Option<String>,
    },
    /// A required argument with no `value` or `default`.
    Argument {
        /// `runtimeArguments` or `packageArguments`.
        list: &'static str,
        /// Its `name` (named) or `valueHint` (positional).
        label: String,
    },
    /// A required variable of a `value` with no `value` or `default`.
    Variable {
        /// The variable's name (`{name}` in the value).
        name: String,
        /// Whose value it is in: an argument's label or a variable's name.
        of: String,
    },
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::NoPackages { remotes } if remotes.is_empty() => {
                write!(f, "it has no packages and no remotes")
            }
            Refusal::NoPackages { remotes } => write!(
                f,
                "it has no packages to start over stdio, only remotes ({}): check a running \
                 Streamable HTTP server with --url URL",
                remotes.join(", ")
            ),
            Refusal::NotStdio { transport } if transport == "sse" => write!(
                f,
                "its transport is sse (HTTP+SSE, MCP 2024-11-05), which elicit-check does not \
                 speak: it checks stdio and Streamable HTTP servers"
            ),
            Refusal::NotStdio { transport } => write!(
                f,
                "its transport is {transport}, not stdio: start it yourself and check it \
                 with --url URL"
            ),
            Refusal::RegistryType { registry_type } => write!(
                f,
                "registryType {registry_type} is not one elicit-check starts (npm and pypi are)"
            ),
            Refusal::RuntimeHint {
                hint,
                registry_type,
            } => write!(
                f,
                "runtimeHint {hint} is not one elicit-check starts for registryType \
                 {registry_type} (it starts {})",
                known_hints(registry_type).join(", ")
            ),
            Refusal::Version { version: None } => {
                write!(f, "it has no version (the format requires a specific one)")
            }
            Refusal::Version {
                version: Some(version),
            } => write!(
                f,
                "its version {version:?} is not a specific version (the format requires one)"
            ),
            Refusal::EnvironmentVariable { name, description } => {
                write!(
                    f,
                    "environment variable {name} is required and has no value or default"
                )?;
                if let Some(description) = description {
                    write!(f, " ({description})")?;
                }
                write!(f, ": give it with --env {name}=VALUE")
            }
            Refusal::Argument { list, label } => write!(
                f,
                "{list} entry {label} is required and has no value or default"
            ),
            Refusal::Variable { name, of } => write!(
                f,
                "variable {{{name}}} of {of} is required and has no value or default"
            ),
        }
    }
}

/// Why a `server.json` file gives no command.
#[derive(Debug, thiserror::Error)]
pub enum ServerJsonError {
    /// The file cannot be read.
    #[error("cannot read {file}: {source}")]
    Read {
        /// The file as given.
        file: String,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// The text is not JSON, or not `server.json`'s shape.
    #[error("{file} is not a server.json: {message}")]
    Format {
        /// The file as given.
        file: String,
        /// serde's message (line, column, field), or what is missing.
        message: String,
    },
    /// No package of the server can be started; one reason per package (or
    /// one for a server with no packages).
    #[error("server {server} cannot be started: {}", reasons(refusals))]
    Refused {
        /// The server's `name`.
        server: String,
        /// Each package's refusal, `(package, refusal)`, e.g. `("oci mcp/db", ..)`;
        /// the package is empty when the server has none.
        refusals: Vec<(String, Refusal)>,
    },
}

/// `REASON` for one refusal, `package A: REASON; package B: REASON` for several.
fn reasons(refusals: &[(String, Refusal)]) -> String {
    match refusals {
        [(_, refusal)] => refusal.to_string(),
        _ => refusals
            .iter()
            .map(|(package, refusal)| format!("package {package}: {refusal}"))
            .collect::<Vec<_>>()
            .join("; "),
    }
}

/// The runtime hints elicit-check starts for `registry_type`.
fn known_hints(registry_type: &str) -> &'static [&'static str] {
    match registry_type {
        "npm" => &["npx", "node"],
        "pypi" => &["uvx", "pipx", "python3", "python"],
        _ => &[],
    }
}

/// Reads the servers in `path` (see the module docs for the shapes).
///
/// # Errors
/// [`ServerJsonError::Read`] or [`ServerJsonError::Format`].
pub fn read(path: &Path) -> Result<Vec<ServerJson>, ServerJsonError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|source| ServerJsonError::Read {
        file: file.clone(),
        source,
    })?;
    parse(&text, &file)
}

/// Parses `text` (read from `file`, named in errors): one `server.json`
/// object, a list of them, or the registry API's `{"servers": [..]}`, whose
/// entries may wrap each server in `{"server": ..}`.
///
/// # Errors
/// [`ServerJsonError::Format`].
pub fn parse(text: &str, file: &str) -> Result<Vec<ServerJson>, ServerJsonError> {
    let format = |message: String| ServerJsonError::Format {
        file: file.to_owned(),
        message,
    };
    let value: Value = serde_json::from_str(text).map_err(|error| format(error.to_string()))?;
    let entries = match value {
        Value::Array(entries) => entries,
        Value::Object(mut object) if !object.contains_key("name") => match object.remove("servers")
        {
            Some(Value::Array(entries)) => entries,
            _ => {
                return Err(format(
                    "expected a server object (with a name), a list of them, or {\"servers\": [..]}"
                        .to_owned(),
                ));
            }
        },
        single => vec![single],
    };
    entries
        .into_iter()
        .enumerate()
        .map(|(index, entry)| {
            let entry = match entry {
                Value::Object(mut object) if !object.contains_key("name") => {
                    object.remove("server").unwrap_or(Value::Object(object))
                }
                other => other,
            };
            serde_json::from_value::<ServerJson>(entry)
                .map_err(|error| format(format!("server {}: {error}", index + 1)))
        })
        .collect()
}

impl ServerJson {
    /// The command of the first package that can be started; `given` names
    /// the environment variables the user sets (`--env`), which satisfy a
    /// required variable the file gives no value.
    ///
    /// # Errors
    /// [`ServerJsonError::Refused`] with every package's reason.
    pub fn start_command(&self, given: &[String]) -> Result<StartCommand, ServerJsonError> {
        let refused = |refusals| ServerJsonError::Refused {
            server: self.name.clone(),
            refusals,
        };
        if self.packages.is_empty() {
            let remotes = self
                .remotes
                .iter()
                .map(|remote| remote.url.clone().unwrap_or_else(|| remote.kind.clone()))
                .collect();
            return Err(refused(vec![(
                String::new(),
                Refusal::NoPackages { remotes },
            )]));
        }
        let mut refusals = Vec::new();
        for package in &self.packages {
            match package.start(given) {
                Ok((command, env)) => {
                    return Ok(StartCommand {
                        server: self.name.clone(),
                        command,
                        env,
                    });
                }
                Err(refusal) => refusals.push((
                    format!("{} {}", package.registry_type, package.identifier),
                    refusal,
                )),
            }
        }
        Err(refused(refusals))
    }
}

impl Package {
    /// The command and environment starting this package (see the module docs).
    fn start(&self, given: &[String]) -> Result<(Vec<String>, Environment), Refusal> {
        if let Some(transport) = &self.transport
            && transport.kind != "stdio"
        {
            return Err(Refusal::NotStdio {
                transport: transport.kind.clone(),
            });
        }
        let registry_type = self.registry_type.as_str();
        if known_hints(registry_type).is_empty() {
            return Err(Refusal::RegistryType {
                registry_type: self.registry_type.clone(),
            });
        }
        let version = match self.version.as_deref().map(str::trim) {
            Some(version) if !version.is_empty() && version != "latest" => version,
            _ => {
                return Err(Refusal::Version {
                    version: self.version.clone(),
                });
            }
        };
        let runtime_arguments = arguments(&self.runtime_arguments, "runtimeArguments")?;
        let package_arguments = arguments(&self.package_arguments, "packageArguments")?;
        let hint = self.runtime_hint.as_deref();
        let identifier = self.identifier.clone();
        let (mut command, package) = match (registry_type, hint) {
            ("npm", None | Some("npx")) => {
                let yes = runtime_arguments
                    .iter()
                    .any(|argument| argument == "-y" || argument == "--yes");
                let start = if yes { vec![] } else { vec!["-y".to_owned()] };
                (
                    [vec!["npx".to_owned()], start].concat(),
                    format!("{identifier}@{version}"),
                )
            }
            ("pypi", None | Some("uvx")) => {
                (vec!["uvx".to_owned()], format!("{identifier}=={version}"))
            }
            ("pypi", Some("pipx")) => (
                vec!["pipx".to_owned(), "run".to_owned()],
                format!("{identifier}=={version}"),
            ),
            ("npm", Some(runtime @ "node")) | ("pypi", Some(runtime @ ("python3" | "python"))) => {
                (vec![runtime.to_owned()], identifier)
            }
            (_, Some(hint)) => {
                return Err(Refusal::RuntimeHint {
                    hint: hint.to_owned(),
                    registry_type: self.registry_type.clone(),
                });
            }
            (_, None) => unreachable!("known_hints refused other registry types"),
        };
        command.extend(runtime_arguments);
        command.push(package);
        command.extend(package_arguments);
        let mut env = Vec::new();
        for variable in &self.environment_variables {
            match variable.input.resolve(&variable.name)? {
                Some(value) => env.push((variable.name.clone(), value)),
                None if variable.input.is_required && !given.contains(&variable.name) => {
                    return Err(Refusal::EnvironmentVariable {
                        name: variable.name.clone(),
                        description: variable.description.clone(),
                    });
                }
                None => {}
            }
        }
        Ok((command, env))
    }
}

/// The command-line words of `list` (`runtimeArguments` or
/// `packageArguments`): a positional argument's value, a named one's flag
/// then value; the value is `value` (`{variables}` replaced), else `default`.
/// An argument with neither is left out (the format's `Input.value`: "If
/// this is not set, the user may be prompted"), unless `isRequired`.
fn arguments(list: &[Argument], name: &'static str) -> Result<Vec<String>, Refusal> {
    let mut words = Vec::new();
    for (index, argument) in list.iter().enumerate() {
        let label = match argument.kind {
            ArgumentKind::Named => argument.name.clone(),
            ArgumentKind::Positional => argument.value_hint.clone(),
        }
        .unwrap_or_else(|| format!("{}", index + 1));
        let Some(value) = argument.input.resolve(&label)? else {
            if argument.input.is_required {
                return Err(Refusal::Argument { list: name, label });
            }
            continue;
        };
        if let (ArgumentKind::Named, Some(flag)) = (argument.kind, &argument.name) {
            words.push(flag.clone());
        }
        words.push(value);
    }
    Ok(words)
}

/// `value` with each `{name}` of `variables` replaced by that variable's
/// `value`, else its `default` (schema `InputWithVariables`); a `{name}` not
/// in `variables`, or one with neither that is not required, stays as written.
fn substitute(
    value: Option<&str>,
    variables: &BTreeMap<String, Input>,
    of: &str,
) -> Result<Option<String>, Refusal> {
    let Some(value) = value else {
        return Ok(None);
    };
    let mut value = value.to_owned();
    for (name, variable) in variables {
        let placeholder = format!("{{{name}}}");
        if !value.contains(&placeholder) {
            continue;
        }
        match variable.value.as_ref().or(variable.default.as_ref()) {
            Some(replacement) => value = value.replace(&placeholder, replacement),
            None if variable.is_required => {
                return Err(Refusal::Variable {
                    name: name.clone(),
                    of: of.to_owned(),
                });
            }
            None => {}
        }
    }
    Ok(Some(value))
}

#[cfg(test)]
mod tests;
