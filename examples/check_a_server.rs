//! Checks one stdio MCP server's tool from a program of your own, as a
//! downstream crate's `#[test]` would (the library API of `check`).
//!
//! ```sh
//! cargo run --example check_a_server -- archive /acted python3 fixtures/servers/forms.py --form boolean
//! ```
//! Arguments: TOOL POINTER COMMAND...; exits 1 when a property fails.

use elicit_check::{Target, check};

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let (Some(tool), Some(pointer)) = (args.next(), args.next()) else {
        anyhow::bail!("usage: check_a_server TOOL POINTER COMMAND...");
    };
    let command: Vec<String> = args.collect();
    anyhow::ensure!(!command.is_empty(), "no server command");
    let report = check(
        Target::stdio(command)
            .tool(tool)
            .acted_pointer(pointer)
            .cases(30)
            .seed(1),
    )?;
    print!("{}", elicit_check::report::check::table(&report));
    for property in &report.properties {
        if let Some(failure) = &property.failure {
            eprintln!(
                "property {} fails on {}",
                property.property,
                failure
                    .answers
                    .first()
                    .map_or_else(|| "no answer".to_owned(), ToString::to_string)
            );
        }
    }
    std::process::exit(if report.passed { 0 } else { 1 });
}
