//! Finding the tools that elicit: start the server as the check does
//! (declaring form elicitation), list its tools with their `inputSchema`, and
//! call each once in a fresh process with arguments built from the schema's
//! required properties, answering every `elicitation/create` with `cancel`
//! (MCP 2025-11-25, Elicitation: the user dismissed the request, so the tool
//! should act on nothing). A tool whose call sent a form request (`mode`
//! `form`, or no `mode`, the form default) elicits; only those are checked.

use serde_json::{Map, Value, json};

use crate::case::Answer;
use crate::check::case_run::{call_tool, form_capabilities, open};
use crate::check::error::CheckError;
use crate::check::runner::Runner;
use crate::format::last_lines;
use crate::harness::client;
use crate::harness::proxy::Responder;
use crate::lock::lock;
use crate::schema::coverage::consenting_value;
use crate::schema::judge::Judge;
use crate::schema::{Form, Kind};
use crate::targets::target::Target;

/// What calling one listed tool showed.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSurvey {
    /// The tool's name.
    pub tool: String,
    /// The `arguments` it was called with (empty when skipped).
    pub arguments: Map<String, Value>,
    /// Whether it elicits.
    pub found: Found,
}

/// Whether a tool's call sent a form request.
#[derive(Debug, Clone, PartialEq)]
pub enum Found {
    /// It sent a form `elicitation/create`: its `requestedSchema`s, in order.
    Elicits(Vec<Value>),
    /// It replied without a form request (its reply as the evidence keeps
    /// it: `{"result": ..}`, `{"error": ..}` or `{}`).
    AskedNothing(Value),
    /// It was not called: its arguments cannot be built (the reason).
    Skipped(String),
}

impl ToolSurvey {
    /// Whether the tool sent a form request.
    pub fn elicits(&self) -> bool {
        matches!(self.found, Found::Elicits(_))
    }
}

/// Lists `target`'s tools (its command, environment, protocol and limits;
/// its tool and arguments are ignored) and calls each once, answering every
/// form request with `cancel`; one [`ToolSurvey`] per listed tool, in the
/// listed order. Every server process is ended before this returns.
///
/// # Errors
/// [`CheckError::Spawn`] or [`CheckError::DidNotStart`] when the server
/// does not start or list its tools; a failing `--setup`.
pub async fn eliciting_tools(target: &Target) -> Result<Vec<ToolSurvey>, CheckError> {
    let runner = Runner::new(target, false);
    let (session, _) = open(&runner, &form_capabilities(), Some("tools/list")).await?;
    let listed = match session.startup_error().cloned() {
        Some(error) => Err(error),
        None => session.list_tool_schemas().await,
    };
    let finished = session.finish().await;
    let tools = listed.map_err(|error| CheckError::DidNotStart {
        url: target.transport.url().map(str::to_owned),
        error: error.to_string(),
        stray: String::new(),
        stderr: last_lines(&finished.exit.stderr, 20),
    })?;
    let mut surveys = Vec::new();
    for (tool, schema) in tools {
        let arguments = match arguments_for(&schema) {
            Ok(arguments) => arguments,
            Err(reason) => {
                surveys.push(ToolSurvey {
                    tool,
                    arguments: Map::new(),
                    found: Found::Skipped(reason),
                });
                continue;
            }
        };
        let called = target.clone().tool(&tool).arguments(arguments.clone());
        let found = call_cancelling(&called).await?;
        surveys.push(ToolSurvey {
            tool,
            arguments,
            found,
        });
    }
    Ok(surveys)
}

/// Calls `target`'s tool in a fresh process, answering each form request
/// with `cancel` (and a URL request, not declared, with the error MCP names
/// for it, as the check's responder does).
async fn call_cancelling(target: &Target) -> Result<Found, CheckError> {
    let runner = Runner::new(target, false);
    let label = format!("survey of {}", target.tool);
    let (mut session, _) = open(&runner, &form_capabilities(), Some(&label)).await?;
    let schemas: std::sync::Arc<std::sync::Mutex<Vec<Value>>> = std::sync::Arc::default();
    let responder: Responder = {
        let schemas = std::sync::Arc::clone(&schemas);
        std::sync::Arc::new(move |request: &Value| {
            if client::asks_form(request) {
                lock(&schemas).push(
                    request
                        .pointer("/params/requestedSchema")
                        .cloned()
                        .unwrap_or(Value::Null),
                );
                Answer::Result(json!({"action": "cancel"}))
            } else {
                client::not_declared(client::URL_NOT_DECLARED)
            }
        })
    };
    let call = call_tool(target, &mut session, responder).await;
    session.finish().await;
    let schemas = lock(&schemas).clone();
    Ok(if schemas.is_empty() {
        Found::AskedNothing(call.reply())
    } else {
        Found::Elicits(schemas)
    })
}

/// The `arguments` of a call from the tool's `inputSchema`: each required
/// property at its `default`, else at the consenting value the check's first
/// answer would give it ([`consenting_value`]); optional ones left out.
///
/// # Errors
/// A required property that is not a string, number, integer, boolean or
/// enum (elicit-check builds no objects or arrays for a call), or arguments
/// the schema judges invalid (its `jsonschema` errors).
pub fn arguments_for(schema: &Value) -> Result<Map<String, Value>, String> {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let properties = schema.get("properties").and_then(Value::as_object);
    let mut wanted = Map::new();
    for name in &required {
        let property = properties
            .and_then(|properties| properties.get(*name))
            .ok_or_else(|| format!("required argument {name} has no schema in properties"))?;
        wanted.insert((*name).to_owned(), property.clone());
    }
    let form = Form::read(&json!({"type": "object", "properties": wanted, "required": required}));
    let mut arguments = Map::new();
    for field in &form.fields {
        if field.kind == Kind::Other {
            return Err(format!(
                "required argument {} is not a string, number, boolean or enum",
                field.name
            ));
        }
        let value = field
            .default
            .clone()
            .unwrap_or_else(|| consenting_value(field, 0));
        arguments.insert(field.name.clone(), value);
    }
    if let Ok(judge) = Judge::new(schema) {
        let errors = judge.errors(&Value::Object(arguments.clone()));
        if !errors.is_empty() {
            return Err(format!(
                "the arguments built, {}, do not satisfy its inputSchema: {}",
                Value::Object(arguments),
                errors.join("; ")
            ));
        }
    }
    Ok(arguments)
}

#[cfg(test)]
mod tests {
    use serde_json::{Map, Value, json};

    use super::arguments_for;

    fn object(value: Value) -> Map<String, Value> {
        value.as_object().expect("an object").clone()
    }

    #[test]
    fn required_properties_get_their_default_or_a_consenting_value() {
        let schema = json!({
            "type": "object",
            "properties": {
                "title": {"type": "string", "minLength": 3},
                "count": {"type": "integer", "minimum": 2},
                "size": {"type": "string", "enum": ["small", "large"]},
                "unit": {"type": "string", "default": "kg"},
                "note": {"type": "string"}
            },
            "required": ["title", "count", "size", "unit"]
        });
        assert_eq!(
            arguments_for(&schema),
            Ok(object(
                json!({"title": "aaa", "count": 2, "size": "small", "unit": "kg"})
            ))
        );
        assert_eq!(
            arguments_for(&json!({"type": "object", "properties": {}})),
            Ok(Map::new())
        );
    }

    #[test]
    fn arguments_that_cannot_be_built_are_refused_with_the_reason() {
        let nested = json!({
            "type": "object",
            "properties": {"filter": {"type": "object", "properties": {"a": {"type": "string"}}}},
            "required": ["filter"]
        });
        assert_eq!(
            arguments_for(&nested),
            Err("required argument filter is not a string, number, boolean or enum".to_owned())
        );
        let unlisted = json!({"type": "object", "properties": {}, "required": ["path"]});
        assert_eq!(
            arguments_for(&unlisted),
            Err("required argument path has no schema in properties".to_owned())
        );
        let patterned = json!({
            "type": "object",
            "properties": {"code": {"type": "string", "pattern": "^[0-9]+$"}},
            "required": ["code"]
        });
        assert_eq!(
            arguments_for(&patterned),
            Err(
                "the arguments built, {\"code\":\"a\"}, do not satisfy its inputSchema: \
                 /code: \"a\" does not match \"^[0-9]+$\""
                    .to_owned()
            )
        );
    }
}
