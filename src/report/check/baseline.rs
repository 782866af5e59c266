//! `check --baseline FILE`: the known failures of a target, as a TOML list a
//! project commits beside its config (as the MCP conformance suite's
//! expected-failures list):
//!
//! ```toml
//! [[known]]
//! tool = "trigger-elicitation-request"
//! property = "P2"
//! era = "2025-11-25"          # optional: every era when absent
//! reason = "upstream: acts on an accept whose content is invalid"
//! ```
//!
//! A failed property a `known` entry names does not fail the check (it is
//! reported as known, with its reason); an entry whose property now holds
//! fails the check as stale, so the file cannot rot. Entries naming another
//! tool are left out with a warning (they belong to another target).

use serde::{Deserialize, Serialize};

use crate::check::PropertyVerdict;
use crate::check::eras::ErasReport;

/// The verdict of a failed property the baseline lists, in the table, the
/// summary and the JUnit message.
pub const KNOWN_VERDICT: &str = "known failure (baseline)";

/// The verdict of a property that holds although the baseline lists it.
pub const STALE_VERDICT: &str = "holds: stale baseline entry";

/// The eras an entry may name.
const ERAS: [&str; 2] = ["2025-11-25", "2026-07-28"];

/// One known failure.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Known {
    /// The target's tool.
    pub tool: String,
    /// The config target's name (`[[target]]`'s `name`): the entry then
    /// speaks of that target only, not of every target of its tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// `P1` to `P8`.
    pub property: String,
    /// `2025-11-25` or `2026-07-28`; none: every era checked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub era: Option<String>,
    /// Why it is known (required: a reader must learn why it is allowed).
    pub reason: String,
}

/// A baseline file.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Baseline {
    /// Its entries.
    #[serde(default)]
    pub known: Vec<Known>,
}

/// A property of one era, as a baseline speaks of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Listed {
    /// 1 to 8.
    pub property: u8,
    /// The era it was judged in.
    pub protocol: &'static str,
    /// The entry's reason (empty for a failure no entry lists).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub reason: String,
}

/// What a baseline made of a check, for the table, the JSON, the SARIF and
/// the exit code.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Applied {
    /// The file, as given.
    pub file: String,
    /// Failed properties the baseline lists, with its reason.
    pub known: Vec<Listed>,
    /// Entries whose property holds now.
    pub stale: Vec<Listed>,
    /// Failed properties it does not list.
    pub new_failures: Vec<Listed>,
    /// Whether the check passes with the baseline: no new failure, no stale entry.
    pub passed: bool,
}

impl Applied {
    /// The lines printed under the table: one [`Applied::known_line`] per
    /// known failure, then one [`Applied::stale_line`] per stale entry.
    pub fn lines(&self) -> Vec<String> {
        let known = self.known.iter().map(|listed| self.known_line(listed));
        let stale = self.stale.iter().map(|listed| self.stale_line(listed));
        known.chain(stale).collect()
    }

    /// `known failure (baseline FILE): P2 in 2025-11-25: REASON`.
    pub fn known_line(&self, listed: &Listed) -> String {
        format!(
            "known failure (baseline {}): P{} in {}: {}",
            self.file, listed.property, listed.protocol, listed.reason
        )
    }

    /// `stale baseline entry: P2 holds in 2025-11-25; remove its entry from FILE`.
    pub fn stale_line(&self, listed: &Listed) -> String {
        format!(
            "stale baseline entry: P{} holds in {}; remove its entry from {}",
            listed.property, listed.protocol, self.file
        )
    }

    /// The entry listing property `property` of era `protocol` as known, if any.
    pub fn known(&self, property: u8, protocol: &str) -> Option<&Listed> {
        self.known
            .iter()
            .find(|listed| listed.property == property && listed.protocol == protocol)
    }

    /// The entry listing property `property` of era `protocol` that is stale
    /// (the property holds), if any.
    pub fn stale_entry(&self, property: u8, protocol: &str) -> Option<&Listed> {
        self.stale
            .iter()
            .find(|listed| listed.property == property && listed.protocol == protocol)
    }

    /// The verdict a property's row shows under the baseline, in place of
    /// its own: [`KNOWN_VERDICT`] for a known failure, [`STALE_VERDICT`] for
    /// a stale entry; none when no entry names it.
    pub fn verdict(&self, property: u8, protocol: &str) -> Option<&'static str> {
        if self.known(property, protocol).is_some() {
            Some(KNOWN_VERDICT)
        } else if self.stale_entry(property, protocol).is_some() {
            Some(STALE_VERDICT)
        } else {
            None
        }
    }
}

impl Baseline {
    /// Reads and checks `text` (the file `file`): TOML with `[[known]]`
    /// entries, each naming a property `P1` to `P8`, an era of the two or none,
    /// and a non-empty reason.
    ///
    /// # Errors
    /// The TOML error (with its line), or the entry that is not valid and why.
    pub fn parse(text: &str, file: &str) -> Result<Baseline, String> {
        let baseline: Baseline =
            toml::from_str(text).map_err(|error| format!("baseline {file}: {error}"))?;
        for (index, known) in baseline.known.iter().enumerate() {
            let at = format!("baseline {file}: [[known]] #{}", index + 1);
            if property_number(&known.property).is_none() {
                return Err(format!(
                    "{at}: property {:?} is none of P1 to P8",
                    known.property
                ));
            }
            if let Some(era) = &known.era
                && !ERAS.contains(&era.as_str())
            {
                return Err(format!(
                    "{at}: era {era:?} is neither {}",
                    ERAS.join(" nor ")
                ));
            }
            if known.reason.trim().is_empty() {
                return Err(format!("{at}: give the reason it is known"));
            }
        }
        Ok(baseline)
    }

    /// The entries that speak of the target named `name` (none: a target
    /// from the command line, not a config's): those naming no target, and
    /// those naming it.
    pub fn for_target(&self, name: Option<&str>) -> Baseline {
        Baseline {
            known: self
                .known
                .iter()
                .filter(|known| known.target.is_none() || known.target.as_deref() == name)
                .cloned()
                .collect(),
        }
    }

    /// The entries naming another tool than `tool`.
    pub fn other_tools(&self, tool: &str) -> Vec<&Known> {
        self.known
            .iter()
            .filter(|known| known.tool != tool)
            .collect()
    }

    /// Applies the baseline to `report` (read from `file`).
    pub fn apply(&self, report: &ErasReport, file: &str) -> Applied {
        let mut applied = Applied {
            file: file.to_owned(),
            ..Applied::default()
        };
        for era in &report.eras {
            let Some(checked) = &era.report else {
                continue;
            };
            let entries: Vec<&Known> = self
                .known
                .iter()
                .filter(|known| known.tool == report.tool)
                .filter(|known| {
                    known
                        .era
                        .as_deref()
                        .is_none_or(|named| named == era.protocol)
                })
                .collect();
            for property in &checked.properties {
                let entry = entries
                    .iter()
                    .find(|known| property_number(&known.property) == Some(property.property));
                let listed = |reason: &str| Listed {
                    property: property.property,
                    protocol: era.protocol,
                    reason: reason.to_owned(),
                };
                match (property.verdict, entry) {
                    (PropertyVerdict::Fails, Some(known)) => {
                        applied.known.push(listed(&known.reason));
                    }
                    (PropertyVerdict::Fails, None) => applied.new_failures.push(listed("")),
                    (PropertyVerdict::Holds, Some(known)) => {
                        applied.stale.push(listed(&known.reason));
                    }
                    _ => {}
                }
            }
        }
        applied.passed = applied.new_failures.is_empty() && applied.stale.is_empty();
        applied
    }
}

/// `P2` → 2, for `P1` to `P8`.
fn property_number(id: &str) -> Option<u8> {
    let number: u8 = id.strip_prefix('P')?.parse().ok()?;
    (1..=8).contains(&number).then_some(number)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::check::eras::EraCheck;
    use crate::check::{CheckReport, PropertyReport};

    /// A report of tool `book` with these verdicts per era (`passed` false).
    pub(crate) fn report(verdicts: &[(&'static str, [PropertyVerdict; 8])]) -> ErasReport {
        let eras = verdicts
            .iter()
            .map(|(protocol, verdicts)| EraCheck {
                protocol,
                checked: true,
                status: crate::check::eras::EraStatus::Checked,
                why: String::new(),
                fails: false,
                report: Some(CheckReport {
                    elicit_check_version: "0",
                    server_command: Vec::new(),
                    url: None,
                    tool: "book".into(),
                    acted: String::new(),
                    seed: 0,
                    cases: 0,
                    coverage_cases: 0,
                    coverage_fields: Vec::new(),
                    consent_fields: Vec::new(),
                    mode: "session",
                    protocol,
                    strict: false,
                    sdk: crate::fix::sdk::SdkGuess::unknown("a report made by hand"),
                    passed: false,
                    requested_schemas: Vec::new(),
                    schema_warnings: Vec::new(),
                    reclassified: 0,
                    health: crate::verdict::check::health::Health::default(),
                    properties: verdicts
                        .iter()
                        .enumerate()
                        .map(|(index, verdict)| PropertyReport {
                            property: index as u8 + 1,
                            statement: "",
                            cases: 1,
                            verdict: *verdict,
                            planned: None,
                            warnings: Vec::new(),
                            failure: None,
                            findings: Vec::new(),
                        })
                        .collect(),
                }),
            })
            .collect();
        ErasReport {
            elicit_check_version: "0",
            server_command: Vec::new(),
            url: None,
            tool: "book".into(),
            protocol: "both".into(),
            passed: false,
            outcome: crate::check::eras::Outcome::Failed,
            sdk: crate::fix::sdk::SdkGuess::unknown("a report made by hand"),
            eras,
        }
    }

    use PropertyVerdict::{Fails as F, Holds as H, Untested as U};

    pub(crate) const P2_FAILS: [PropertyVerdict; 8] = [H, F, H, H, H, U, H, U];
    pub(crate) const ALL_HOLD: [PropertyVerdict; 8] = [H, H, H, H, H, U, H, U];

    #[test]
    fn an_entry_naming_a_target_speaks_of_that_target_only() {
        let baseline = Baseline::parse(
            "[[known]]\ntool = \"book\"\nproperty = \"P2\"\nreason = \"all\"\n\
             [[known]]\ntool = \"book\"\ntarget = \"book-porto\"\nproperty = \"P1\"\nreason = \"porto\"\n",
            "b.toml",
        )
        .expect("valid");
        let reasons = |name: Option<&str>| -> Vec<String> {
            baseline
                .for_target(name)
                .known
                .into_iter()
                .map(|known| known.reason)
                .collect()
        };
        assert_eq!(reasons(Some("book-porto")), ["all", "porto"]);
        assert_eq!(reasons(Some("book")), ["all"]);
        assert_eq!(reasons(None), ["all"]);
    }

    #[test]
    fn a_listed_failure_is_known_and_an_unlisted_one_is_new() {
        let baseline = Baseline::parse(
            "[[known]]\ntool = \"book\"\nproperty = \"P2\"\nreason = \"upstream bug\"\n",
            "b.toml",
        )
        .expect("valid");
        let applied = baseline.apply(&report(&[("2025-11-25", P2_FAILS)]), "b.toml");
        assert_eq!(
            applied.lines(),
            ["known failure (baseline b.toml): P2 in 2025-11-25: upstream bug"]
        );
        assert!(applied.known(2, "2025-11-25").is_some());
        assert!(applied.known(2, "2026-07-28").is_none());
        assert!(applied.known(1, "2025-11-25").is_none());
        assert_eq!(
            applied.verdict(2, "2025-11-25"),
            Some("known failure (baseline)")
        );
        assert_eq!(applied.verdict(2, "2026-07-28"), None);
        assert_eq!(applied.verdict(1, "2025-11-25"), None);
        assert!(applied.new_failures.is_empty() && applied.stale.is_empty());
        assert!(applied.passed);
        let empty = Baseline::default().apply(&report(&[("2025-11-25", P2_FAILS)]), "b.toml");
        assert_eq!(
            empty.new_failures,
            [Listed {
                property: 2,
                protocol: "2025-11-25",
                reason: String::new()
            }]
        );
        assert!(!empty.passed);
    }

    #[test]
    fn an_entry_whose_property_holds_is_stale() {
        let baseline = Baseline::parse(
            "[[known]]\ntool = \"book\"\nproperty = \"P2\"\nreason = \"upstream bug\"\n",
            "b.toml",
        )
        .expect("valid");
        let applied = baseline.apply(&report(&[("2025-11-25", ALL_HOLD)]), "b.toml");
        assert_eq!(
            applied.lines(),
            ["stale baseline entry: P2 holds in 2025-11-25; remove its entry from b.toml"]
        );
        assert!(applied.known.is_empty());
        assert_eq!(
            applied.verdict(2, "2025-11-25"),
            Some("holds: stale baseline entry")
        );
        assert!(applied.stale_entry(2, "2026-07-28").is_none());
        assert!(!applied.passed);
    }

    #[test]
    fn an_entry_with_an_era_applies_to_that_era_only() {
        let baseline = Baseline::parse(
            "[[known]]\ntool = \"book\"\nproperty = \"P2\"\nera = \"2026-07-28\"\nreason = \"r\"\n",
            "b.toml",
        )
        .expect("valid");
        let applied = baseline.apply(
            &report(&[("2025-11-25", P2_FAILS), ("2026-07-28", P2_FAILS)]),
            "b.toml",
        );
        assert_eq!(
            applied.lines(),
            ["known failure (baseline b.toml): P2 in 2026-07-28: r"]
        );
        assert_eq!(applied.new_failures.len(), 1);
        assert_eq!(applied.new_failures[0].protocol, "2025-11-25");
        assert!(!applied.passed);

        // Holding in its era, it is stale there; the other era's failure is new.
        let applied = baseline.apply(
            &report(&[("2025-11-25", P2_FAILS), ("2026-07-28", ALL_HOLD)]),
            "b.toml",
        );
        assert_eq!(
            applied.lines(),
            ["stale baseline entry: P2 holds in 2026-07-28; remove its entry from b.toml"]
        );
        assert_eq!(applied.verdict(2, "2025-11-25"), None);
        assert_eq!(applied.new_failures.len(), 1);

        // An era the check did not run leaves the entry neither known nor stale.
        let applied = baseline.apply(&report(&[("2025-11-25", ALL_HOLD)]), "b.toml");
        assert_eq!(applied.lines(), Vec::<String>::new());
        assert!(applied.passed);
    }

    #[test]
    fn an_entry_for_another_tool_applies_to_none_of_this_one() {
        let baseline = Baseline::parse(
            "[[known]]\ntool = \"refund\"\nproperty = \"P2\"\nreason = \"r\"\n",
            "b.toml",
        )
        .expect("valid");
        assert_eq!(baseline.other_tools("book").len(), 1);
        let applied = baseline.apply(&report(&[("2025-11-25", ALL_HOLD)]), "b.toml");
        assert_eq!(
            applied,
            Applied {
                file: "b.toml".into(),
                passed: true,
                ..Applied::default()
            }
        );
    }

    #[test]
    fn a_bad_file_is_refused_naming_what_is_wrong() {
        let refused = |text: &str| Baseline::parse(text, "b.toml").expect_err("refused");
        assert_eq!(
            refused("[[known]]\ntool = \"book\"\nproperty = \"P9\"\nreason = \"r\"\n"),
            "baseline b.toml: [[known]] #1: property \"P9\" is none of P1 to P8"
        );
        assert_eq!(
            refused("[[known]]\ntool = \"book\"\nproperty = \"P0\"\nreason = \"r\"\n"),
            "baseline b.toml: [[known]] #1: property \"P0\" is none of P1 to P8"
        );
        assert_eq!(
            refused(
                "[[known]]\ntool = \"book\"\nproperty = \"P2\"\nera = \"2025-06-18\"\nreason = \"r\"\n"
            ),
            "baseline b.toml: [[known]] #1: era \"2025-06-18\" is neither 2025-11-25 nor 2026-07-28"
        );
        assert_eq!(
            refused("[[known]]\ntool = \"book\"\nproperty = \"P2\"\nreason = \" \"\n"),
            "baseline b.toml: [[known]] #1: give the reason it is known"
        );
        let syntax = refused("[[known]\n");
        assert!(
            syntax.starts_with("baseline b.toml: TOML parse error at line 1"),
            "{syntax}"
        );
        let missing = refused("[[known]]\ntool = \"book\"\nproperty = \"P2\"\n");
        assert!(missing.contains("missing field `reason`"), "{missing}");
    }
}
