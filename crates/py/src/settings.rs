//! Scenario settings from JSON, the text a Python dict becomes, with messages that name the key
//! (`seed: expected a whole number from 0 to 18446744073709551615, got -1`) as the TOML reader
//! names its line and key. serde_json alone says `invalid value: integer `-1`, expected u64 at
//! line 1 column 11`, a position in text the caller never wrote.

use serde_json::Value;
use snooplab_lab::Error;
use snooplab_sim::scenario::ScenarioFile;
use snooplab_sim::Scenario;

/// A checked scenario from a JSON object with a scenario file's keys (`snooplab run`'s defaults
/// for the rest), as `snooplab_lab::scenario::from_json` reads one, its messages naming the key.
pub fn scenario(text: &str) -> Result<Scenario, Error> {
    let value: Value = serde_json::from_str(text).map_err(|e| Error::Invalid(e.to_string()))?;
    settings(value, "")?.scenario().map_err(Error::Invalid)
}

/// A grid's parts that serde would refuse without naming them, checked here so that the lab's
/// reading of the grid (`SweepSettings::from_json`) meets none: `scenario`, a dict read as a
/// scenario's settings, and `host-details`, a dict.
pub fn check_grid(text: &str) -> Result<(), Error> {
    let value: Value = serde_json::from_str(text).map_err(|e| Error::Invalid(e.to_string()))?;
    let Some(grid) = value.as_object() else {
        return Ok(());
    };
    match grid.get("scenario") {
        // TOML text, read by the scenario file reader, which names its line and key
        None | Some(Value::Null | Value::String(_)) => {}
        Some(v) => {
            settings(v.clone(), "scenario")?;
        }
    }
    match grid.get("host-details") {
        None | Some(Value::Null | Value::Object(_)) => {}
        Some(other) => {
            return Err(Error::Invalid(format!(
                "host-details: expected a dict of host details, got {}",
                json_found(other)
            )))
        }
    }
    Ok(())
}

/// The settings in `value`, unchecked beyond their types; a message starts with the key's path
/// under `prefix` (`node[0].name`, `scenario.seed`).
fn settings(value: Value, prefix: &str) -> Result<ScenarioFile, Error> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let key = match (prefix, path.as_str()) {
            ("", ".") => String::new(),
            (p, ".") => p.to_string(),
            ("", k) => k.to_string(),
            (p, k) => format!("{p}.{k}"),
        };
        let msg = plain(&e.inner().to_string());
        Error::Invalid(if key.is_empty() {
            msg
        } else {
            format!("{key}: {msg}")
        })
    })
}

/// A JSON value as the Python value it came from, for a message.
fn json_found(v: &Value) -> String {
    match v {
        Value::Null => "None".into(),
        Value::Bool(b) => if *b { "True" } else { "False" }.into(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => format!("'{s}'"),
        Value::Array(_) => "a list".into(),
        Value::Object(_) => "a dict".into(),
    }
}

/// serde's type errors in a Python user's words: `invalid value: integer `-1`, expected u64`
/// becomes `expected a whole number from 0 to 18446744073709551615, got -1`.
fn plain(msg: &str) -> String {
    let rest = msg
        .strip_prefix("invalid type: ")
        .or_else(|| msg.strip_prefix("invalid value: "));
    let Some((found, expected)) = rest.and_then(|r| r.rsplit_once(", expected ")) else {
        return msg.to_string();
    };
    let range = |high: u64| format!("a whole number from 0 to {high}");
    let expected = match expected {
        "u64" | "usize" => range(u64::MAX),
        "u32" => range(u32::MAX.into()),
        "u16" => range(u16::MAX.into()),
        "u8" => range(u8::MAX.into()),
        "i64" | "i32" => "a whole number".into(),
        "f64" | "f32" => "a number".into(),
        "a boolean" => "True or False".into(),
        "a map" => "a dict".into(),
        "a sequence" => "a list".into(),
        e if e.starts_with("struct ") => "a dict".into(),
        other => other.into(),
    };
    let quoted = |s: &str, kind: &str| {
        s.strip_prefix(kind)
            .and_then(|r| r.strip_prefix(" `"))
            .and_then(|r| r.strip_suffix('`'))
            .map(str::to_string)
    };
    let found = quoted(found, "integer")
        .or_else(|| quoted(found, "floating point"))
        .or_else(|| {
            quoted(found, "boolean").map(|b| if b == "true" { "True" } else { "False" }.into())
        })
        .or_else(|| {
            found
                .strip_prefix("string \"")
                .and_then(|r| r.strip_suffix('"'))
                .map(|s| format!("'{s}'"))
        })
        .unwrap_or_else(|| {
            match found {
                "map" => "a dict",
                "sequence" => "a list",
                "null" | "unit" => "None",
                other => other,
            }
            .into()
        });
    format!("expected {expected}, got {found}")
}
