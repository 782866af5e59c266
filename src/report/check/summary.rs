//! `check --summary`: the report as Markdown for a CI job's summary page
//! (GitHub Actions' `$GITHUB_STEP_SUMMARY`): a heading with the tool and the
//! verdict, per era the property table and the health's notes, then each failed property with its
//! primary reason, its fix in the server's SDK, minimal answer and reproduction line. The same findings as
//! the table, the JSON and the SARIF.

use std::fmt::Write as _;

use super::baseline::Applied;
use crate::check::eras::{EraStatus, ErasReport, Outcome};

/// The Markdown summary of `report`: `## elicit-check check `TITLE`: PASSED`
/// (or `FAILED`, `INCONCLUSIVE`, `NOT COMPLETED`), the server, then per era its table and failures. `title`
/// is the tool, or the target's name when the check ran a config's targets.
/// With a baseline, the verdict is the check's with it, the rows it names
/// read [`Applied::verdict`], and its known failures and stale entries are
/// listed at the end.
pub fn markdown(report: &ErasReport, baseline: Option<&Applied>, title: &str) -> String {
    let mut out = String::new();
    let passed = baseline.map_or(report.passed, |applied| applied.passed);
    let verdict = match report.outcome {
        Outcome::Incomplete => "NOT COMPLETED",
        Outcome::Inconclusive => "INCONCLUSIVE",
        _ if passed && !report.eras.iter().any(|era| era.fails) => "PASSED",
        _ => "FAILED",
    };
    let _ = writeln!(out, "## elicit-check check `{title}`: {verdict}\n");
    let server = if report.server_command.is_empty() {
        format!(
            "the running server at `{}`",
            report.url.as_deref().unwrap_or_default()
        )
    } else {
        let command = crate::error::shell_words(&report.server_command);
        match &report.url {
            Some(url) => format!("`{command}` at `{url}`"),
            None => format!("`{command}`"),
        }
    };
    let _ = writeln!(out, "Server: {server}\n");
    if report.eras.iter().any(|era| era.report.is_some()) {
        let _ = writeln!(out, "SDK: {}\n", cell(&report.sdk.line()));
    }
    for era in &report.eras {
        let Some(checked) = &era.report else {
            let status = match era.status {
                EraStatus::CannotConfirm if era.fails => "the tool cannot be confirmed (FAILS)",
                EraStatus::CannotConfirm => "the tool cannot be confirmed (warning)",
                EraStatus::Incomplete => "NOT COMPLETED",
                EraStatus::Checked | EraStatus::NotChecked => "not checked",
            };
            let _ = writeln!(
                out,
                "### protocol {}: {status}\n\n{}\n",
                era.protocol,
                cell(&era.why)
            );
            continue;
        };
        let _ = writeln!(out, "### protocol {}\n", era.protocol);
        if let Some(line) = &checked.health.inconclusive {
            let _ = writeln!(out, "**Inconclusive**: {}\n", cell(line));
        }
        let _ = writeln!(out, "| # | property | cases | verdict |");
        let _ = writeln!(out, "|---|---|---|---|");
        for property in &checked.properties {
            let _ = writeln!(
                out,
                "| P{} | {} | {} | {} |",
                property.property,
                cell(property.statement),
                property.cases,
                baseline
                    .and_then(|applied| applied.verdict(property.property, checked.protocol))
                    .unwrap_or(property.verdict.word())
            );
        }
        out.push('\n');
        // What the health noted: a break a long-lived client meets, a cost.
        for note in &checked.health.notes {
            let _ = writeln!(out, "> note: {}\n", cell(note));
        }
        for property in &checked.properties {
            let Some(failure) = &property.failure else {
                continue;
            };
            let known = baseline.is_some_and(|applied| {
                applied.known(property.property, checked.protocol).is_some()
            });
            let _ = writeln!(
                out,
                "#### P{} fails{}: {}\n",
                property.property,
                if known {
                    " (known failure, baseline)"
                } else {
                    ""
                },
                cell(&failure.reason)
            );
            if !failure.fix.is_empty() {
                let _ = writeln!(
                    out,
                    "**Fix** ([{}]({})): {}\n",
                    failure.flaw.slug(),
                    failure.fix_url,
                    cell(&failure.fix)
                );
            }
            let answers: Vec<String> = failure.answers.iter().map(ToString::to_string).collect();
            let title = failure.answers_title();
            // A sentence's first word: the title starts with an ASCII letter.
            let title = format!("{}{}", title[..1].to_uppercase(), &title[1..]);
            if answers.is_empty() {
                let _ = writeln!(out, "{title}: none sent\n");
            } else {
                let _ = writeln!(out, "{title}:\n\n```json\n{}\n```\n", answers.join("\n"));
            }
            let _ = writeln!(out, "Reproduce:\n\n```sh\n{}\n```\n", failure.reproduce);
        }
    }
    if let Some(applied) = baseline {
        let _ = writeln!(out, "### Baseline `{}`\n", applied.file);
        for line in applied.lines() {
            let _ = writeln!(out, "- {}", cell(&line));
        }
        out.push('\n');
    }
    out
}

/// `text` on one line, with the characters a Markdown table cell or heading
/// reads as markup escaped (`|`).
pub(crate) fn cell(text: &str) -> String {
    text.replace(['\r', '\n'], " ").replace('|', "\\|")
}

#[cfg(test)]
mod tests {
    use super::cell;

    #[test]
    fn a_cell_stays_on_one_line_and_keeps_its_pipes_as_text() {
        assert_eq!(cell("a | b\nc"), "a \\| b c");
    }
}
