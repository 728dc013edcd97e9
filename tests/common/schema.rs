//! A small JSON Schema validator for the subset of draft 2020-12 that
//! `docs/schema/check-report.schema.json` uses: `type`, `const`, `enum`, `required`, `properties`,
//! `additionalProperties: false`, `items`, `minimum`, `minLength`, `maxLength`, `oneOf` and local
//! `$ref`s into `$defs`. A keyword outside that subset is itself an error, so the schema can never claim
//! a constraint that this check silently skips. (A full validator crate would bring some
//! seventy crates, regular-expression engines and big-number arithmetic among them, into the
//! build for one test.)

use serde_json::Value;

/// Keywords that only annotate.
const ANNOTATIONS: &[&str] = &["$schema", "$id", "title", "description", "$defs"];

/// Every violation of `schema` by `value`, each as `path: reason`.
pub fn validate(schema: &Value, value: &Value) -> Vec<String> {
    let mut errors = Vec::new();
    check(schema, schema, value, "$", &mut errors);
    errors
}

fn check(root: &Value, schema: &Value, value: &Value, at: &str, errors: &mut Vec<String>) {
    let Some(schema) = schema.as_object() else {
        errors.push(format!("{at}: the schema here is not an object"));
        return;
    };
    for (keyword, arg) in schema {
        match keyword.as_str() {
            k if ANNOTATIONS.contains(&k) => {}
            "$ref" => match arg
                .as_str()
                .and_then(|r| r.strip_prefix("#/$defs/"))
                .and_then(|name| root.get("$defs")?.get(name))
            {
                Some(target) => check(root, target, value, at, errors),
                None => errors.push(format!("{at}: unresolvable $ref {arg}")),
            },
            "type" => {
                let allowed: Vec<&str> = match arg {
                    Value::String(s) => vec![s.as_str()],
                    Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
                    _ => vec![],
                };
                if !allowed.iter().any(|t| has_type(value, t)) {
                    errors.push(format!("{at}: {value} is not of type {arg}"));
                }
            }
            "const" => {
                if value != arg {
                    errors.push(format!("{at}: {value} is not {arg}"));
                }
            }
            "enum" => {
                if !arg.as_array().is_some_and(|a| a.contains(value)) {
                    errors.push(format!("{at}: {value} is not one of {arg}"));
                }
            }
            "minimum" => {
                if let (Some(v), Some(min)) = (value.as_f64(), arg.as_f64())
                    && v < min
                {
                    errors.push(format!("{at}: {v} is below {min}"));
                }
            }
            "minLength" | "maxLength" => {
                if let (Some(s), Some(n)) = (value.as_str(), arg.as_u64()) {
                    let len = s.chars().count() as u64;
                    if (keyword == "minLength" && len < n) || (keyword == "maxLength" && len > n) {
                        errors.push(format!("{at}: length {len} breaks {keyword} {n}"));
                    }
                }
            }
            "required" => {
                if let Some(obj) = value.as_object() {
                    for name in arg
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(Value::as_str)
                    {
                        if !obj.contains_key(name) {
                            errors.push(format!("{at}: missing `{name}`"));
                        }
                    }
                }
            }
            "properties" => {
                if let (Some(obj), Some(props)) = (value.as_object(), arg.as_object()) {
                    for (name, sub) in props {
                        if let Some(v) = obj.get(name) {
                            check(root, sub, v, &format!("{at}.{name}"), errors);
                        }
                    }
                }
            }
            "additionalProperties" => {
                if arg != &Value::Bool(false) {
                    errors.push(format!(
                        "{at}: only `additionalProperties: false` is supported"
                    ));
                }
                if let Some(obj) = value.as_object() {
                    let known = schema.get("properties").and_then(Value::as_object);
                    for name in obj.keys() {
                        if !known.is_some_and(|k| k.contains_key(name)) {
                            errors.push(format!("{at}: unexpected property `{name}`"));
                        }
                    }
                }
            }
            "oneOf" => {
                let Some(alternatives) = arg.as_array() else {
                    errors.push(format!("{at}: oneOf is not an array"));
                    continue;
                };
                let matching = alternatives
                    .iter()
                    .filter(|alt| {
                        let mut e = Vec::new();
                        check(root, alt, value, at, &mut e);
                        e.is_empty()
                    })
                    .count();
                if matching != 1 {
                    errors.push(format!(
                        "{at}: matches {matching} of the {} alternatives of oneOf, not exactly one",
                        alternatives.len()
                    ));
                }
            }
            "items" => {
                if let Some(items) = value.as_array() {
                    for (i, item) in items.iter().enumerate() {
                        check(root, arg, item, &format!("{at}[{i}]"), errors);
                    }
                }
            }
            other => errors.push(format!(
                "{at}: the schema uses `{other}`, which this check does not implement"
            )),
        }
    }
}

fn has_type(value: &Value, ty: &str) -> bool {
    match ty {
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "null" => value.is_null(),
        "number" => value.is_number(),
        "integer" => value.is_u64() || value.is_i64(),
        _ => false,
    }
}
