//! The guide's fixes are right: each before/after pair of `fixtures/fixes/`
//! (the code blocks of `docs/src/fixes/`) is a server on the SDK it names;
//! `check` fails the "before" on exactly the property its flaw breaks, names
//! that flaw and the SDK, and passes the "after", which differs only by the
//! fix.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::peers::{DELETE_RECORDS, environments};
use crate::support;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// An SDK of the fixtures: its folder under `fixtures/fixes/`, and the SDK
/// `check` should name (`sdk.sdk` in `--json`).
#[derive(Clone, Copy)]
enum Sdk {
    /// `python-sdk1/`, run with the `mcp` 1.x venv.
    Python1,
    /// `python-sdk2/`, run with the `mcp` 2.x venv.
    Python2,
    /// `fastmcp/`, run with the `fastmcp` venv.
    Fastmcp,
    /// `typescript/`, copied beside `@modelcontextprotocol/sdk` 1.x.
    Typescript1,
    /// `typescript-v2/`, copied beside `@modelcontextprotocol/server` 2.x.
    Typescript2,
}

impl Sdk {
    /// The server command of `fixtures/fixes/<folder>/<file>`.
    fn command(self, file: &str) -> Vec<String> {
        let environments = environments();
        let python = |venv: &str, folder: &str| {
            vec![
                environments
                    .join(venv)
                    .join("bin/python")
                    .display()
                    .to_string(),
                Path::new(ROOT)
                    .join("fixtures/fixes")
                    .join(folder)
                    .join(format!("{file}.py"))
                    .display()
                    .to_string(),
            ]
        };
        // Node resolves the SDK from beside the file: scripts/peers.sh copies
        // the fixtures into each environment's fixes/ folder.
        let node = |env: &str| {
            vec![
                "node".to_owned(),
                environments
                    .join(env)
                    .join("fixes")
                    .join(format!("{file}.mjs"))
                    .display()
                    .to_string(),
            ]
        };
        match self {
            Sdk::Python1 => python("python-sdk1", "python-sdk1"),
            Sdk::Python2 => python("python-sdk2", "python-sdk2"),
            Sdk::Fastmcp => python("fastmcp", "fastmcp"),
            Sdk::Typescript1 => node("node"),
            Sdk::Typescript2 => node("node-v2"),
        }
    }

    /// `sdk.sdk` of the report.
    fn named(self) -> &'static str {
        match self {
            Sdk::Python1 => "python-v1",
            Sdk::Python2 => "python-v2",
            Sdk::Fastmcp => "fastmcp",
            Sdk::Typescript1 => "typescript-v1",
            Sdk::Typescript2 => "typescript-v2",
        }
    }
}

/// `check --json` of the delete tool every fixture serves: `/deleted` says
/// it acted, `/confirm=true` is its consent; seed 1, 10 random cases.
fn check(command: &[String]) -> (Option<i32>, Value) {
    let output = support::run(
        Command::new(env!("CARGO_BIN_EXE_elicit-check"))
            .arg("check")
            .args(DELETE_RECORDS)
            .args(["--cases", "10", "--startup-timeout", "60", "--json", "--"])
            .args(command),
    );
    let report = serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
        panic!(
            "{error}: not a --json report:\n{}",
            support::printed(&output)
        )
    });
    (output.status.code(), report)
}

/// Each failed property of each era checked: (era, property, flaw).
fn failures(report: &Value) -> Vec<(String, u64, String)> {
    let mut found = Vec::new();
    for era in report["eras"].as_array().expect("eras") {
        let Some(properties) = era.pointer("/report/properties").and_then(Value::as_array) else {
            continue;
        };
        for property in properties {
            if let Some(failure) = property.get("failure").filter(|failure| !failure.is_null()) {
                found.push((
                    era["protocol"].as_str().unwrap_or_default().to_owned(),
                    property["property"].as_u64().unwrap_or_default(),
                    failure["flaw"].as_str().unwrap_or_default().to_owned(),
                ));
            }
        }
    }
    found
}

/// The pair `<stem>_before` / `<stem>_after` on `sdk`: the before fails
/// exactly `property` with `flaw` (in every era that fails), names the SDK,
/// and gives the fix's page; the after passes.
fn pair(sdk: Sdk, stem: &str, property: u64, flaw: &str) {
    let (code, before) = check(&sdk.command(&format!("{stem}_before")));
    let failed = failures(&before);
    assert_eq!(code, Some(1), "the before must fail:\n{before:#}");
    assert!(!failed.is_empty());
    for (era, broken, shown) in &failed {
        assert_eq!(
            (*broken, shown.as_str()),
            (property, flaw),
            "{stem}_before in {era}: {failed:?}"
        );
    }
    assert_eq!(before.pointer("/sdk/sdk"), Some(&Value::from(sdk.named())));
    let failure = before["eras"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|era| era.pointer("/report/properties"))
        .flat_map(|properties| properties.as_array().into_iter().flatten())
        .find_map(|property| property.get("failure").filter(|failure| !failure.is_null()))
        .expect("a failure");
    assert!(
        failure["fix_url"]
            .as_str()
            .is_some_and(|url| url.ends_with(&format!("/docs/src/fixes/{flaw}.md"))),
        "{failure:#}"
    );
    assert!(failure["fix"].as_str().is_some_and(|fix| !fix.is_empty()));

    let (code, after) = check(&sdk.command(&format!("{stem}_after")));
    assert_eq!(
        (code, failures(&after)),
        (Some(0), Vec::new()),
        "the after must pass:\n{after:#}"
    );
    assert_eq!(after.pointer("/sdk/sdk"), Some(&Value::from(sdk.named())));
}

#[test]
fn lax_coercion_on_the_python_sdk_1() {
    pair(Sdk::Python1, "lax_coercion", 2, "lax-coercion");
}

#[test]
fn lax_coercion_on_the_python_sdk_2() {
    pair(Sdk::Python2, "lax_coercion", 2, "lax-coercion");
}

#[test]
fn lax_coercion_on_fastmcp() {
    pair(Sdk::Fastmcp, "lax_coercion", 2, "lax-coercion");
}

#[test]
fn lax_coercion_on_the_typescript_sdk_1() {
    pair(Sdk::Typescript1, "lax_coercion", 2, "lax-coercion");
}

#[test]
fn unchecked_constraints_on_the_python_sdk_1() {
    pair(
        Sdk::Python1,
        "unchecked_constraints",
        2,
        "unchecked-constraints",
    );
}

#[test]
fn contentless_accept_on_the_typescript_sdk_1() {
    pair(
        Sdk::Typescript1,
        "contentless_accept",
        2,
        "contentless-accept",
    );
}

#[test]
fn acts_on_refusal_on_the_python_sdk_1() {
    pair(Sdk::Python1, "acts_on_refusal", 1, "acts-on-refusal");
}

#[test]
fn acts_on_refusal_on_the_typescript_sdk_1() {
    pair(Sdk::Typescript1, "acts_on_refusal", 1, "acts-on-refusal");
}

#[test]
fn consent_ignored_on_the_python_sdk_1() {
    pair(Sdk::Python1, "consent_ignored", 7, "consent-ignored");
}

#[test]
fn capability_not_checked_on_the_python_sdk_1() {
    pair(
        Sdk::Python1,
        "capability_not_checked",
        4,
        "capability-not-checked",
    );
}

#[test]
fn capability_not_checked_on_the_typescript_sdk_1() {
    pair(
        Sdk::Typescript1,
        "capability_not_checked",
        4,
        "capability-not-checked",
    );
}

#[test]
fn fail_open_on_the_python_sdk_1() {
    pair(Sdk::Python1, "fail_open", 7, "fail-open");
}

#[test]
fn acts_without_asking_on_the_typescript_sdk_2() {
    pair(
        Sdk::Typescript2,
        "acts_without_asking",
        7,
        "acts-without-asking",
    );
}

#[test]
fn unbound_state_on_the_typescript_sdk_2() {
    pair(Sdk::Typescript2, "unbound_state", 8, "unbound-state");
}

/// Every pair under `fixtures/fixes/`, as `<folder>/<stem>`: each has a test
/// above.
const PAIRS: [&str; 14] = [
    "fastmcp/lax_coercion",
    "python-sdk1/acts_on_refusal",
    "python-sdk1/capability_not_checked",
    "python-sdk1/consent_ignored",
    "python-sdk1/fail_open",
    "python-sdk1/lax_coercion",
    "python-sdk1/unchecked_constraints",
    "python-sdk2/lax_coercion",
    "typescript-v2/acts_without_asking",
    "typescript-v2/unbound_state",
    "typescript/acts_on_refusal",
    "typescript/capability_not_checked",
    "typescript/contentless_accept",
    "typescript/lax_coercion",
];

/// The lines of a fixture outside its fix: its leading comment or
/// docstring, its imports and its `ANCHOR` blocks (the code the guide
/// shows) left out.
fn outside_the_fix(text: &str) -> Vec<&str> {
    let mut lines = text.lines().peekable();
    // The leading docstring or comment says "before" or "after".
    if lines.peek().is_some_and(|line| line.starts_with("\"\"\"")) {
        let first = lines.next().unwrap_or_default();
        if first.matches("\"\"\"").count() < 2 {
            for line in lines.by_ref() {
                if line.trim_end().ends_with("\"\"\"") {
                    break;
                }
            }
        }
    }
    while lines.peek().is_some_and(|line| line.starts_with("//")) {
        lines.next();
    }
    let mut kept = Vec::new();
    let mut in_anchor = false;
    while let Some(line) = lines.next() {
        if line.contains("ANCHOR_END: ") {
            in_anchor = false;
            continue;
        }
        if line.contains("ANCHOR: ") {
            in_anchor = true;
            continue;
        }
        if in_anchor {
            continue;
        }
        if line.starts_with("import ") || line.starts_with("from ") {
            // An import over several lines: `from x import (` .. `)`, or
            // `import {` .. `} from "x";`.
            let open = (line.trim_end().ends_with('(') && !line.contains(')'))
                || (line.contains('{') && !line.contains('}'));
            if open {
                for rest in lines.by_ref() {
                    let rest = rest.trim_end();
                    if rest.ends_with(')') || rest.ends_with(';') {
                        break;
                    }
                }
            }
            continue;
        }
        kept.push(line);
    }
    kept
}

#[test]
fn each_after_differs_from_its_before_only_in_the_lines_the_guide_shows() {
    let root = Path::new(ROOT).join("fixtures/fixes");
    let mut found = Vec::new();
    for folder in std::fs::read_dir(&root).expect("fixtures/fixes") {
        let folder = folder.expect("an entry").path();
        for file in std::fs::read_dir(&folder).expect("a folder") {
            let file = file.expect("an entry").path();
            let name = file
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            if let Some((stem, _)) = name.split_once("_before.") {
                let folder = folder.file_name().unwrap_or_default().to_string_lossy();
                found.push((format!("{folder}/{stem}"), file.clone()));
            }
        }
    }
    found.sort();
    let names: Vec<&str> = found.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(names, PAIRS, "every pair has its test, every test its pair");
    for (name, before) in &found {
        let after = before.to_string_lossy().replace("_before.", "_after.");
        let before = std::fs::read_to_string(before).expect("the before");
        let after = std::fs::read_to_string(&after).expect("the after");
        assert!(
            before.contains("ANCHOR: fix") && after.contains("ANCHOR: fix"),
            "{name}"
        );
        assert_eq!(
            outside_the_fix(&before),
            outside_the_fix(&after),
            "{name}: the after changes lines outside its anchors"
        );
        assert_ne!(before, after, "{name}");
    }
}

#[test]
fn outside_the_fix_leaves_out_the_header_imports_and_anchors_only() {
    let python = "\"\"\"Doc\nmore.\n\"\"\"\nfrom a import (\n    b,\n)\nimport c\nx = 1\n# ANCHOR: fix\ny = 2\n# ANCHOR_END: fix\nz = 3\n";
    assert_eq!(outside_the_fix(python), ["x = 1", "z = 3"]);
    let js = "// Doc\n// more\nimport {\n  a,\n} from \"b\";\nimport c from \"c\";\nconst x = 1;\n// ANCHOR: state\nconst y = 2;\n// ANCHOR_END: state\nconst z = 3;\n";
    assert_eq!(outside_the_fix(js), ["const x = 1;", "const z = 3;"]);
}

#[test]
fn the_guide_includes_every_pair_by_an_anchor_its_file_has() {
    let pages = Path::new(ROOT).join("docs/src/fixes");
    let mut included = Vec::new();
    for page in std::fs::read_dir(&pages).expect("docs/src/fixes") {
        let page = page.expect("an entry").path();
        let text = std::fs::read_to_string(&page).expect("a page");
        for include in text.split("{{#include ").skip(1) {
            let target = include.split("}}").next().unwrap_or_default();
            let (path, anchor) = target.rsplit_once(':').expect("PATH:ANCHOR");
            let file = pages.join(path);
            let code = std::fs::read_to_string(&file)
                .unwrap_or_else(|error| panic!("{}: {path}: {error}", page.display()));
            assert!(
                code.contains(&format!("ANCHOR: {anchor}\n"))
                    && code.contains(&format!("ANCHOR_END: {anchor}\n")),
                "{}: {path} has no anchor {anchor}",
                page.display()
            );
            included.push(
                path.trim_start_matches("../../../fixtures/fixes/")
                    .to_owned(),
            );
        }
    }
    for pair in PAIRS {
        for side in ["before", "after"] {
            assert!(
                included
                    .iter()
                    .any(|path| path.starts_with(&format!("{pair}_{side}."))),
                "no page shows {pair}_{side}"
            );
        }
    }
}
