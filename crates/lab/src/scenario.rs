//! Reading a scenario: a file named on the command line, scenario-file TOML, or JSON (what the
//! Python package turns a dict into). All three are the one shape, `ScenarioFile`'s keys over the
//! defaults of `snooplab run`, so the three read the same settings with the same messages.

use std::path::Path;

use snooplab_sim::scenario::ScenarioFile;
use snooplab_sim::Scenario;

use crate::Error;

/// The largest scenario file read (documented in `run --help` and docs/outputs.md): real ones are a
/// few kilobytes, and reading a device such as /dev/zero whole would exhaust memory.
pub const MAX_SCENARIO_BYTES: u64 = 1 << 20;

/// Reads a scenario file, refusing what is not a regular file (a FIFO would block, a device never
/// end) and files over [`MAX_SCENARIO_BYTES`], before reading any of it.
pub fn read_file(path: &Path) -> Result<String, Error> {
    snooplab_sim::textfile::read_text_file(path, "scenario file", MAX_SCENARIO_BYTES)
        .map_err(Error::File)
}

/// Sets what the file at `path` sets in `sc`, its trace file names taken relative to the file's
/// directory; messages start with `scenario file PATH:`.
pub fn apply_file(path: &Path, sc: &mut Scenario) -> Result<(), Error> {
    let text = read_file(path)?;
    ScenarioFile::parse(&text)
        .and_then(|mut f| {
            f.rebase_paths(path.parent().unwrap_or(Path::new(".")));
            f.apply(sc)
        })
        .map_err(|e| Error::Invalid(format!("scenario file {}: {e}", path.display())))
}

/// A checked scenario from scenario-file TOML; messages name the line and key.
pub fn from_toml(text: &str) -> Result<Scenario, Error> {
    Scenario::from_toml(text).map_err(Error::Invalid)
}

/// The scenario-file settings in `text`, a JSON object with the file's keys, unchecked (a sweep
/// lays its values over them before checking); unknown keys are refused.
pub fn settings_from_json(text: &str) -> Result<ScenarioFile, Error> {
    serde_json::from_str(text).map_err(|e| Error::Invalid(e.to_string()))
}

/// A checked scenario from a JSON object with the keys of a scenario file. Syntax and unknown
/// keys are reported with serde's position; the settings' own checks with the command line's
/// message alone.
pub fn from_json(text: &str) -> Result<Scenario, Error> {
    settings_from_json(text)?.scenario().map_err(Error::Invalid)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toml_json_and_serde_read_one_shape() {
        let t = from_toml("protocol = \"snoop\"\nbuffer = \"8k\"\nseed = 4\n").unwrap();
        let j = from_json(r#"{"protocol": "snoop", "buffer": 8192, "seed": 4}"#).unwrap();
        let s: Scenario =
            serde_json::from_str(r#"{"protocol":"snoop","buffer":"8k","seed":4}"#).unwrap();
        assert_eq!(t, j);
        assert_eq!(t, s);
        assert_eq!(t.buffer, 8192);
        assert_eq!(t.protocol.name(), "ll-tcp-aware");
    }

    #[test]
    fn unknown_keys_and_bad_values_are_refused_with_the_file_messages() {
        let e = from_json(r#"{"bufer": "8k"}"#).unwrap_err().to_string();
        assert!(e.contains("unknown field `bufer`"), "{e}");
        let e = from_json(r#"{"protocol": "tahoe"}"#).unwrap_err();
        assert!(
            matches!(&e, Error::Invalid(m) if m.starts_with("unknown protocol 'tahoe'")),
            "{e}"
        );
        let e = from_toml("mss = 10\n").unwrap_err().to_string();
        assert!(e.starts_with("mss 10 is out of range"), "{e}");
        let e = from_toml("bufer = 1\n").unwrap_err().to_string();
        assert!(e.starts_with("line 1: unknown field `bufer`"), "{e}");
    }
}
