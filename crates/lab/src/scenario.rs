//! Reading a scenario: a file named on the command line (TOML, or JSON by its extension or its first
//! character), scenario-file TOML, or JSON (what the Python package turns a dict into). All three are the one shape, `ScenarioFile`'s keys over the
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
/// directory; messages start with `scenario file PATH:`. The file is JSON or TOML
/// ([`is_json_file`]), and one that sets nothing is refused: running the defaults without a word
/// would hide that the file named is not the one meant.
pub fn apply_file(path: &Path, sc: &mut Scenario) -> Result<(), Error> {
    let text = read_file(path)?;
    let named = |e: String| Error::Invalid(format!("scenario file {}: {e}", path.display()));
    let json = is_json_file(path, &text);
    if sets_nothing(&text, json) {
        return Err(Error::Invalid(format!(
            "scenario file {} is empty: it sets nothing (leave out --scenario to run the \
             defaults)",
            path.display()
        )));
    }
    let mut f = if json {
        serde_json::from_str::<ScenarioFile>(&text).map_err(|e| named(e.to_string()))?
    } else {
        ScenarioFile::parse(&text).map_err(named)?
    };
    f.rebase_paths(path.parent().unwrap_or(Path::new(".")));
    f.apply(sc).map_err(named)
}

/// Whether a scenario file is JSON (what the Python package's dicts are): by its extension,
/// `.json` or `.toml`, else by its first character, since a TOML file cannot start with `{`.
pub fn is_json_file(path: &Path, text: &str) -> bool {
    match path.extension().and_then(|e| e.to_str()) {
        Some(e) if e.eq_ignore_ascii_case("json") => true,
        Some(e) if e.eq_ignore_ascii_case("toml") => false,
        _ => text
            .trim_start_matches('\u{feff}')
            .trim_start()
            .starts_with('{'),
    }
}

/// A file with no setting at all: blank, only comments, or `{}`. A file that does not parse is
/// left to the parser, whose message says where.
fn sets_nothing(text: &str, json: bool) -> bool {
    if json {
        serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(text)
            .is_ok_and(|m| m.is_empty())
    } else {
        // every key and table header of TOML is a line of its own that is not a comment
        text.lines()
            .map(|l| l.trim_start_matches('\u{feff}').trim())
            .all(|l| l.is_empty() || l.starts_with('#'))
    }
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
    fn json_files_are_known_by_extension_or_first_character() {
        let p = |s: &str| Path::new(s).to_path_buf();
        assert!(is_json_file(&p("a.json"), "protocol = 1"));
        assert!(is_json_file(&p("a.JSON"), ""));
        assert!(!is_json_file(&p("a.toml"), "{}"));
        assert!(is_json_file(&p("scenario"), "\n  {\"seed\": 1}"));
        assert!(!is_json_file(&p("scenario"), "seed = 1"));
        assert!(sets_nothing("# only a comment\n\n", false));
        assert!(sets_nothing(" { } ", true));
        assert!(!sets_nothing("seed = 1", false));
        assert!(!sets_nothing("seed = ", false), "left to the parser");
        assert!(!sets_nothing("[host-details]", false));
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
