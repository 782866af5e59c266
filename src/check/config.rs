//! `elicit-check.toml`: how a repository checks its server, committed beside it
//! (the config file of `elicit-check check`). One `[[target]]` per tool; unknown keys
//! are errors.
//!
//! ```toml
//! [[target]]
//! command = ["python3", "server.py"]   # or give it after `--`
//! # url = "http://127.0.0.1:{port}/mcp" # Streamable HTTP instead of stdio (--url)
//! tool = "book"
//! arguments = { city = "Lisbon" }      # the tool's arguments (optional)
//! acted = "/booked"                     # or "/dry_run=false", acted_text = "REGEX",
//!                                       # acted_not_error = true, acted_cmd = "CMD"
//! cases = 100                           # optional, as are all the keys below
//! seed = 7
//! strict = false
//! max_shrink_runs = 32
//! session = true                        # false: a fresh server process per case
//! setup = "cp fixture.db test.db"       # run before each case
//! env = { API_KEY = "test" }            # the server's environment
//! cwd = "tests/server"                  # its working directory
//! allow_unasked = false                 # true: acting without an answer is by design
//! protocol = "2026-07-28"               # auto (default), both, or one era
//! jobs = 2                              # fresh server processes at once (-j)
//! ```

use std::path::Path;

use serde::Deserialize;
use serde_json::{Map, Value};

/// The whole file.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ConfigFile {
    /// The targets, one per tool.
    #[serde(default)]
    pub target: Vec<TargetConfig>,
}

/// One `[[target]]`.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TargetConfig {
    /// The server command: program, then arguments.
    #[serde(default)]
    pub command: Vec<String>,
    /// The Streamable HTTP endpoint (`--url`), `{port}` standing for the port
    /// of a server started from `command`.
    pub url: Option<String>,
    /// The tool to call.
    pub tool: String,
    /// The tool's `arguments` object.
    pub arguments: Option<Map<String, Value>>,
    /// A JSON pointer to the acted boolean.
    pub acted: Option<String>,
    /// A regex over the text content.
    pub acted_text: Option<String>,
    /// Acted = not an error.
    #[serde(default)]
    pub acted_not_error: bool,
    /// Generated cases.
    pub cases: Option<usize>,
    /// The seed.
    pub seed: Option<u64>,
    /// Warnings fail.
    #[serde(default)]
    pub strict: bool,
    /// Most stdio runs spent shrinking one property's failure.
    pub max_shrink_runs: Option<usize>,
    /// A shell command whose exit status 0 means acted (`--acted-cmd`).
    pub acted_cmd: Option<String>,
    /// Session mode (`false`: `--fresh`).
    pub session: Option<bool>,
    /// A shell command run before each case (`--setup`).
    pub setup: Option<String>,
    /// Variables of the server's environment (`--env`).
    #[serde(default)]
    pub env: std::collections::BTreeMap<String, String>,
    /// The server's working directory (`--cwd`).
    pub cwd: Option<std::path::PathBuf>,
    /// Acting when no answer could come is a declared fail-open design
    /// (`--allow-unasked`).
    #[serde(default)]
    pub allow_unasked: bool,
    /// The protocol eras: `auto`, `both`, `2025-11-25` or `2026-07-28` (`--protocol`).
    pub protocol: Option<String>,
    /// Fresh server processes at once (`-j N`).
    pub jobs: Option<usize>,
}

impl ConfigFile {
    /// Reads and parses `path`.
    ///
    /// # Errors
    /// The file cannot be read, or it is not this TOML (the message names the
    /// line and the key, e.g. ``unknown field `tools`, expected one of ...``).
    pub fn load(path: &Path) -> Result<ConfigFile, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|error| format!("cannot read {}: {error}", path.display()))?;
        ConfigFile::parse(&text).map_err(|error| format!("{}: {error}", path.display()))
    }

    /// Parses the TOML text.
    ///
    /// # Errors
    /// toml's message (line, column, key).
    pub fn parse(text: &str) -> Result<ConfigFile, String> {
        toml::from_str(text).map_err(|error| error.to_string())
    }

    /// The target for `tool`, or the only one when `tool` is `None`.
    ///
    /// # Errors
    /// No such target, or several and no tool named.
    pub fn select(&self, tool: Option<&str>) -> Result<&TargetConfig, String> {
        let names: Vec<&str> = self.target.iter().map(|t| t.tool.as_str()).collect();
        match tool {
            Some(tool) => self
                .target
                .iter()
                .find(|target| target.tool == tool)
                .ok_or_else(|| {
                    format!("the config has no [[target]] for tool {tool:?} (it has: {names:?})")
                }),
            None => match self.target.as_slice() {
                [only] => Ok(only),
                [] => Err("the config has no [[target]]".to_owned()),
                _ => Err(format!(
                    "the config has several targets ({names:?}): choose one with --tool"
                )),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_target_reads_every_key() {
        let config = ConfigFile::parse(
            r#"
[[target]]
command = ["python3", "server.py"]
tool = "book"
arguments = { city = "Lisbon", nights = 2 }
acted = "/booked"
cases = 40
seed = 7
strict = true
session = false
setup = "cp a b"
env = { API_KEY = "test", MODE = "ci" }
cwd = "tests/server"
acted_cmd = "test ! -e victim.txt"
allow_unasked = true
protocol = "2026-07-28"
jobs = 3
"#,
        )
        .expect("valid");
        let target = config.select(None).expect("one target");
        assert_eq!(target.command, vec!["python3", "server.py"]);
        assert_eq!(target.tool, "book");
        assert_eq!(
            Value::Object(target.arguments.clone().expect("arguments")),
            json!({"city": "Lisbon", "nights": 2})
        );
        assert_eq!(target.acted.as_deref(), Some("/booked"));
        assert_eq!(
            (target.cases, target.seed, target.strict),
            (Some(40), Some(7), true)
        );
        assert_eq!(target.session, Some(false));
        assert_eq!(target.setup.as_deref(), Some("cp a b"));
        assert_eq!(
            target.env.iter().collect::<Vec<_>>(),
            [
                (&"API_KEY".to_owned(), &"test".to_owned()),
                (&"MODE".to_owned(), &"ci".to_owned())
            ]
        );
        assert_eq!(target.cwd.as_deref(), Some(Path::new("tests/server")));
        assert_eq!(target.acted_cmd.as_deref(), Some("test ! -e victim.txt"));
        assert!(target.allow_unasked);
        assert_eq!(target.protocol.as_deref(), Some("2026-07-28"));
        assert_eq!(target.jobs, Some(3));
    }

    #[test]
    fn unknown_keys_are_errors_naming_the_key() {
        let error = ConfigFile::parse("[[target]]\ntool = \"book\"\nacted_txt = \"ok\"\n")
            .expect_err("unknown key");
        assert!(error.contains("unknown field `acted_txt`"), "{error}");
        let error = ConfigFile::parse("[[targets]]\ntool = \"book\"\n").expect_err("unknown table");
        assert!(error.contains("unknown field `targets`"), "{error}");
    }

    #[test]
    fn several_targets_need_a_tool_name() {
        let config = ConfigFile::parse("[[target]]\ntool = \"a\"\n[[target]]\ntool = \"b\"\n")
            .expect("valid");
        assert_eq!(config.select(Some("b")).expect("b").tool, "b");
        let error = config.select(None).expect_err("ambiguous");
        assert!(error.contains("choose one with --tool"), "{error}");
        let error = config.select(Some("c")).expect_err("missing");
        assert!(error.contains("no [[target]] for tool \"c\""), "{error}");
    }
}
