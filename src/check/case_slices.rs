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
//! sessions, the planted reply and the retries ([`super::Target::shard`]).
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
    joined["passed"] = Value::Bool(passed);
    Ok(())
}

/// Adds `other`'s counts and properties to the era report `joined`.
fn join_era(joined: &mut Value, other: &Value) -> Result<(), String> {
    for key in ["cases", "coverage_cases", "reclassified"] {
        add(&mut joined[key], &other[key]);
    }
    joined["passed"] = Value::Bool(joined["passed"] == true && other["passed"] == true);
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
    Ok(())
}

/// The rank of a verdict word: fails over holds over untested.
fn rank(verdict: &Value) -> u8 {
    match verdict.as_str() {
        Some("fails") => 2,
        Some("holds") => 1,
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
}
