//! The fixed values `check` sends for each `format` of the MCP subset
//! (`email`, `uri`, `date`, `date-time`), the same for every seed: the
//! consenting example of the base, the **malformed** values a lenient parser
//! takes, and valid values in the **other shapes** the format's RFC allows.
//!
//! The formats are JSON Schema's format vocabulary (draft 2020-12, Validation,
//! section 7.3), asserted by the [`super::judge`]: `date-time` and `date` are
//! RFC 3339 section 5.6 (`date-time`, `full-date`) with the calendar rules of
//! section 5.7, `email` is RFC 5321 section 4.1.2 (`Mailbox`), `uri` is
//! RFC 3986 section 3 (a scheme, then `:`; section 4.2's relative references
//! are not URIs).
//!
//! Each malformed value is a reading some validator in the field takes:
//! JavaScript's `Date.parse` (a date only, a local time, February 30 rolled
//! over to March 2, hour 24, English dates, a space for `T`), regular
//! expressions such as `\S+@\S+\.\S+`, `value.includes("@")`, a URL parser
//! that percent-encodes spaces. Every one is judged invalid and every shape
//! valid (the tests below ask the judge); a value the judge accepts is not
//! listed, and the comment where it would be says why.

/// One value of a format and how it reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reading {
    /// How it reads, e.g. `a date only`; a coverage answer is built as
    /// ``accept: a date only "2030-01-15" for date-time `arrival` `` (a
    /// malformed value) or ``accept: valid content, `arrival` with an offset
    /// "2030-01-15T10:00:00+02:00"`` (a shape).
    pub how: &'static str,
    /// The value sent.
    pub value: &'static str,
}

/// Shorthand for the tables below.
const fn reading(how: &'static str, value: &'static str) -> Reading {
    Reading { how, value }
}

/// The consenting example of `format` in the base (the probe's first valid
/// accept), or none for a string without a format of the MCP subset.
pub fn example(format: &str) -> Option<&'static str> {
    match format {
        "email" => Some("user@example.com"),
        "uri" => Some("https://example.com/"),
        "date" => Some("2030-01-15"),
        "date-time" => Some("2030-01-15T10:00:00Z"),
        _ => None,
    }
}

/// The malformed values of `format`, each by the reading that takes it (none
/// for a format outside the MCP subset).
pub fn malformed(format: &str) -> &'static [Reading] {
    match format {
        "email" => EMAIL_MALFORMED,
        "uri" => URI_MALFORMED,
        "date" => DATE_MALFORMED,
        "date-time" => DATE_TIME_MALFORMED,
        _ => &[],
    }
}

/// The valid values of `format` in shapes other than its [`example`]'s.
pub fn shapes(format: &str) -> &'static [Reading] {
    match format {
        "email" => EMAIL_SHAPES,
        "uri" => URI_SHAPES,
        "date" => DATE_SHAPES,
        "date-time" => DATE_TIME_SHAPES,
        _ => &[],
    }
}

/// `date-time` (RFC 3339 section 5.6) by the readings lenient parsers take.
const DATE_TIME_MALFORMED: &[Reading] = &[
    reading("a date only", "2030-01-15"),
    reading("a local time without offset", "2030-01-15T10:00:00"),
    reading("February 30", "2030-02-30T10:00:00Z"),
    reading("month 13", "2030-13-15T10:00:00Z"),
    reading("hour 24", "2030-01-15T24:00:00Z"),
    reading("an English date", "Jan 15 2030"),
    reading("an English date and time", "15 January 2030 10:00"),
    reading("a space instead of T", "2030-01-15 10:00:00Z"),
    reading("no seconds", "2030-01-15T10:00Z"),
    reading("an offset without a colon", "2030-01-15T10:00:00+0200"),
    reading("prose", "yesterday at noon"),
];

/// `date` (RFC 3339 section 5.6, `full-date`) by the readings lenient
/// parsers take.
const DATE_MALFORMED: &[Reading] = &[
    reading("a date-time", "2030-01-15T10:00:00Z"),
    reading("February 30", "2030-02-30"),
    reading("February 29 in a common year", "2029-02-29"),
    reading("month 13", "2030-13-15"),
    reading("an English date", "Jan 15 2030"),
    reading("slashes", "2030/01/15"),
    reading("a day-first date", "15.01.2030"),
];

/// `email` (RFC 5321 section 4.1.2) by the readings lax checks take
/// (`includes("@")`, `[^@\s]+@[^@\s]+`, `\S+@\S+\.\S+`). Not listed: the
/// display-name form `Name <user@example.com>`, which the judge accepts
/// (the `email_address` crate under `jsonschema` allows display text).
const EMAIL_MALFORMED: &[Reading] = &[
    reading("no domain", "user@"),
    reading("no local part", "@example.com"),
    reading("an empty domain label", "user@example..com"),
    reading("a space", "user @example.com"),
    reading("no @", "not-an-email"),
];

/// `uri` (RFC 3986 section 3) by the readings lax checks take (a URL parser
/// given a base, one that percent-encodes spaces, `startsWith("http")`).
const URI_MALFORMED: &[Reading] = &[
    reading("a relative reference", "/path"),
    reading("no scheme", "example.com"),
    reading("no colon after the scheme", "http//example.com"),
    reading("a space", "https://example.com/a b"),
    reading("prose", "not a uri"),
];

/// `date-time` in the other shapes RFC 3339 section 5.6 allows: a numeric
/// offset either side of UTC, a fraction of a second of one and of six
/// digits, lower-case `t` and `z` (its note on case), February 29 of a leap
/// year (section 5.7). Not listed: a leap second (`23:59:60Z`), valid where
/// one occurs (section 5.7) and refused by most date libraries (JavaScript's
/// `Date`, Python's `datetime`), so every server would be warned about it.
const DATE_TIME_SHAPES: &[Reading] = &[
    reading("with an offset", "2030-01-15T10:00:00+02:00"),
    reading("with a negative offset", "2030-01-15T10:00:00-05:30"),
    reading("with a fraction of a second", "2030-01-15T10:00:00.5Z"),
    reading("with microseconds", "2030-01-15T10:00:00.123456Z"),
    reading("in lower case", "2030-01-15t10:00:00z"),
    reading("on a leap day", "2028-02-29T10:00:00Z"),
];

/// `date` on February 29 of a leap year (RFC 3339 section 5.7).
const DATE_SHAPES: &[Reading] = &[reading("on a leap day", "2028-02-29")];

/// `email` with a dotted local part, a `+` tag and a subdomain.
const EMAIL_SHAPES: &[Reading] = &[reading(
    "with a dotted local part, a tag and a subdomain",
    "first.last+tag@mail.example.org",
)];

/// `uri` with a port, a query and a fragment.
const URI_SHAPES: &[Reading] = &[reading(
    "with a port, a query and a fragment",
    "https://example.com:8443/a/b?q=1#top",
)];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::MCP_FORMATS;
    use crate::schema::judge::Judge;
    use serde_json::json;

    fn judge(format: &str) -> Judge {
        Judge::new(&json!({
            "type": "object",
            "properties": {"f": {"type": "string", "format": format}}
        }))
        .expect("compiles")
    }

    fn values(readings: &[Reading]) -> Vec<&'static str> {
        readings.iter().map(|reading| reading.value).collect()
    }

    #[test]
    fn every_malformed_value_is_invalid_and_every_example_and_shape_valid() {
        for format in MCP_FORMATS {
            let judge = judge(format);
            let example = example(format).expect("an example");
            assert!(judge.is_valid(&json!({"f": example})), "{format} {example}");
            assert!(!malformed(format).is_empty(), "{format}");
            for reading in malformed(format) {
                assert!(
                    !judge.is_valid(&json!({"f": reading.value})),
                    "{format}: {} {:?} is valid",
                    reading.how,
                    reading.value
                );
            }
            assert!(!shapes(format).is_empty(), "{format}");
            for reading in shapes(format) {
                let content = json!({"f": reading.value});
                assert!(
                    judge.is_valid(&content),
                    "{format}: {} {:?}: {:?}",
                    reading.how,
                    reading.value,
                    judge.errors(&content)
                );
                assert_ne!(
                    reading.value, example,
                    "{format}: a shape is not the example"
                );
            }
        }
    }

    #[test]
    fn each_format_has_its_own_values_and_other_formats_none() {
        assert_eq!(example("date"), Some("2030-01-15"));
        assert_eq!(example("date-time"), Some("2030-01-15T10:00:00Z"));
        assert_eq!(example("email"), Some("user@example.com"));
        assert_eq!(example("uri"), Some("https://example.com/"));
        assert_eq!(
            values(malformed("date-time")),
            [
                "2030-01-15",
                "2030-01-15T10:00:00",
                "2030-02-30T10:00:00Z",
                "2030-13-15T10:00:00Z",
                "2030-01-15T24:00:00Z",
                "Jan 15 2030",
                "15 January 2030 10:00",
                "2030-01-15 10:00:00Z",
                "2030-01-15T10:00Z",
                "2030-01-15T10:00:00+0200",
                "yesterday at noon",
            ]
        );
        assert_eq!(
            values(malformed("date")),
            [
                "2030-01-15T10:00:00Z",
                "2030-02-30",
                "2029-02-29",
                "2030-13-15",
                "Jan 15 2030",
                "2030/01/15",
                "15.01.2030",
            ]
        );
        assert_eq!(
            values(malformed("email")),
            [
                "user@",
                "@example.com",
                "user@example..com",
                "user @example.com",
                "not-an-email"
            ]
        );
        assert_eq!(
            values(malformed("uri")),
            [
                "/path",
                "example.com",
                "http//example.com",
                "https://example.com/a b",
                "not a uri"
            ]
        );
        assert_eq!(values(shapes("date-time")).len(), 6);
        assert_eq!(values(shapes("date")), ["2028-02-29"]);
        assert_eq!(values(shapes("email")), ["first.last+tag@mail.example.org"]);
        assert_eq!(
            values(shapes("uri")),
            ["https://example.com:8443/a/b?q=1#top"]
        );
        for other in ["hostname", "time", ""] {
            assert_eq!(example(other), None, "{other}");
            assert!(malformed(other).is_empty(), "{other}");
            assert!(shapes(other).is_empty(), "{other}");
        }
    }

    /// The reading left out of [`EMAIL_MALFORMED`]: when the judge starts to
    /// refuse it, this fails and it can be listed.
    #[test]
    fn the_judge_accepts_the_display_name_form_of_an_email() {
        assert!(judge("email").is_valid(&json!({"f": "Name <user@example.com>"})));
    }
}
