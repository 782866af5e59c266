//! Property 3 on `date-time` strings: a valid accept refused for the shape
//! of its date-time alone.
//!
//! RFC 3339 section 5.6 writes one wall-clock time in several shapes: ending
//! in `Z` or a numeric offset (`+02:00`), with a fraction of a second, with
//! `T` and `Z` in lower case. The coverage phase sends the base the tool
//! acted on with its date-time replaced by each of those shapes
//! ([`crate::schema::formats::shapes`]). When the tool acted on a valid accept
//! and refused one that differs from it only there, at the same date and
//! local time, the only difference it can have read is the shape: it refuses
//! valid input, which property 3 says it must act on. A refused accept that
//! differs anywhere else (another number, another day such as the leap-day
//! shape, another address of an `email` shape, a value of the random phase)
//! may meet a rule of the tool's own and stays a warning.

use serde_json::Value;

use super::consent::ValidCall;
use crate::schema::{Form, Kind, formats};

/// A valid accept refused although a call that acted differs from it only in
/// the shape of one formatted string.
#[derive(Debug, Clone, PartialEq)]
pub struct ShapeRefusal {
    /// The request (0-based, in the call's order) whose answer differs.
    pub request: usize,
    /// The field's name (a key of `properties`).
    pub field: String,
    /// Its `format`, as sent (`date-time`).
    pub format: String,
    /// The value in the refused accept, one of the format's shapes.
    pub refused: Value,
    /// The value in the accept the tool acted on.
    pub acted: Value,
    /// How the refused value reads (`with an offset`).
    pub how: &'static str,
}

impl ShapeRefusal {
    /// The reason of property 3's failure, e.g. ``refused `arrival`
    /// "2030-01-15T10:00:00+02:00" (a date-time with an offset, valid under
    /// RFC 3339 section 5.6) after acting on "2030-01-15T10:00:00Z" in the
    /// same accept``.
    pub fn reason(&self) -> String {
        format!(
            "refused `{}` {} (a {} {}, valid under RFC 3339 section 5.6) after acting on {} in the same accept",
            self.field, self.refused, self.format, self.how, self.acted
        )
    }
}

/// The date and local time of an RFC 3339 `date-time` (`YYYY-MM-DDTHH:MM:SS`,
/// lower case): what its other shapes keep.
fn wall_clock(value: &str) -> Option<String> {
    value.get(..19).map(str::to_ascii_lowercase)
}

/// The first shape refusal in `refused` (a valid call the tool did not act
/// on) against the calls of `valid` that acted, over `forms` (one per
/// request, in order); `None` when the refused call differs from every acted
/// call in more than one value, or in a value that is not the same date and
/// local time as the acted one in another shape of a `date-time` field.
pub fn refused_shape(
    forms: &[Form],
    valid: &[ValidCall],
    refused: &ValidCall,
) -> Option<ShapeRefusal> {
    valid
        .iter()
        .filter(|call| call.acted && call.contents.len() == refused.contents.len())
        .find_map(|acted| one_shape_apart(forms, &acted.contents, &refused.contents))
}

/// The shape refusal when `refused` differs from `acted` in exactly one value
/// of one request, and that value is a shape of its field's format.
fn one_shape_apart(forms: &[Form], acted: &[Value], refused: &[Value]) -> Option<ShapeRefusal> {
    let mut differing = acted
        .iter()
        .zip(refused)
        .enumerate()
        .filter(|(_, (acted, refused))| acted != refused);
    let (request, (acted, refused)) = differing.next()?;
    if differing.next().is_some() {
        return None;
    }
    let (acted, refused) = (acted.as_object()?, refused.as_object()?);
    let mut keys = acted.keys().chain(refused.keys());
    let mut changed = keys
        .by_ref()
        .filter(|key| acted.get(*key) != refused.get(*key));
    let name = changed.next()?;
    // Each changed key is met once per object that holds it.
    if changed.any(|other| other != name) {
        return None;
    }
    let field = forms
        .get(request)?
        .fields
        .iter()
        .find(|field| field.name == *name)?;
    let Kind::String {
        format: Some(format),
        ..
    } = &field.kind
    else {
        return None;
    };
    if format != "date-time" {
        return None;
    }
    let (acted_value, refused_value) = (acted.get(name)?, refused.get(name)?);
    if wall_clock(acted_value.as_str()?)? != wall_clock(refused_value.as_str()?)? {
        return None;
    }
    let shape = formats::shapes(format)
        .iter()
        .find(|shape| refused_value.as_str() == Some(shape.value))?;
    Some(ShapeRefusal {
        request,
        field: name.clone(),
        format: format.clone(),
        refused: refused_value.clone(),
        acted: acted_value.clone(),
        how: shape.how,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn form() -> Form {
        Form::read(&json!({
            "type": "object",
            "properties": {
                "arrival": {"type": "string", "format": "date-time"},
                "nights": {"type": "integer", "minimum": 1},
                "note": {"type": "string"}
            },
            "required": ["arrival", "nights"]
        }))
    }

    fn call(content: Value, acted: bool) -> ValidCall {
        ValidCall {
            contents: vec![content],
            acted,
        }
    }

    const ACTED: &str = "2030-01-15T10:00:00Z";
    const OFFSET: &str = "2030-01-15T10:00:00+02:00";

    #[test]
    fn an_offset_refused_after_the_same_accept_in_z_acted_is_a_shape_refusal() {
        let acted = call(json!({"arrival": ACTED, "nights": 2}), true);
        let refused = call(json!({"arrival": OFFSET, "nights": 2}), false);
        let found = refused_shape(&[form()], &[acted.clone(), refused.clone()], &refused)
            .expect("a shape refusal");
        assert_eq!(
            found,
            ShapeRefusal {
                request: 0,
                field: "arrival".into(),
                format: "date-time".into(),
                refused: json!(OFFSET),
                acted: json!(ACTED),
                how: "with an offset",
            }
        );
        assert_eq!(
            found.reason(),
            "refused `arrival` \"2030-01-15T10:00:00+02:00\" (a date-time with an offset, valid under RFC 3339 section 5.6) after acting on \"2030-01-15T10:00:00Z\" in the same accept"
        );
        // Lower-case `t` and `z`: the same wall-clock time.
        let lower = call(
            json!({"arrival": "2030-01-15t10:00:00z", "nights": 2}),
            false,
        );
        assert_eq!(
            refused_shape(&[form()], &[acted], &lower).map(|found| found.how),
            Some("in lower case")
        );
    }

    #[test]
    fn an_email_in_another_shape_is_another_address_and_no_shape_refusal() {
        let form = Form::read(&json!({
            "type": "object",
            "properties": {"to": {"type": "string", "format": "email"}}
        }));
        let acted = call(json!({"to": "user@example.com"}), true);
        let refused = call(json!({"to": "first.last+tag@mail.example.org"}), false);
        assert_eq!(refused_shape(&[form], &[acted], &refused), None);
    }

    #[test]
    fn a_refused_accept_that_differs_elsewhere_or_in_no_listed_shape_is_none() {
        let forms = [form()];
        let acted = call(json!({"arrival": ACTED, "nights": 2}), true);
        let none = |refused: Value| {
            let refused = call(refused, false);
            refused_shape(&forms, &[acted.clone(), refused.clone()], &refused)
        };
        // Another number beside the shape.
        assert_eq!(none(json!({"arrival": OFFSET, "nights": 3})), None);
        // Only the number.
        assert_eq!(none(json!({"nights": 3, "arrival": ACTED})), None);
        // A valid date-time of the random phase, no listed shape.
        assert_eq!(
            none(json!({"arrival": "2031-06-01T08:30:00Z", "nights": 2})),
            None
        );
        // A listed shape on another day (a leap day): a rule of the tool's own may refuse it.
        assert_eq!(
            none(json!({"arrival": "2028-02-29T10:00:00Z", "nights": 2})),
            None
        );
        // The same wall-clock time not in a listed shape.
        assert_eq!(
            none(json!({"arrival": "2030-01-15T10:00:00+01:00", "nights": 2})),
            None
        );
        // A key added beside the shape.
        assert_eq!(
            none(json!({"arrival": OFFSET, "nights": 2, "note": "x"})),
            None
        );
        // A plain string field in a listed shape's value: no format.
        let plain = call(json!({"arrival": ACTED, "nights": 2, "note": "a"}), true);
        let refused = call(
            json!({"arrival": ACTED, "nights": 2, "note": OFFSET}),
            false,
        );
        assert_eq!(
            refused_shape(&forms, &[plain, refused.clone()], &refused),
            None
        );
        // The same call acted on nothing to compare with.
        let refused = call(json!({"arrival": OFFSET, "nights": 2}), false);
        assert_eq!(
            refused_shape(
                &forms,
                &[call(json!({"arrival": ACTED, "nights": 2}), false)],
                &refused
            ),
            None
        );
    }

    #[test]
    fn a_missing_key_or_another_request_count_is_no_shape_refusal() {
        let forms = [form(), form()];
        let acted = ValidCall {
            contents: vec![
                json!({"arrival": ACTED, "nights": 2}),
                json!({"arrival": ACTED, "nights": 1}),
            ],
            acted: true,
        };
        // The second request differs in its shape only: found there.
        let second = ValidCall {
            contents: vec![
                json!({"arrival": ACTED, "nights": 2}),
                json!({"arrival": OFFSET, "nights": 1}),
            ],
            acted: false,
        };
        assert_eq!(
            refused_shape(&forms, std::slice::from_ref(&acted), &second).map(|found| found.request),
            Some(1)
        );
        // Both requests differ.
        let both = ValidCall {
            contents: vec![
                json!({"arrival": OFFSET, "nights": 2}),
                json!({"arrival": OFFSET, "nights": 1}),
            ],
            acted: false,
        };
        assert_eq!(
            refused_shape(&forms, std::slice::from_ref(&acted), &both),
            None
        );
        // One request only.
        let one = call(json!({"arrival": OFFSET, "nights": 2}), false);
        assert_eq!(refused_shape(&forms, &[acted], &one), None);
        // The formatted field left out of the acted accept.
        let without = call(json!({"nights": 2}), true);
        let refused = call(json!({"arrival": OFFSET, "nights": 2}), false);
        assert_eq!(refused_shape(&[form()], &[without], &refused), None);
        // The acted value not a string.
        let number = call(json!({"arrival": 5, "nights": 2}), true);
        assert_eq!(refused_shape(&[form()], &[number], &refused), None);
    }
}
