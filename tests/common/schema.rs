//! A small JSON Schema validator for the keywords that the project's own schemas
//! (`docs/schema/*.schema.json`, draft 2020-12) and the official SARIF 2.1.0 schema
//! (`tests/data/sarif-schema-2.1.0.json`, draft-04) use, and no other:
//!
//! - assertions: `type`, `const`, `enum`, `required`, `properties`, `additionalProperties` (`false`,
//!   `true` or a schema for the properties `properties` does not name), `items` (one schema for
//!   every item), `minItems`, `uniqueItems`, `minimum`, `maximum`, `minLength`, `maxLength`,
//!   `oneOf`, `anyOf`, `pattern` (only the four regular expressions of the SARIF schema, see
//!   [`pattern_matches`]) and `format` (`uri`, `uri-reference` and `date-time`, see
//!   [`format_holds`]);
//! - local `$ref`s, to `#/$defs/NAME` (2020-12) or `#/definitions/NAME` (draft-04). A `$ref`'s
//!   siblings are applied too, as in 2020-12; draft-04 would ignore them, and the SARIF schema
//!   gives a `$ref` no sibling but `description`, so both readings agree on it;
//! - annotations, which assert nothing: `$schema`, `$id`, `id`, `title`, `description`,
//!   `default`, `$defs` and `definitions`.
//!
//! Before it looks at a value, [`validate`] reads the whole schema, every definition and every
//! alternative included, and reports a keyword outside this list, a `pattern` or `format` it
//! cannot check and a `$ref` it cannot resolve as errors: a schema can never claim a constraint
//! that this check silently skips, even in a branch the value does not reach. (A full validator
//! crate would bring some seventy crates, regular-expression engines and big-number arithmetic
//! among them, into the build for these tests.)

use serde_json::{Map, Value};

/// Keywords that only annotate.
const ANNOTATIONS: &[&str] = &["$schema", "$id", "id", "title", "description", "default"];

/// Every violation of `schema` by `value`, each as `path: reason`; or, if the schema uses
/// anything this check does not implement, every such use, as `schema PATH: reason`.
pub fn validate(schema: &Value, value: &Value) -> Vec<String> {
    let mut errors = Vec::new();
    audit(schema, schema, "#", &mut errors);
    if errors.is_empty() {
        check(schema, schema, value, "$", &mut errors);
    }
    errors
}

/// Whether this check implements everything `schema` (at `at`, under `root`) says.
fn audit(root: &Value, schema: &Value, at: &str, errors: &mut Vec<String>) {
    let Some(object) = schema.as_object() else {
        errors.push(format!("schema {at}: not an object"));
        return;
    };
    let mut refuse = |why: String| errors.push(format!("schema {at}: {why}"));
    let mut subschemas: Vec<(String, &Value)> = Vec::new();
    for (keyword, arg) in object {
        match keyword.as_str() {
            k if ANNOTATIONS.contains(&k) => {}
            "$defs" | "definitions" | "properties" => match arg.as_object() {
                Some(map) => subschemas.extend(
                    map.iter()
                        .map(|(name, sub)| (format!("{at}/{keyword}/{name}"), sub)),
                ),
                None => refuse(format!("`{keyword}` is not an object")),
            },
            "items" => match arg {
                Value::Object(_) => subschemas.push((format!("{at}/items"), arg)),
                _ => refuse("only `items` with one schema is implemented".to_string()),
            },
            "additionalProperties" => match arg {
                Value::Bool(_) => {}
                Value::Object(_) => subschemas.push((format!("{at}/additionalProperties"), arg)),
                _ => refuse("`additionalProperties` is neither a boolean nor a schema".to_string()),
            },
            "oneOf" | "anyOf" => match arg.as_array() {
                Some(alternatives) if !alternatives.is_empty() => subschemas.extend(
                    alternatives
                        .iter()
                        .enumerate()
                        .map(|(i, sub)| (format!("{at}/{keyword}/{i}"), sub)),
                ),
                _ => refuse(format!("`{keyword}` is not a non-empty array")),
            },
            "$ref" => {
                if resolve(root, arg).is_none() {
                    refuse(format!("unresolvable $ref {arg}"));
                }
            }
            "type" => {
                let known = |t: &Value| {
                    t.as_str().is_some_and(|t| {
                        [
                            "object", "array", "string", "boolean", "null", "number", "integer",
                        ]
                        .contains(&t)
                    })
                };
                let fine = match arg {
                    Value::Array(types) => !types.is_empty() && types.iter().all(known),
                    t => known(t),
                };
                if !fine {
                    refuse(format!("unknown type {arg}"));
                }
            }
            "const" => {}
            "enum" => {
                if !arg.is_array() {
                    refuse("`enum` is not an array".to_string());
                }
            }
            "required" => {
                if !arg
                    .as_array()
                    .is_some_and(|a| a.iter().all(Value::is_string))
                {
                    refuse("`required` is not an array of names".to_string());
                }
            }
            "minimum" | "maximum" => {
                if !arg.is_number() {
                    refuse(format!("`{keyword}` is not a number"));
                }
            }
            "minLength" | "maxLength" | "minItems" => {
                if !arg.is_u64() {
                    refuse(format!("`{keyword}` is not a non-negative integer"));
                }
            }
            "uniqueItems" => {
                if !arg.is_boolean() {
                    refuse("`uniqueItems` is not a boolean".to_string());
                }
            }
            "pattern" => {
                if arg.as_str().and_then(|p| pattern_matches(p, "")).is_none() {
                    refuse(format!(
                        "unsupported pattern {arg}: only the SARIF schema's patterns are implemented"
                    ));
                }
            }
            "format" => {
                if arg.as_str().and_then(|f| format_holds(f, "")).is_none() {
                    refuse(format!("unsupported format {arg}"));
                }
            }
            other => refuse(format!(
                "the schema uses `{other}`, which this check does not implement"
            )),
        }
    }
    for (path, sub) in subschemas {
        audit(root, sub, &path, errors);
    }
}

/// The schema a local `$ref` names: `#/$defs/NAME` or `#/definitions/NAME`.
fn resolve<'a>(root: &'a Value, reference: &Value) -> Option<&'a Value> {
    let (container, name) = reference.as_str()?.strip_prefix("#/")?.split_once('/')?;
    if !matches!(container, "$defs" | "definitions") || name.contains(['/', '~', '%']) {
        return None;
    }
    root.get(container)?.get(name)
}

fn check(root: &Value, schema: &Value, value: &Value, at: &str, errors: &mut Vec<String>) {
    let Some(schema) = schema.as_object() else {
        errors.push(format!("{at}: the schema here is not an object"));
        return;
    };
    for (keyword, arg) in schema {
        match keyword.as_str() {
            k if ANNOTATIONS.contains(&k) => {}
            "$defs" | "definitions" => {}
            "$ref" => match resolve(root, arg) {
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
                if !same(value, arg) {
                    errors.push(format!("{at}: {value} is not {arg}"));
                }
            }
            "enum" => {
                if !arg
                    .as_array()
                    .is_some_and(|a| a.iter().any(|v| same(v, value)))
                {
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
            "maximum" => {
                if let (Some(v), Some(max)) = (value.as_f64(), arg.as_f64())
                    && v > max
                {
                    errors.push(format!("{at}: {v} is above {max}"));
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
            "minItems" => {
                if let (Some(items), Some(n)) = (value.as_array(), arg.as_u64())
                    && (items.len() as u64) < n
                {
                    errors.push(format!("{at}: {} items, fewer than {n}", items.len()));
                }
            }
            "uniqueItems" => {
                if arg == &Value::Bool(true)
                    && let Some(items) = value.as_array()
                {
                    for (i, a) in items.iter().enumerate() {
                        if let Some(j) = items[i + 1..].iter().position(|b| same(a, b)) {
                            errors.push(format!(
                                "{at}: items {i} and {} are equal, and the items must be unique",
                                i + 1 + j
                            ));
                        }
                    }
                }
            }
            "pattern" => {
                if let (Some(s), Some(p)) = (value.as_str(), arg.as_str()) {
                    match pattern_matches(p, s) {
                        Some(true) => {}
                        Some(false) => {
                            errors.push(format!("{at}: {value} does not match the pattern {p}"))
                        }
                        None => errors.push(format!("{at}: unsupported pattern {arg}")),
                    }
                }
            }
            "format" => {
                if let (Some(s), Some(f)) = (value.as_str(), arg.as_str()) {
                    match format_holds(f, s) {
                        Some(true) => {}
                        Some(false) => errors.push(format!("{at}: {value} is not a {f}")),
                        None => errors.push(format!("{at}: unsupported format {arg}")),
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
                if let Some(obj) = value.as_object() {
                    let known = schema.get("properties").and_then(Value::as_object);
                    let others = obj
                        .iter()
                        .filter(|(name, _)| !known.is_some_and(|k| k.contains_key(*name)));
                    for (name, v) in others {
                        match arg {
                            Value::Bool(true) => {}
                            Value::Bool(false) => {
                                errors.push(format!("{at}: unexpected property `{name}`"))
                            }
                            sub => check(root, sub, v, &format!("{at}.{name}"), errors),
                        }
                    }
                }
            }
            "oneOf" | "anyOf" => {
                let Some(alternatives) = arg.as_array() else {
                    errors.push(format!("{at}: {keyword} is not an array"));
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
                if keyword == "oneOf" && matching != 1 {
                    errors.push(format!(
                        "{at}: matches {matching} of the {} alternatives of oneOf, not exactly one",
                        alternatives.len()
                    ));
                }
                if keyword == "anyOf" && matching == 0 {
                    errors.push(format!(
                        "{at}: matches none of the {} alternatives of anyOf",
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

/// JSON Schema's equality of two values (for `const`, `enum` and `uniqueItems`): numbers by
/// their value (`1` and `1.0` are equal), arrays item by item, objects by their names and the
/// values under them whatever their order, anything else as it is.
pub fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(x), Some(y)) => x == y,
            _ => match (x.as_u64(), y.as_u64()) {
                (Some(x), Some(y)) => x == y,
                _ => x.as_f64() == y.as_f64(),
            },
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y))
        }
        (Value::Object(x), Value::Object(y)) => same_objects(x, y),
        _ => a == b,
    }
}

fn same_objects(x: &Map<String, Value>, y: &Map<String, Value>) -> bool {
    x.len() == y.len()
        && x.iter()
            .all(|(name, v)| y.get(name).is_some_and(|w| same(v, w)))
}

/// The SARIF schema's regular expressions (`dottedQuadFileVersion`, `mimeType`, every `guid` and
/// `language`).
const DOTTED_QUAD: &str = r"[0-9]+(\.[0-9]+){3}";
const MIME_TYPE: &str = "[^/]+/.+";
const GUID: &str =
    "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-5][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$";
const LANGUAGE: &str = "^[a-zA-Z]{2}(-[a-zA-Z]{2})?$";

/// Whether `s` matches `pattern`, or `None` for a pattern this check does not implement: only the
/// four of the SARIF schema are, each by hand, with the meaning JSON Schema gives a pattern (an
/// ECMA-262 regular expression that may match anywhere in the string unless `^` and `$` anchor
/// it to the whole string; `.` is any character but a line terminator).
pub fn pattern_matches(pattern: &str, s: &str) -> Option<bool> {
    let hex = |b: &u8| b.is_ascii_hexdigit();
    let alpha = |b: &u8| b.is_ascii_alphabetic();
    let b = s.as_bytes();
    Some(match pattern {
        // Four dot-separated runs of ASCII digits somewhere in the string. A run is followed by a
        // dot or ends the match, so taking each run whole is the only way to match.
        DOTTED_QUAD => (0..b.len()).any(|start| {
            let mut i = start;
            for run in 0..4 {
                if run > 0 {
                    if b.get(i) != Some(&b'.') {
                        return false;
                    }
                    i += 1;
                }
                let from = i;
                while b.get(i).is_some_and(u8::is_ascii_digit) {
                    i += 1;
                }
                if i == from {
                    return false;
                }
            }
            true
        }),
        // Somewhere, a character other than `/`, then `/`, then a character that is not a line
        // terminator.
        MIME_TYPE => {
            let chars: Vec<char> = s.chars().collect();
            (1..chars.len().saturating_sub(1)).any(|j| {
                chars[j] == '/'
                    && chars[j - 1] != '/'
                    && !matches!(chars[j + 1], '\n' | '\r' | '\u{2028}' | '\u{2029}')
            })
        }
        // The whole string (ECMA-262's `$` without the `m` flag is the end of the input only).
        GUID => {
            b.len() == 36
                && b.iter().enumerate().all(|(i, c)| match i {
                    8 | 13 | 18 | 23 => *c == b'-',
                    14 => (b'1'..=b'5').contains(c),
                    19 => b"89abAB".contains(c),
                    _ => hex(c),
                })
        }
        LANGUAGE => match b {
            [x, y] => alpha(x) && alpha(y),
            [x, y, b'-', z, w] => [x, y, z, w].into_iter().all(alpha),
            _ => false,
        },
        _ => return None,
    })
}

/// Whether `s` has the format `format`, or `None` for a format this check does not implement.
/// What each one checks, and no more:
///
/// - `date-time`: RFC 3339's `date-time` (section 5.6) exactly: `YYYY-MM-DDTHH:MM:SS`, optional
///   fractional seconds, then `Z` or `+HH:MM`/`-HH:MM`; `T` and `Z` in either case; a month of
///   1 to 12, a day that exists in that month (29 February only in a leap year), hours to 23,
///   minutes to 59, seconds to 60 (a leap second), offsets to 23:59.
/// - `uri-reference`: RFC 3986's characters only (letters, digits, `-._~`, `:/?#[]@`,
///   `!$&'()*+,;=`, and `%` followed by two hexadecimal digits, so no space, control character or
///   non-ASCII character), and a `:` before the first `/`, `?` or `#` only after a scheme (in a
///   relative reference the first segment has no colon). The grammar of the authority and the
///   path (hosts, ports, where brackets may go) is not checked.
/// - `uri`: a `uri-reference` that starts with a scheme, `ALPHA *( ALPHA / DIGIT / "+" / "-" /
///   "." )`, and a `:`.
pub fn format_holds(format: &str, s: &str) -> Option<bool> {
    Some(match format {
        "date-time" => date_time(s),
        "uri-reference" => uri_reference(s),
        "uri" => uri_reference(s) && scheme_end(s).is_some(),
        _ => return None,
    })
}

/// Where the scheme of `s` ends (the index of its `:`), if `s` starts with one.
fn scheme_end(s: &str) -> Option<usize> {
    let colon = s.find(':')?;
    let scheme = &s.as_bytes()[..colon];
    let fine = scheme.first().is_some_and(u8::is_ascii_alphabetic)
        && scheme
            .iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.'));
    fine.then_some(colon)
}

fn uri_reference(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'%' {
            if !(b.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
                && b.get(i + 2).is_some_and(u8::is_ascii_hexdigit))
            {
                return false;
            }
            i += 3;
            continue;
        }
        let allowed = c.is_ascii_alphanumeric() || b"-._~:/?#[]@!$&'()*+,;=".contains(&c);
        if !allowed {
            return false;
        }
        i += 1;
    }
    let first_delimiter = s.find(['/', '?', '#']).unwrap_or(s.len());
    match s[..first_delimiter].find(':') {
        None => true,
        Some(_) => scheme_end(s).is_some(),
    }
}

fn date_time(s: &str) -> bool {
    let b = s.as_bytes();
    let digits = |from: usize, len: usize| -> Option<u32> {
        let part = b.get(from..from + len)?;
        part.iter()
            .all(u8::is_ascii_digit)
            .then(|| part.iter().fold(0, |n, d| n * 10 + u32::from(d - b'0')))
    };
    let at = |i: usize, c: &[u8]| b.get(i).is_some_and(|x| c.contains(x));
    let (Some(year), Some(month), Some(day), Some(hour), Some(minute), Some(second)) = (
        digits(0, 4),
        digits(5, 2),
        digits(8, 2),
        digits(11, 2),
        digits(14, 2),
        digits(17, 2),
    ) else {
        return false;
    };
    if !(at(4, b"-") && at(7, b"-") && at(10, b"Tt") && at(13, b":") && at(16, b":")) {
        return false;
    }
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    if !((1..=days).contains(&day) && hour <= 23 && minute <= 59 && second <= 60) {
        return false;
    }
    let mut i = 19;
    if at(i, b".") {
        let from = i + 1;
        i = from;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == from {
            return false;
        }
    }
    match b.get(i) {
        Some(b'Z' | b'z') => i + 1 == b.len(),
        Some(b'+' | b'-') => {
            i + 6 == b.len()
                && at(i + 3, b":")
                && digits(i + 1, 2).is_some_and(|h| h <= 23)
                && digits(i + 4, 2).is_some_and(|m| m <= 59)
        }
        _ => false,
    }
}
