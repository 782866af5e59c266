//! One target's report joined from the reports of its case slices (`check
//! --shard K/N` of a config with one target, then `elicit-check merge`): per
//! era and property, the verdict is the worst of the slices' (a property fails
//! when it fails in any slice, holds when it holds in one and fails in none,
//! else is untested), the calls it applied to are summed, the warnings are
//! gathered once each, the findings of one answer class are added up, and the
//! failure shown is the first slice's that has one.
//!
//! Each slice judged the probe's calls (so each knows the tool acts), which
//! the joined counts hold once per slice; slice 1 alone ran the capability
//! sessions, the planted reply and the retries ([`crate::check::Target::shard`]).
//! The reports are the JSON `check --json` prints
//! (schemas/check-report.schema.json).

use serde_json::Value;

/// The report joined from `slices` (in slice order, at least one).
///
/// # Errors
/// A report without `eras`, or an era's report without `properties`.
pub fn join(slices: &[&Value]) -> Result<Value, String> {
    let Some((first, rest)) = slices.split_first() else {
        return Err("no report to join".to_owned());
    };
    let mut joined = (*first).clone();
    for other in rest {
        join_into(&mut joined, other)?;
    }
    Ok(joined)
}

/// Adds `other`'s eras to `joined`.
fn join_into(joined: &mut Value, other: &Value) -> Result<(), String> {
    let other_eras = other["eras"]
        .as_array()
        .ok_or("a slice's report has no eras")?;
    let passed = joined["passed"].as_bool().unwrap_or(false) && other["passed"] == true;
    let eras = joined["eras"]
        .as_array_mut()
        .ok_or("a slice's report has no eras")?;
    for other_era in other_eras {
        match eras
            .iter_mut()
            .find(|era| era["protocol"] == other_era["protocol"])
        {
            None => eras.push(other_era.clone()),
            Some(era) => match (era["report"].is_object(), other_era["report"].is_object()) {
                (false, true) => *era = other_era.clone(),
                (true, true) => join_era(&mut era["report"], &other_era["report"])?,
                _ => {}
            },
        }
    }
    let outcome = outcome(eras);
    joined["outcome"] = Value::from(outcome);
    joined["passed"] = Value::Bool(passed && outcome == "passed");
    Ok(())
}

/// The outcome of the joined `eras`, as [`crate::check::eras::ErasReport::outcome_of`]
/// gives it: `incomplete`, `inconclusive`, `failed` or `passed`, the worst.
fn outcome(eras: &[Value]) -> &'static str {
    let worst = eras
        .iter()
        .map(|era| {
            if era["status"] == "incomplete" {
                3
            } else if !era["report"]["health"]["inconclusive"].is_null()
                && era["report"].is_object()
            {
                2
            } else if (era["report"].is_object() && era["report"]["passed"] != true)
                || era["fails"] == true
            {
                1
            } else {
                0
            }
        })
        .max()
        .unwrap_or(0);
    ["passed", "failed", "inconclusive", "incomplete"][worst]
}

/// Adds `other`'s health to the era health `joined`: the counts summed, the
/// calls that never reached the tool and the notes gathered, and the era
/// inconclusive when most of the planned cases of all slices never reached
/// the form (the first slice's line saying why).
fn join_health(joined: &mut Value, other: &Value) {
    for key in [
        "planned",
        "ran",
        "reached_form",
        "ignored_stdin_close",
        "stopped_by_check",
    ] {
        add(&mut joined[key], &other[key]);
    }
    for key in ["never_reached_tool", "acted_before_call", "notes"] {
        if let (Some(mine), Some(more)) = (joined[key].as_array_mut(), other[key].as_array()) {
            for item in more {
                if !mine.contains(item) {
                    mine.push(item.clone());
                }
            }
        }
    }
    let planned = joined["planned"].as_u64().unwrap_or(0);
    let reached = joined["reached_form"].as_u64().unwrap_or(0);
    let line = [&joined["inconclusive"], &other["inconclusive"]]
        .into_iter()
        .find(|line| !line.is_null())
        .cloned();
    // Fewer than half reached the form (never when nothing was planned).
    match (reached * 2 < planned, line) {
        (true, Some(line)) => joined["inconclusive"] = line,
        (true, None) => {
            joined["inconclusive"] = Value::from(format!(
                "{reached} of {planned} planned cases reached the form"
            ));
        }
        (false, _) => {
            if let Some(health) = joined.as_object_mut() {
                health.remove("inconclusive");
            }
        }
    }
}

/// Adds `other`'s counts and properties to the era report `joined`.
fn join_era(joined: &mut Value, other: &Value) -> Result<(), String> {
    for key in ["cases", "coverage_cases", "reclassified"] {
        add(&mut joined[key], &other[key]);
    }
    join_health(&mut joined["health"], &other["health"]);
    let inconclusive = !joined["health"]["inconclusive"].is_null();
    joined["passed"] =
        Value::Bool(joined["passed"] == true && other["passed"] == true && !inconclusive);
    let other_properties = other["properties"]
        .as_array()
        .ok_or("an era's report has no properties")?;
    let properties = joined["properties"]
        .as_array_mut()
        .ok_or("an era's report has no properties")?;
    for other_property in other_properties {
        match properties
            .iter_mut()
            .find(|property| property["property"] == other_property["property"])
        {
            Some(property) => join_property(property, other_property),
            None => properties.push(other_property.clone()),
        }
    }
    // Holding on the cases that ran is "holds" only in a conclusive era.
    for property in properties.iter_mut() {
        if rank(&property["verdict"]) == 1 {
            property["verdict"] = Value::from(if inconclusive {
                "inconclusive"
            } else {
                "holds"
            });
        }
    }
    Ok(())
}

/// The rank of a verdict word: fails over holds (or inconclusive, held on
/// the cases that ran) over untested.
fn rank(verdict: &Value) -> u8 {
    match verdict.as_str() {
        Some("fails") => 2,
        Some("holds" | "inconclusive") => 1,
        _ => 0,
    }
}

/// Adds `other` (one property in another slice) to `joined`.
fn join_property(joined: &mut Value, other: &Value) {
    let worst = [&joined["verdict"], &other["verdict"]]
        .into_iter()
        .max_by_key(|verdict| rank(verdict))
        .cloned()
        .unwrap_or_default();
    joined["verdict"] = worst;
    add(&mut joined["cases"], &other["cases"]);
    match (joined["planned"].is_object(), other["planned"].is_object()) {
        (true, true) => {
            add(&mut joined["planned"]["cases"], &other["planned"]["cases"]);
            add(
                &mut joined["planned"]["judged"],
                &other["planned"]["judged"],
            );
        }
        (false, true) => joined["planned"] = other["planned"].clone(),
        _ => {}
    }
    if joined["failure"].is_null() && !other["failure"].is_null() {
        joined["failure"] = other["failure"].clone();
    }
    if let (Some(warnings), Some(more)) = (
        joined["warnings"].as_array_mut(),
        other["warnings"].as_array(),
    ) {
        for warning in more {
            if !warnings.contains(warning) {
                warnings.push(warning.clone());
            }
        }
    }
    if let (Some(findings), Some(more)) = (
        joined["findings"].as_array_mut(),
        other["findings"].as_array(),
    ) {
        for finding in more {
            match findings
                .iter_mut()
                .find(|known| known["answer_class"] == finding["answer_class"])
            {
                Some(known) => {
                    add(&mut known["acted"], &finding["acted"]);
                    add(&mut known["of"], &finding["of"]);
                }
                None => findings.push(finding.clone()),
            }
        }
    }
}

/// `total += more`, for whole counts.
fn add(total: &mut Value, more: &Value) {
    let sum = total.as_u64().unwrap_or(0) + more.as_u64().unwrap_or(0);
    *total = Value::from(sum);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn property(number: u8, verdict: &str, cases: u64) -> Value {
        json!({
            "property": number, "statement": "", "cases": cases, "verdict": verdict,
            "warnings": [], "failure": null, "findings": [],
        })
    }

    fn report(passed: bool, properties: Vec<Value>) -> Value {
        json!({
            "passed": passed,
            "eras": [{
                "protocol": "2025-11-25", "checked": true, "why": "",
                "report": {
                    "passed": passed, "cases": 3, "coverage_cases": 10, "reclassified": 1,
                    "properties": properties,
                },
            }],
        })
    }

    #[test]
    fn a_property_takes_the_worst_verdict_and_the_summed_calls() {
        let one = report(
            true,
            vec![
                property(1, "holds", 4),
                property(4, "holds", 2),
                property(6, "untested", 0),
            ],
        );
        let mut failing = property(1, "fails", 5);
        failing["failure"] = json!({"reason": "acted although the answer was decline"});
        failing["warnings"] = json!(["w"]);
        failing["findings"] =
            json!([{"answer_class": "decline", "acted": 1, "of": 2, "smallest": "{}"}]);
        let two = report(
            false,
            vec![
                failing,
                property(4, "untested", 0),
                property(6, "untested", 0),
            ],
        );
        let joined = join(&[&one, &two]).expect("joined");
        assert_eq!(joined["passed"], false);
        let era = &joined["eras"][0]["report"];
        assert_eq!(era["passed"], false);
        assert_eq!(
            (
                era["cases"].clone(),
                era["coverage_cases"].clone(),
                era["reclassified"].clone()
            ),
            (json!(6), json!(20), json!(2))
        );
        let verdicts: Vec<(&Value, &Value)> = era["properties"]
            .as_array()
            .expect("properties")
            .iter()
            .map(|property| (&property["verdict"], &property["cases"]))
            .collect();
        assert_eq!(
            verdicts,
            [
                (&json!("fails"), &json!(9)),
                (&json!("holds"), &json!(2)),
                (&json!("untested"), &json!(0))
            ]
        );
        let p1 = &era["properties"][0];
        assert_eq!(
            p1["failure"]["reason"],
            "acted although the answer was decline"
        );
        assert_eq!(p1["warnings"], json!(["w"]));
        assert_eq!(p1["findings"][0]["of"], 2);

        // Joined the other way: the first slice's failure stays, counts add up.
        let mut three = two.clone();
        three["eras"][0]["report"]["properties"][0]["failure"] = json!({"reason": "later"});
        let joined = join(&[&two, &three]).expect("joined");
        let p1 = &joined["eras"][0]["report"]["properties"][0];
        assert_eq!(
            p1["failure"]["reason"],
            "acted although the answer was decline"
        );
        assert_eq!(p1["warnings"], json!(["w"]));
        assert_eq!(
            p1["findings"],
            json!([{"answer_class": "decline", "acted": 2, "of": 4, "smallest": "{}"}])
        );
        assert_eq!(p1["cases"], 10);
    }

    #[test]
    fn a_property_one_slice_did_not_test_takes_the_others_verdict() {
        let one = report(
            true,
            vec![property(3, "untested", 0), property(4, "holds", 2)],
        );
        let two = report(
            true,
            vec![property(3, "holds", 1), property(4, "untested", 0)],
        );
        for (first, second) in [(&one, &two), (&two, &one)] {
            let joined = join(&[first, second]).expect("joined");
            let era = &joined["eras"][0]["report"];
            assert_eq!(era["passed"], true);
            assert_eq!(joined["passed"], true);
            let verdicts: Vec<&Value> = era["properties"]
                .as_array()
                .expect("properties")
                .iter()
                .map(|property| &property["verdict"])
                .collect();
            assert_eq!(verdicts, [&json!("holds"), &json!("holds")]);
        }
    }

    #[test]
    fn the_planned_cases_of_a_property_are_summed_over_the_slices_that_planned_some() {
        let planned = |number: u8, cases: u64, judged: u64| {
            let mut line = property(number, "holds", judged);
            line["planned"] = json!({"cases": cases, "judged": judged});
            line
        };
        let first = report(true, vec![planned(1, 3, 2), property(2, "holds", 1)]);
        let second = report(true, vec![planned(1, 2, 1), planned(2, 4, 4)]);
        // Property 1 planned in both slices: summed. Property 2 planned in one
        // only: that slice's count, whichever comes first.
        for (one, two) in [(&first, &second), (&second, &first)] {
            let joined = join(&[one, two]).expect("joined");
            let planned: Vec<&Value> = joined["eras"][0]["report"]["properties"]
                .as_array()
                .expect("properties")
                .iter()
                .map(|line| &line["planned"])
                .collect();
            assert_eq!(
                planned,
                [
                    &json!({"cases": 5, "judged": 3}),
                    &json!({"cases": 4, "judged": 4})
                ]
            );
        }
    }

    #[test]
    fn two_passing_slices_pass_and_an_era_only_one_checked_is_kept() {
        let one = report(true, vec![property(1, "holds", 1)]);
        let mut two = report(true, vec![property(1, "holds", 1)]);
        two["eras"][0]["protocol"] = json!("2026-07-28");
        let joined = join(&[&one, &two]).expect("joined");
        assert_eq!(joined["passed"], true);
        let eras: Vec<&Value> = joined["eras"]
            .as_array()
            .expect("eras")
            .iter()
            .map(|era| &era["protocol"])
            .collect();
        assert_eq!(eras, [&json!("2025-11-25"), &json!("2026-07-28")]);
        let mut unchecked = one.clone();
        unchecked["eras"][0]["report"] = Value::Null;
        let joined = join(&[&unchecked, &one]).expect("joined");
        assert_eq!(joined["eras"][0]["report"]["cases"], 3);
        assert!(join(&[&one, &json!({"passed": true})]).is_err());
        assert!(join(&[]).is_err());
    }

    /// An era report of one slice with this health.
    fn with_health(passed: bool, health: Value) -> Value {
        let mut slice = report(passed, vec![property(1, "holds", 2)]);
        slice["eras"][0]["report"]["health"] = health;
        slice
    }

    fn health(planned: u64, reached: u64, inconclusive: Option<&str>) -> Value {
        let mut health = json!({
            "planned": planned, "ran": planned, "reached_form": reached,
            "ignored_stdin_close": 1, "stopped_by_check": 0,
            "never_reached_tool": ["P4 without form"], "acted_before_call": [],
            "notes": ["the tool was listed"],
        });
        if let Some(line) = inconclusive {
            health["inconclusive"] = json!(line);
        }
        health
    }

    #[test]
    fn the_slices_health_is_summed_and_its_lists_gathered_once() {
        let one = with_health(true, health(4, 4, None));
        let mut other = health(6, 5, None);
        other["never_reached_tool"] = json!(["P4 without form", "P7 URL only"]);
        other["acted_before_call"] = json!(["call 3"]);
        other["stopped_by_check"] = json!(2);
        let two = with_health(true, other);
        let joined = join(&[&one, &two]).expect("joined");
        let health = &joined["eras"][0]["report"]["health"];
        assert_eq!(
            health,
            &json!({
                "planned": 10, "ran": 10, "reached_form": 9,
                "ignored_stdin_close": 2, "stopped_by_check": 2,
                "never_reached_tool": ["P4 without form", "P7 URL only"],
                "acted_before_call": ["call 3"],
                "notes": ["the tool was listed"],
            })
        );
        assert_eq!(
            joined["eras"][0]["report"]["properties"][0]["verdict"],
            "holds"
        );
        assert_eq!(
            (&joined["outcome"], &joined["passed"]),
            (&json!("passed"), &json!(true))
        );
    }

    /// Inconclusive when fewer than half of all slices' planned cases reached
    /// the form: 3 of 8 is, 4 of 8 and 5 of 8 are not.
    #[test]
    fn the_joined_era_is_inconclusive_when_fewer_than_half_reached_the_form() {
        for (reached_two, inconclusive) in [(0, true), (1, false), (2, false)] {
            let one = with_health(true, health(4, 3, None));
            let two = with_health(true, health(4, reached_two, None));
            let joined = join(&[&one, &two]).expect("joined");
            let era = &joined["eras"][0]["report"];
            let reached = 3 + reached_two;
            let expected = if inconclusive {
                json!(format!("{reached} of 8 planned cases reached the form"))
            } else {
                Value::Null
            };
            assert_eq!(era["health"]["inconclusive"], expected, "{reached} of 8");
            assert_eq!(era["passed"], !inconclusive, "{reached} of 8");
            let verdict = if inconclusive {
                "inconclusive"
            } else {
                "holds"
            };
            assert_eq!(era["properties"][0]["verdict"], verdict, "{reached} of 8");
            let outcome = if inconclusive {
                "inconclusive"
            } else {
                "passed"
            };
            assert_eq!(joined["outcome"], outcome, "{reached} of 8");
            assert_eq!(joined["passed"], !inconclusive, "{reached} of 8");
        }
    }

    /// The line saying why is a slice's own when one gave it (the first
    /// that did), and a slice's line goes when the joined era is conclusive.
    #[test]
    fn an_inconclusive_line_is_the_first_slice_that_gave_one() {
        let one = with_health(true, health(4, 0, None));
        let two = with_health(false, health(4, 1, Some("the server died at start-up")));
        let joined = join(&[&one, &two]).expect("joined");
        assert_eq!(
            joined["eras"][0]["report"]["health"]["inconclusive"],
            "the server died at start-up"
        );
        let three = with_health(false, health(4, 0, Some("first")));
        let joined = join(&[&three, &two]).expect("joined");
        assert_eq!(
            joined["eras"][0]["report"]["health"]["inconclusive"],
            "first"
        );
        let four = with_health(true, health(8, 8, None));
        let joined = join(&[&three, &four]).expect("joined");
        assert!(
            joined["eras"][0]["report"]["health"]
                .as_object()
                .expect("health")
                .get("inconclusive")
                .is_none()
        );
    }

    /// The outcome is the worst era's: an era whose report failed, or that
    /// fails without a report (a setup that failed), is failed.
    #[test]
    fn the_outcome_is_failed_when_an_era_failed() {
        let one = report(true, vec![property(1, "holds", 1)]);
        let mut two = report(false, vec![property(1, "fails", 1)]);
        two["eras"][0]["report"]["passed"] = json!(false);
        let joined = join(&[&one, &two]).expect("joined");
        assert_eq!(
            (&joined["outcome"], &joined["passed"]),
            (&json!("failed"), &json!(false))
        );
        let mut three = report(true, vec![property(1, "holds", 1)]);
        three["eras"].as_array_mut().expect("eras").push(json!({
            "protocol": "2026-07-28", "checked": false, "fails": true, "report": null,
        }));
        let joined = join(&[&one, &three]).expect("joined");
        assert_eq!(joined["outcome"], "failed");
        let mut four = three.clone();
        four["eras"][1]["status"] = json!("incomplete");
        let joined = join(&[&one, &four]).expect("joined");
        assert_eq!(joined["outcome"], "incomplete");
    }
}
