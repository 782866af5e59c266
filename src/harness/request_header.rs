//! A header sent on every HTTP request of a Streamable HTTP session
//! (`check --header 'Name: value'`): what an authenticated server or a
//! gateway in front of one needs (`Authorization: Bearer …`, a principal
//! header). Its value may name environment variables (`${TOKEN}`), expanded
//! when the header is read, so a secret stays out of command lines; a value
//! given literally is shown as `***` wherever elicit-check prints the header
//! (reports, reproduction lines), and no report or evidence records it (the
//! HTTP evidence keeps only the transport's own headers).

use std::fmt;

/// Headers elicit-check sets itself (the transport's, MCP 2025-11-25,
/// basic/transports, and HTTP's framing): a `--header` may not set them.
const RESERVED: [&str; 10] = [
    "accept",
    "content-type",
    "content-length",
    "host",
    "mcp-session-id",
    "mcp-protocol-version",
    "mcp-method",
    "mcp-name",
    "last-event-id",
    "transfer-encoding",
];

/// One `--header 'Name: value'`.
#[derive(Clone, PartialEq, Eq)]
pub struct RequestHeader {
    /// The header's name, as given.
    pub name: String,
    /// Its value as given, `${VAR}` references kept: what is printed when it
    /// names a variable.
    template: String,
    /// Its value with each `${VAR}` replaced from the environment: what is
    /// sent.
    value: String,
}

impl fmt::Debug for RequestHeader {
    /// As [`fmt::Display`]: the value is never shown unless it names variables.
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, formatter)
    }
}

impl fmt::Display for RequestHeader {
    /// `Authorization: Bearer ${TOKEN}` as given when the value names a
    /// variable, `Authorization: ***` when it was given literally.
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.template.contains("${") {
            write!(formatter, "{}: {}", self.name, self.template)
        } else {
            write!(formatter, "{}: ***", self.name)
        }
    }
}

impl RequestHeader {
    /// Parses `Name: value`, expanding each `${VAR}` of the value with
    /// `lookup` (the process environment in use: `|name| std::env::var(name).ok()`).
    ///
    /// # Errors
    /// A message naming what is wrong: no `:`, a name that is not an HTTP
    /// token, a header elicit-check sets itself, a value that is not visible
    /// ASCII and spaces, an unclosed `${`, or a variable `lookup` does not know.
    pub fn parse(
        text: &str,
        lookup: &dyn Fn(&str) -> Option<String>,
    ) -> Result<RequestHeader, String> {
        let Some((name, value)) = text.split_once(':') else {
            return Err(format!(
                "--header {text:?}: give it as 'Name: value', e.g. 'Authorization: Bearer ${{TOKEN}}'"
            ));
        };
        let name = name.trim();
        let template = value.trim();
        let token = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c);
        if name.is_empty() || !name.chars().all(token) {
            return Err(format!(
                "--header {name:?}: not a header name (letters, digits and !#$%&'*+-.^_`|~)"
            ));
        }
        if RESERVED.contains(&name.to_ascii_lowercase().as_str()) {
            return Err(format!(
                "--header {name}: elicit-check sets this header itself (the Streamable HTTP transport's own)"
            ));
        }
        let value = expand(template, lookup).map_err(|why| format!("--header {name}: {why}"))?;
        if !value
            .chars()
            .all(|c| c == ' ' || c == '\t' || c.is_ascii_graphic())
        {
            return Err(format!(
                "--header {name}: the value holds characters an HTTP header cannot carry"
            ));
        }
        Ok(RequestHeader {
            name: name.to_owned(),
            template: template.to_owned(),
            value,
        })
    }

    /// The value sent, variables expanded.
    pub fn value(&self) -> &str {
        &self.value
    }

    /// The option words that give this header on a command line, the value
    /// as [`fmt::Display`] shows it: `["--header", "Authorization: ***"]`.
    pub fn words(&self) -> [String; 2] {
        ["--header".to_owned(), self.to_string()]
    }
}

/// The headers as a map for the HTTP client's every request (a header whose
/// name or value the client cannot take is left out; [`RequestHeader::parse`]
/// refuses those).
pub fn header_map(headers: &[RequestHeader]) -> reqwest::header::HeaderMap {
    let mut map = reqwest::header::HeaderMap::new();
    for header in headers {
        if let (Ok(name), Ok(value)) = (
            reqwest::header::HeaderName::from_bytes(header.name.as_bytes()),
            reqwest::header::HeaderValue::from_str(&header.value),
        ) {
            map.append(name, value);
        }
    }
    map
}

/// `template` with each `${VAR}` replaced by `lookup(VAR)`.
///
/// # Errors
/// An unclosed `${`, an empty name, or a variable `lookup` does not know.
fn expand(template: &str, lookup: &dyn Fn(&str) -> Option<String>) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = template;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            return Err(format!("`${{` without its `}}` in {template:?}"));
        };
        let variable = &after[..end];
        if variable.is_empty() {
            return Err("`${}` names no variable".to_owned());
        }
        let value = lookup(variable)
            .ok_or_else(|| format!("${{{variable}}} is not set in the environment"))?;
        out.push_str(&value);
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(name: &str) -> Option<String> {
        match name {
            "TOKEN" => Some("s3cret".to_owned()),
            "USER_ID" => Some("ada".to_owned()),
            _ => None,
        }
    }

    #[test]
    fn a_header_expands_its_variables_and_never_shows_a_literal_value() {
        let bearer = RequestHeader::parse("Authorization: Bearer ${TOKEN}", &env).expect("parses");
        assert_eq!(bearer.name, "Authorization");
        assert_eq!(bearer.value(), "Bearer s3cret");
        assert_eq!(bearer.to_string(), "Authorization: Bearer ${TOKEN}");
        assert_eq!(format!("{bearer:?}"), "Authorization: Bearer ${TOKEN}");
        assert_eq!(
            bearer.words(),
            [
                "--header".to_owned(),
                "Authorization: Bearer ${TOKEN}".to_owned()
            ]
        );
        let two = RequestHeader::parse("X-Principal:  ${USER_ID}@${TOKEN}.", &env).expect("parses");
        assert_eq!(two.value(), "ada@s3cret.");
        let literal = RequestHeader::parse("X-Api-Key: abc123", &env).expect("parses");
        assert_eq!(literal.value(), "abc123");
        assert_eq!(literal.to_string(), "X-Api-Key: ***");
        assert!(!format!("{literal:?}").contains("abc123"));
        let empty = RequestHeader::parse("X-Empty:", &env).expect("parses");
        assert_eq!(empty.value(), "");
    }

    #[test]
    fn a_header_that_cannot_be_sent_is_refused_naming_why() {
        let why = |text: &str| RequestHeader::parse(text, &env).expect_err("refused");
        assert_eq!(
            why("Authorization Bearer x"),
            "--header \"Authorization Bearer x\": give it as 'Name: value', e.g. 'Authorization: Bearer ${TOKEN}'"
        );
        assert!(why(": x").contains("not a header name"), "{}", why(": x"));
        assert!(why("X Y: x").contains("not a header name"));
        assert_eq!(
            why("mcp-session-id: 1"),
            "--header mcp-session-id: elicit-check sets this header itself (the Streamable HTTP transport's own)"
        );
        assert!(why("Accept: */*").contains("sets this header itself"));
        assert_eq!(
            why("Authorization: Bearer ${MISSING}"),
            "--header Authorization: ${MISSING} is not set in the environment"
        );
        assert_eq!(
            why("Authorization: Bearer ${TOKEN"),
            "--header Authorization: `${` without its `}` in \"Bearer ${TOKEN\""
        );
        assert_eq!(why("X: ${}"), "--header X: `${}` names no variable");
        assert!(why("X: a\u{7}b").contains("cannot carry"));
        assert!(why("X: é").contains("cannot carry"));
    }
}
