//! A small JSON-Schema validator: the keywords `openapi-subset.strict.json` uses, nothing more.
//!
//! Any other keyword makes `check_supported` fail when the spec is loaded, so the validator can
//! never be silently more lenient than the file it reads.

use serde_json::Value;

/// One failed rule: where (a JSON pointer into the validated value) and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaError {
    pub pointer: String,
    pub message: String,
}

/// Keywords that change what validates.
const ASSERTIONS: &[&str] = &[
    "type",
    "properties",
    "additionalProperties",
    "required",
    "enum",
    "items",
    "maxItems",
    "minItems",
    "maxLength",
    "minLength",
    "oneOf",
    "anyOf",
    "allOf",
];

/// Keywords that only annotate.
const ANNOTATIONS: &[&str] = &[
    "description",
    "default",
    "format",
    "example",
    "examples",
    "title",
    "readOnly",
    "writeOnly",
    "deprecated",
];

/// Every keyword the schema uses that this validator does not know, as JSON pointers.
pub fn check_supported(schema: &Value) -> Vec<String> {
    let mut unknown = Vec::new();
    walk_keywords(schema, "", &mut unknown);
    unknown
}

fn walk_keywords(schema: &Value, at: &str, unknown: &mut Vec<String>) {
    let Some(map) = schema.as_object() else {
        if !schema.is_boolean() {
            unknown.push(format!("{at} (not a schema)"));
        }
        return;
    };
    for (key, sub) in map {
        let here = format!("{at}/{}", escape(key));
        match key.as_str() {
            "properties" => {
                for (name, prop) in sub.as_object().into_iter().flatten() {
                    walk_keywords(prop, &format!("{here}/{}", escape(name)), unknown);
                }
            }
            "items" | "additionalProperties" => walk_keywords(sub, &here, unknown),
            "oneOf" | "anyOf" | "allOf" => {
                for (i, branch) in sub.as_array().into_iter().flatten().enumerate() {
                    walk_keywords(branch, &format!("{here}/{i}"), unknown);
                }
            }
            k if ASSERTIONS.contains(&k) || ANNOTATIONS.contains(&k) => {}
            _ => unknown.push(here),
        }
    }
}

/// Validates `value` against `schema`; an empty list means valid.
pub fn validate(schema: &Value, value: &Value) -> Vec<SchemaError> {
    let mut errors = Vec::new();
    check(schema, value, "", &mut errors);
    errors
}

/// Escapes one JSON-pointer reference token (RFC 6901).
pub fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

fn fail(errors: &mut Vec<SchemaError>, pointer: &str, message: String) {
    errors.push(SchemaError {
        pointer: if pointer.is_empty() {
            "/".to_string()
        } else {
            pointer.to_string()
        },
        message,
    });
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if is_integer(n) => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn is_integer(n: &serde_json::Number) -> bool {
    n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
}

fn has_type(value: &Value, name: &str) -> bool {
    match name {
        "integer" => value.as_number().is_some_and(is_integer),
        "number" => value.is_number(),
        other => type_name(value) == other,
    }
}

fn check(schema: &Value, value: &Value, at: &str, errors: &mut Vec<SchemaError>) {
    let Some(schema) = schema.as_object() else {
        if schema == &Value::Bool(false) {
            fail(errors, at, "no value is allowed here".into());
        }
        return;
    };

    if let Some(ty) = schema.get("type") {
        let allowed: Vec<&str> = match ty {
            Value::String(s) => vec![s.as_str()],
            Value::Array(list) => list.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        if !allowed.iter().any(|t| has_type(value, t)) {
            fail(
                errors,
                at,
                format!(
                    "expected {}, found {}",
                    allowed.join(" or "),
                    type_name(value)
                ),
            );
            // Further keywords would only repeat the same mistake.
            return;
        }
    }

    if let Some(Value::Array(options)) = schema.get("enum")
        && !options.contains(value)
    {
        fail(
            errors,
            at,
            format!("{} is not one of {}", value, Value::Array(options.clone())),
        );
    }

    match value {
        Value::String(s) => {
            let chars = s.chars().count();
            if let Some(max) = schema.get("maxLength").and_then(Value::as_u64)
                && chars as u64 > max
            {
                fail(
                    errors,
                    at,
                    format!("{chars} characters, at most {max} allowed"),
                );
            }
            if let Some(min) = schema.get("minLength").and_then(Value::as_u64)
                && (chars as u64) < min
            {
                fail(
                    errors,
                    at,
                    format!("{chars} characters, at least {min} required"),
                );
            }
        }
        Value::Array(items) => {
            if let Some(max) = schema.get("maxItems").and_then(Value::as_u64)
                && items.len() as u64 > max
            {
                fail(
                    errors,
                    at,
                    format!("{} items, at most {max} allowed", items.len()),
                );
            }
            if let Some(min) = schema.get("minItems").and_then(Value::as_u64)
                && (items.len() as u64) < min
            {
                fail(
                    errors,
                    at,
                    format!("{} items, at least {min} required", items.len()),
                );
            }
            if let Some(item_schema) = schema.get("items") {
                for (i, item) in items.iter().enumerate() {
                    check(item_schema, item, &format!("{at}/{i}"), errors);
                }
            }
        }
        Value::Object(map) => {
            let properties = schema.get("properties").and_then(Value::as_object);
            for name in schema
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
            {
                if !map.contains_key(name) {
                    fail(
                        errors,
                        &format!("{at}/{}", escape(name)),
                        "required property is missing".into(),
                    );
                }
            }
            for (name, field) in map {
                let here = format!("{at}/{}", escape(name));
                match properties.and_then(|p| p.get(name)) {
                    Some(prop_schema) => check(prop_schema, field, &here, errors),
                    None => match schema.get("additionalProperties") {
                        Some(Value::Bool(false)) => {
                            let known: Vec<&str> = properties
                                .map(|p| p.keys().map(String::as_str).collect())
                                .unwrap_or_default();
                            fail(
                                errors,
                                &here,
                                format!("unknown property `{name}` (known: {})", known.join(", ")),
                            );
                        }
                        Some(extra @ Value::Object(_)) => check(extra, field, &here, errors),
                        _ => {}
                    },
                }
            }
        }
        _ => {}
    }

    if let Some(Value::Array(branches)) = schema.get("allOf") {
        for branch in branches {
            check(branch, value, at, errors);
        }
    }
    if let Some(Value::Array(branches)) = schema.get("anyOf") {
        let results: Vec<Vec<SchemaError>> =
            branches.iter().map(|b| validate_at(b, value, at)).collect();
        if !results.iter().any(Vec::is_empty) {
            fail(
                errors,
                at,
                format!(
                    "matches none of the anyOf branches ({})",
                    summarize(&results)
                ),
            );
        }
    }
    if let Some(Value::Array(branches)) = schema.get("oneOf") {
        let results: Vec<Vec<SchemaError>> =
            branches.iter().map(|b| validate_at(b, value, at)).collect();
        let passing = results.iter().filter(|r| r.is_empty()).count();
        if passing == 0 {
            fail(
                errors,
                at,
                format!(
                    "matches none of the oneOf branches ({})",
                    summarize(&results)
                ),
            );
        } else if passing > 1 {
            fail(
                errors,
                at,
                format!("matches {passing} oneOf branches, exactly one allowed"),
            );
        }
    }
}

fn validate_at(schema: &Value, value: &Value, at: &str) -> Vec<SchemaError> {
    let mut errors = Vec::new();
    check(schema, value, at, &mut errors);
    errors
}

fn summarize(results: &[Vec<SchemaError>]) -> String {
    results
        .iter()
        .enumerate()
        .map(|(i, errs)| {
            let first = errs
                .first()
                .map(|e| format!("{}: {}", e.pointer, e.message))
                .unwrap_or_default();
            format!("branch {i}: {first}")
        })
        .collect::<Vec<_>>()
        .join("; ")
}
