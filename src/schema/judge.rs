//! The judge: whether an accept's `content` is valid against the `requestedSchema`
//! as sent, decided by the `jsonschema` crate, never by hand-written rules.
//!
//! A schema without `$schema` is read as JSON Schema 2020-12 (the MCP 2025-11-25
//! default dialect); `format` is asserted (under 2020-12 it is only an annotation
//! by default), so `"not-an-email"` is invalid for `format: email`.

use serde_json::Value;

/// A compiled `requestedSchema`.
pub struct Judge {
    validator: jsonschema::Validator,
}

impl std::fmt::Debug for Judge {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("Judge")
    }
}

impl Judge {
    /// Compiles `schema` with format assertion on.
    ///
    /// # Errors
    /// The `jsonschema` crate's message when `schema` is not a valid JSON Schema.
    pub fn new(schema: &Value) -> Result<Judge, String> {
        let mut options = jsonschema::options().should_validate_formats(true);
        if schema.get("$schema").is_none() {
            options = options.with_draft(jsonschema::Draft::Draft202012);
        }
        let validator = options
            .build(schema)
            .map_err(|error| format!("the requestedSchema is not a valid JSON Schema: {error}"))?;
        Ok(Judge { validator })
    }

    /// Every reason `content` is invalid, each as `PATH: MESSAGE` (`/age: 500 is
    /// greater than the maximum of 100`; the root is `/`); empty when valid.
    pub fn errors(&self, content: &Value) -> Vec<String> {
        self.validator
            .iter_errors(content)
            .map(|error| {
                let path = error.instance_path().to_string();
                let path = if path.is_empty() {
                    "/".to_owned()
                } else {
                    path
                };
                format!("{path}: {error}")
            })
            .collect()
    }

    /// Whether `content` is valid.
    pub fn is_valid(&self, content: &Value) -> bool {
        self.validator.is_valid(content)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_judge_lists_every_error_with_its_path_and_says_valid_only_when_there_are_none() {
        let judge = Judge::new(&json!({
            "type": "object",
            "properties": {"age": {"type": "integer", "maximum": 100}, "ok": {"type": "boolean"}},
            "required": ["age"]
        }))
        .expect("compiles");
        assert_eq!(
            judge.errors(&json!({"age": 7, "ok": true})),
            Vec::<String>::new()
        );
        assert!(judge.is_valid(&json!({"age": 7})));
        assert_eq!(
            judge.errors(&json!({"age": 500, "ok": 1})),
            vec![
                "/age: 500 is greater than the maximum of 100",
                r#"/ok: 1 is not of type "boolean""#
            ]
        );
        assert!(!judge.is_valid(&json!({"age": 500})));
        assert_eq!(
            judge.errors(&json!([])),
            vec![r#"/: [] is not of type "object""#]
        );
        assert_eq!(format!("{judge:?}"), "Judge");
    }
}
