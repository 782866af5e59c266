//! The judge: whether an accept's `content` is valid against the `requestedSchema`
//! as sent, decided by the `jsonschema` crate, never by hand-written rules
//! (issue 7, section 2).
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
