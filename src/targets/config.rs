//! `elicit-check.toml`: how a repository checks its server, committed beside it
//! (the config file of `elicit-check check`). One `[[target]]` per tool (or per
//! tool and arguments); unknown keys are errors. `check --config` runs every
//! target, or those named with `--target NAME`.
//!
//! ```toml
//! [[target]]
//! name = "book-lisbon"                  # optional: the tool's name by default
//! command = ["python3", "server.py"]   # or give it after `--`
//! # url = "http://127.0.0.1:{port}/mcp" # Streamable HTTP instead of stdio (--url)
//! # headers = ["Authorization: Bearer ${TOKEN}"]   # with url: sent on every request
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
//! consent = ["/confirm=true"]           # the consent fields (--consent)
//! protocol = "2026-07-28"               # auto (default), both, or one era
//! jobs = 2                              # fresh server processes at once (-j)
//! independent_cases = false             # true: cases share no state (with jobs > 1)
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
    /// The target's name (`--target NAME`, the evidence folder `DIR/NAME/`):
    /// the tool's name when absent. Letters, digits, `_`, `-` and `.`, as MCP's
    /// tool names (2025-11-25, Tools, "Tool names"), unique in the file.
    pub name: Option<String>,
    /// The server command: program, then arguments.
    #[serde(default)]
    pub command: Vec<String>,
    /// The Streamable HTTP endpoint (`--url`), `{port}` standing for the port
    /// of a server started from `command`.
    pub url: Option<String>,
    /// Headers sent on every HTTP request, as `--header` takes them
    /// (`"Authorization: Bearer ${TOKEN}"`); with `url` only.
    #[serde(default)]
    pub headers: Vec<String>,
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
    /// The consent fields and the value of each that consents, as
    /// `--consent` takes them (`"/confirm=true"`).
    #[serde(default)]
    pub consent: Vec<String>,
    /// The protocol eras: `auto`, `both`, `2025-11-25` or `2026-07-28` (`--protocol`).
    pub protocol: Option<String>,
    /// Fresh server processes at once (`-j N`).
    pub jobs: Option<usize>,
    /// The cases share no state (`--independent-cases`): with `jobs` above 1,
    /// their `setup` and `acted_cmd` may run at once.
    #[serde(default)]
    pub independent_cases: bool,
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
        let config: ConfigFile = toml::from_str(text).map_err(|error| error.to_string())?;
        let mut seen: Vec<&str> = Vec::new();
        for (index, target) in config.target.iter().enumerate() {
            let name = target.name();
            let at = format!("[[target]] #{}", index + 1);
            if !valid_name(name) {
                return Err(format!(
                    "{at}: name {name:?} is not a target name: 1 to 128 letters, digits, `_`, `-` or `.`, not `.` or `..` (it names the evidence folder)"
                ));
            }
            if seen.contains(&name) {
                return Err(format!(
                    "{at}: a second target named {name:?} (a target is named after its tool unless it sets name = \"...\"): give each its own name"
                ));
            }
            seen.push(name);
        }
        Ok(config)
    }

    /// The targets `names` asks for (`--target NAME`, repeatable), in the
    /// file's order; every target when `names` is empty.
    ///
    /// # Errors
    /// A name no target has (the message lists the names there are).
    pub fn named(&self, names: &[String]) -> Result<Vec<&TargetConfig>, String> {
        if let Some(missing) = names.iter().find(|name| {
            !self
                .target
                .iter()
                .any(|target| target.name() == name.as_str())
        }) {
            let have: Vec<&str> = self.target.iter().map(TargetConfig::name).collect();
            return Err(format!(
                "the config has no [[target]] named {missing:?} (it has: {})",
                have.join(", ")
            ));
        }
        Ok(self
            .target
            .iter()
            .filter(|target| names.is_empty() || names.iter().any(|name| name == target.name()))
            .collect())
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

impl TargetConfig {
    /// The target's name: `name`, else the tool's.
    pub fn name(&self) -> &str {
        self.name.as_deref().unwrap_or(&self.tool)
    }
}

/// Whether `name` can name a target: 1 to 128 of `A-Z a-z 0-9 _ - .` (MCP's
/// tool-name characters), and not `.` or `..` (it is a folder's name).
fn valid_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
        && name != "."
        && name != ".."
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

    /// An empty file is a config without targets: nothing to choose, said so
    /// (not "several targets").
    #[test]
    fn a_config_without_targets_says_it_has_none() {
        let config = ConfigFile::parse("# no target yet\n").expect("valid");
        assert_eq!(
            config.select(None).expect_err("no target"),
            "the config has no [[target]]"
        );
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

    #[test]
    fn targets_are_named_after_their_tool_unless_named() {
        let config = ConfigFile::parse(
            "[[target]]\ntool = \"book\"\n[[target]]\nname = \"book-porto\"\ntool = \"book\"\n[[target]]\ntool = \"pay\"\n",
        )
        .expect("valid");
        let names: Vec<&str> = config.target.iter().map(TargetConfig::name).collect();
        assert_eq!(names, ["book", "book-porto", "pay"]);
        let all: Vec<&str> = config
            .named(&[])
            .expect("all")
            .into_iter()
            .map(TargetConfig::name)
            .collect();
        assert_eq!(all, ["book", "book-porto", "pay"]);
        // The file's order, whatever the order asked.
        let two: Vec<&str> = config
            .named(&["pay".to_owned(), "book".to_owned()])
            .expect("two")
            .into_iter()
            .map(TargetConfig::name)
            .collect();
        assert_eq!(two, ["book", "pay"]);
        let error = config
            .named(&["porto".to_owned()])
            .expect_err("no such name");
        assert_eq!(
            error,
            "the config has no [[target]] named \"porto\" (it has: book, book-porto, pay)"
        );
    }

    #[test]
    fn names_are_unique_and_fit_a_folder() {
        let error = ConfigFile::parse("[[target]]\ntool = \"book\"\n[[target]]\ntool = \"book\"\n")
            .expect_err("two named book");
        assert!(
            error.starts_with("[[target]] #2: a second target named \"book\""),
            "{error}"
        );
        for bad in ["../up", "a b", "..", ""] {
            let text = format!("[[target]]\nname = {bad:?}\ntool = \"book\"\n");
            let error = ConfigFile::parse(&text).expect_err(bad);
            assert!(
                error.starts_with(&format!("[[target]] #1: name {bad:?} is not a target name")),
                "{bad}: {error}"
            );
        }
        let long = "n".repeat(129);
        assert!(
            ConfigFile::parse(&format!("[[target]]\nname = {long:?}\ntool = \"t\"\n")).is_err()
        );
        let fits = "n".repeat(128);
        assert!(ConfigFile::parse(&format!("[[target]]\nname = {fits:?}\ntool = \"t\"\n")).is_ok());
        assert!(ConfigFile::parse("[[target]]\nname = \"v1.2_a-b\"\ntool = \"t\"\n").is_ok());
    }
}
